"""Tests of posenc.words and of its catalogs, src/posenc/locale/<lang>.po: one file of words per language.

The catalogs must agree (the same keys, the same placeholders, translator comments that show the current
English), every message must be used by the code, and the code must hold no sentences of its own: no
tracked Python file outside tests/ has more than a couple of words of Korean.
"""

from __future__ import annotations

import ast
import doctest
import gettext
import re
import string
import subprocess
import sys
import textwrap
from functools import cache
from pathlib import Path

import pytest
import sphinx
from babel.messages.pofile import read_po
from book_files import ROOT, ci_script

import posenc.words
from posenc.words import LANGUAGES, message, messages

LOCALE = ROOT / "src" / "posenc" / "locale"
HANGUL_WORD = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")
# At most "a couple of words of Korean" in a tracked .py file outside tests/ (issue 26's done-when).
MAX_HANGUL_WORDS = 2


@cache
def catalog(lang: str):
    with (LOCALE / f"{lang}.po").open("rb") as file:
        return read_po(file, abort_invalid=True)


def entries(lang: str) -> dict:
    return {entry.id: entry for entry in catalog(lang) if entry.id}


def format_fields(text: str) -> frozenset[str] | None:
    """The names of ``text``'s str.format fields; None if it is no valid template (a bare LaTeX brace)."""
    try:
        return frozenset(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)
    except ValueError:
        return None


# --- The catalogs -------------------------------------------------------------------------------------


def test_there_is_one_catalog_per_language():
    assert sorted(path.stem for path in LOCALE.glob("*.po")) == sorted(LANGUAGES)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_has_the_same_keys_all_translated(lang):
    found = entries(lang)
    assert list(found) == list(entries("en")), "the same keys, in the same order, as en.po"
    assert not [key for key, entry in found.items() if not entry.string], "empty msgstr"
    assert not [key for key, entry in found.items() if entry.fuzzy], "fuzzy messages"
    assert not catalog(lang).obsolete, "obsolete (#~) messages"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_translation_has_the_english_placeholders(lang):
    english = entries("en")
    differ = {
        key: (format_fields(english[key].string), format_fields(entry.string))
        for key, entry in entries(lang).items()
        if format_fields(entry.string) != format_fields(english[key].string)
    }
    assert not differ, differ


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_translator_comments_show_the_current_english(lang):
    """``#. en: <line>`` for each line of the English: a changed English text shows up here."""
    english = entries("en")
    stale = {}
    for key, entry in entries(lang).items():
        lines = [comment[len("en: ") :] for comment in entry.auto_comments if comment.startswith("en: ")]
        shown = "\n".join(lines)
        if shown != english[key].string:
            stale[key] = shown
    assert not stale, f"{lang}.po: the '#. en:' comments of these messages are not en.po's text: {stale}"


# --- Every message is used ----------------------------------------------------------------------------


def tracked_python_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [ROOT / name for name in listed.stdout.split()]


@cache
def code_strings() -> tuple[frozenset[str], frozenset[str]]:
    """The string literals of the code outside tests/, and the groups it passes to ``messages``."""
    literals, groups = set(), set()
    for path in tracked_python_files():
        if path.relative_to(ROOT).parts[0] == "tests":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                literals.add(node.value)
            elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                if name == "messages" and isinstance(node.args[0].value, str):
                    groups.add(node.args[0].value)
    return frozenset(literals), frozenset(groups)


def returned_pairs(code: str) -> int:
    """How many (holds, detail) pairs a check's code returns: the items of its last ``return [...]``."""
    body = ast.parse("def _check():\n" + textwrap.indent(code, "    ")).body[0].body
    returned = [node for node in body if isinstance(node, ast.Return)][-1].value
    assert isinstance(returned, ast.List), "a check returns a list literal of pairs"
    return len(returned.elts)


@cache
def asked_by_sphinx() -> tuple[str, frozenset[str]]:
    """What the site's build asks its catalogs for: the sources of the packages and of book/_templates,
    and the message ids of the packages' own catalogs."""
    packages = Path(sphinx.__file__).parent.parent
    names = ["sphinx", "pydata_sphinx_theme", "sphinx_book_theme", "sphinx_togglebutton", "sphinx_exercise"]
    names += ["sphinx_proof", "jupyter_book"]
    texts, catalog_ids = [], set()
    for folder in [*(packages / name for name in names), ROOT / "book" / "_templates"]:
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
    tools/handout_checks.py whose code returns at least ``n`` pairs; or, for the words ``site.<name>``
    that book/_ext/langswitch.py puts in front of the installed catalogs, when the build asks for their
    English text (a template, an installed package or its catalog).
    """
    literals, groups = code_strings()
    checks = ci_script("handout_checks").CHECKS
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
            if not handout["n"] or int(handout["n"]) <= returned_pairs(checks[handout["label"]].code):
                continue
        found.append(key)
    return found


def test_every_message_is_used_by_the_code():
    english = {key: entry.string for key, entry in entries("en").items()}
    assert not unused(english, english)


def test_an_unused_message_is_found():
    english = {key: entry.string for key, entry in entries("en").items()}
    made_up = {
        "plot.no_such_figure": "A title nobody draws",
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


# --- posenc.words ----------------------------------------------------------------------------------------


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


def test_an_unknown_key_names_the_key():
    with pytest.raises(KeyError, match=r"'handout\.no_such_word'.*ko\.po"):
        message("handout.no_such_word", "ko")
    with pytest.raises(KeyError, match=r"'handout\.passed'"):
        messages("handout.passed", "en")  # a key, not a group


def test_the_docstring_examples_run():
    results = doctest.testmod(posenc.words)
    assert results.attempted >= 4 and not results.failed


def test_import_is_light_and_reads_on_first_use():
    code = (
        "import sys, posenc.words as w; light = 'babel' not in sys.modules and 'torch' not in sys.modules; "
        "w.message('handout.passed', 'en'); print(light, 'babel' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["True", "True"]
