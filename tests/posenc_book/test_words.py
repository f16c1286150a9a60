"""Tests of the book's build's words: posenc_book.words and its catalogs, tools/posenc_book/locale/<lang>.po
(the site's interface ``site.*``, the handouts' checks ``handout.*``, the PDF's title page ``pdf.*``).

The catalogs must agree (the same keys, the same placeholders, translator comments that show the current
English), every message must be used by the build, and the code must hold no sentences of its own: no
tracked Python file outside tests/ has more than a couple of words of Korean.
"""

from __future__ import annotations

import ast
import gettext
import inspect
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import posenc_book.handouts.checks
import pytest
import sphinx
from book_files import ROOT
from catalogs import (
    code_strings,
    entries,
    key_problems,
    placeholder_problems,
    stale_comments,
    tracked_python_files,
)
from posenc_book.paths import TEMPLATES
from posenc_book.words import CATALOG, message, messages

from posenc.words import LANGUAGES

LOCALE = ROOT / "tools" / "posenc_book" / "locale"
GROUPS = ("site", "handout", "pdf", "notebook")
HANGUL_WORD = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")
# At most "a couple of words of Korean" in a tracked .py file outside tests/ (issue 26's done-when).
MAX_HANGUL_WORDS = 2


# --- The catalogs -------------------------------------------------------------------------------------


def test_there_is_one_catalog_per_language():
    assert sorted(path.stem for path in LOCALE.glob("*.po")) == sorted(LANGUAGES)


def test_the_catalog_holds_the_builds_words_only():
    assert {key.split(".")[0] for key in entries(LOCALE, "en")} == set(GROUPS)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_has_the_same_keys_all_translated(lang):
    assert not key_problems(LOCALE, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_translation_has_the_english_placeholders(lang):
    differ = placeholder_problems(LOCALE, lang)
    assert not differ, differ


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_translator_comments_show_the_current_english(lang):
    """``#. en: <line>`` for each line of the English: a changed English text shows up here."""
    stale = stale_comments(LOCALE, lang)
    assert not stale, f"{lang}.po: the '#. en:' comments of these messages are not en.po's text: {stale}"


# --- Every message is used ----------------------------------------------------------------------------


def returned_pairs(check) -> int:
    """How many (holds, detail) pairs a check function returns: the items of its last ``return [...]``."""
    body = ast.parse(inspect.getsource(check)).body[0].body
    returned = [node for node in body if isinstance(node, ast.Return)][-1].value
    assert isinstance(returned, ast.List), "a check returns a list literal of pairs"
    return len(returned.elts)


@cache
def asked_by_sphinx() -> tuple[str, frozenset[str]]:
    """What the site's build asks its catalogs for: the sources of the packages and of posenc_book's
    templates, and the message ids of the packages' own catalogs."""
    packages = Path(sphinx.__file__).parent.parent
    names = ["sphinx", "pydata_sphinx_theme", "sphinx_book_theme", "sphinx_togglebutton", "sphinx_exercise"]
    names += ["sphinx_proof", "jupyter_book"]
    texts, catalog_ids = [], set()
    for folder in [*(packages / name for name in names), TEMPLATES]:
        for path in folder.rglob("*"):
            if path.suffix in {".py", ".html", ".js"}:
                texts.append(path.read_text(encoding="utf-8", errors="replace"))
            elif path.suffix == ".mo":
                with path.open("rb") as file:
                    ids = gettext.GNUTranslations(file)._catalog  # its message ids, and plural forms' tuples
                catalog_ids |= {key for key in ids if isinstance(key, str)}
    return "\n".join(texts), frozenset(catalog_ids)


def is_asked_for(english: str) -> bool:
    sources, catalog_ids = asked_by_sphinx()
    quoted = (f'"{english}"', f"'{english}'", f"{{% trans %}}{english}{{% endtrans %}}")
    return english in catalog_ids or any(form in sources for form in quoted)


def unused(keys, english: dict[str, str]) -> list[str]:
    """The keys that no code uses.

    A key is used when it is a string literal of the code; or when it is ``<group>.<name>`` for a group
    that the code passes to ``messages`` and a name that is a string literal of the code (``text["dim"]``);
    or, for ``handout.<label>.define`` and ``handout.<label>.claim.<n>``, when ``label`` has a check in
    posenc_book.handouts.checks whose function returns at least ``n`` pairs; or, for the words ``site.<name>``
    that posenc_book.sphinx.langswitch puts in front of the installed catalogs, when the build asks for
    their English text (a template, an installed package or its catalog).
    """
    literals, groups = code_strings()
    checks = posenc_book.handouts.checks.CHECKS
    found = []
    for key in keys:
        group, _, name = key.rpartition(".")
        handout = re.fullmatch(r"handout\.(?P<label>[^.]+)\.(?:define|claim\.(?P<n>\d+))", key)
        if key in literals:
            continue
        if group == "site":
            if is_asked_for(english[key]):
                continue
        elif group in groups and name in literals:
            continue
        elif handout and handout["label"] in checks:
            if not handout["n"] or int(handout["n"]) <= returned_pairs(checks[handout["label"]].check):
                continue
        found.append(key)
    return found


def test_every_message_is_used_by_the_code():
    english = {key: entry.string for key, entry in entries(LOCALE, "en").items()}
    assert not unused(english, english)


def test_an_unused_message_is_found():
    english = {key: entry.string for key, entry in entries(LOCALE, "en").items()}
    made_up = {
        "pdf.no_such_word": "A word no title page prints",
        "site.no_such_button": "A button no theme has",
        "handout.ex-motivation-3.claim.9": "a claim the check does not return",
        "handout.ex-nowhere-1.define": "Define nothing.",
    }
    assert unused([*english, *made_up], {**english, **made_up}) == list(made_up)


# --- The code holds no sentences ----------------------------------------------------------------------


def hangul_words(text: str) -> int:
    return sum(1 for word in text.split() if HANGUL_WORD.search(word))


def test_no_code_outside_the_tests_holds_korean_sentences():
    counts = {
        str(path.relative_to(ROOT)): hangul_words(path.read_text(encoding="utf-8"))
        for path in tracked_python_files()
        if path.relative_to(ROOT).parts[0] != "tests"
    }
    assert not {name: count for name, count in counts.items() if count > MAX_HANGUL_WORDS}


def test_hangul_words_are_counted():
    assert hangul_words('label = "위치 인코딩"  # the Korean title') == 2
    assert hangul_words('"{j}번 차원" and no other word') == 2


# --- posenc_book.words ----------------------------------------------------------------------------------


def test_the_words_are_posenc_books():
    assert (CATALOG.package, CATALOG.folder) == ("posenc_book", "locale")


def test_message_fills_in_its_fields():
    assert message("handout.missing", "en", name="best").startswith("Not checked yet: best is not defined.")
    assert "{name}" in message("handout.missing", "ko")  # without fields: the template as stored


def test_messages_holds_one_level_below_the_group():
    words = messages("handout", "en")
    assert words["passed"] == message("handout.passed", "en")
    assert not [name for name in words if "." in name]
    assert "ex-formula-3.define" not in words


def test_an_unknown_language_is_refused_with_the_allowed_ones():
    with pytest.raises(ValueError, match=r"lang must be one of \('en', 'id', 'ko'\), got 'fr'"):
        message("handout.passed", "fr")
    with pytest.raises(ValueError, match="got 'EN'"):
        messages("handout", "EN")


def test_an_unknown_key_names_the_key_and_the_catalog():
    with pytest.raises(KeyError, match=r"'handout\.no_such_word'.*posenc_book/locale/ko\.po"):
        message("handout.no_such_word", "ko")
    with pytest.raises(KeyError, match=r"'handout\.passed'"):
        messages("handout.passed", "en")  # a key, not a group
    with pytest.raises(KeyError, match=r"'plot\.figures\.heatmap'"):
        message("plot.figures.heatmap", "en")  # posenc's words, not the build's


def test_import_is_light_and_reads_on_first_use():
    code = (
        "import sys, posenc_book.words as w; "
        "light = 'babel' not in sys.modules and 'torch' not in sys.modules; "
        "w.message('handout.passed', 'en'); print(light, 'babel' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["True", "True"]
