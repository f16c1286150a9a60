"""Tests of posenc.words and of its catalogs, src/posenc/locale/<lang>.po: one file of words per language.

posenc's catalogs hold its figures' words (``plot.*``) and nothing else: the site's, the handouts' and
the PDF's are the book's build's (tests/posenc_book/test_words.py, which also checks that the code holds
no Korean sentences). The catalogs must agree (the same keys, the same placeholders, translator comments
that show the current English), and every message must be used by the code.
"""

from __future__ import annotations

import doctest
import subprocess
import sys

import pytest
from book_files import ROOT
from catalogs import entries, key_problems, placeholder_problems, stale_comments, used_by_name

import posenc.words
from posenc.words import LANGUAGES, message, messages, translator

LOCALE = ROOT / "src" / "posenc" / "locale"


# --- The catalogs -------------------------------------------------------------------------------------


def test_there_is_one_catalog_per_language():
    assert sorted(path.stem for path in LOCALE.glob("*.po")) == sorted(LANGUAGES)


def test_the_catalog_holds_the_figures_words_only():
    assert {key.split(".")[0] for key in entries(LOCALE, "en")} == {"plot"}


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


def test_every_message_is_used_by_the_code():
    """A key is used when it is a string literal of the code, or a group's name that the code reads."""
    assert not [key for key in entries(LOCALE, "en") if not used_by_name(key)]


def test_an_unused_message_is_found():
    assert not used_by_name("plot.no_such_figure")
    assert not used_by_name("plot.figures.no_such_label")


# --- posenc.words ----------------------------------------------------------------------------------------


def test_message_fills_in_its_fields():
    assert message("plot.figures.dim", "en", j=3, i=1) == "$j = 3$, $i = 1$"
    assert "{j}" in message("plot.figures.dim", "ko")  # without fields: the template as stored


def test_message_names_a_placeholder_its_fields_leave_unfilled():
    unfilled = r"message\('plot\.figures\.dim'\): no value for its placeholder \{i\}"
    with pytest.raises(KeyError, match=unfilled):
        message("plot.figures.dim", "id", j=3)


def test_messages_holds_one_level_below_the_group():
    words = messages("plot.experiment", "en")
    assert not [name for name in words if "." in name]
    assert "ntk" not in words  # plot.experiment.recipes.ntk lies one level further down
    assert messages("plot.experiment.recipes", "en")["ntk"] == message("plot.experiment.recipes.ntk", "en")


def test_an_unknown_language_is_refused_with_the_allowed_ones():
    with pytest.raises(ValueError, match=r"lang must be one of \('en', 'id', 'ko'\), got 'fr'"):
        message("plot.figures.heatmap", "fr")
    with pytest.raises(ValueError, match="got 'EN'"):
        messages("plot.figures", "EN")


def test_an_unknown_key_names_the_key():
    with pytest.raises(KeyError, match=r"'plot\.no_such_word'.*posenc/locale/ko\.po"):
        message("plot.no_such_word", "ko")
    with pytest.raises(KeyError, match=r"'plot\.figures\.heatmap'"):
        messages("plot.figures.heatmap", "en")  # a key, not a group
    with pytest.raises(KeyError, match=r"'handout\.passed'"):
        message("handout.passed", "en")  # the book's build's words, not posenc's


# --- The chapters' translator ------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_translator_fills_in_the_translated_template(lang):
    _ = translator(lang)
    template = "who bites, read from the order: {word}"
    assert _(template, word="dog") == _(template).format(word="dog")
    assert _(template, word="dog").endswith(": dog")
    assert _(template) != template or lang == "en"  # translated, then filled in


def test_the_translator_fills_in_positional_values_and_keeps_a_template_without_them():
    _ = translator("en")
    assert _("{} of {}", 3, 4) == "3 of 4"
    assert _("{n} pairs, {{literal}}") == "{n} pairs, {{literal}}"  # no values: as stored


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_translator_names_a_placeholder_left_unfilled(lang):
    _ = translator(lang)
    with pytest.raises(KeyError, match=r"no value for its placeholder \{word\}"):
        _("who bites, read from the order: {word}", other="dog")
    with pytest.raises(KeyError, match=r"need more positional values than the 1 given"):
        translator("en")("{0} and {1}", "one")


EXACT = (
    "{dtype:15} {bits:2} significant bits, eps = {eps:.3g}, largest = {largest:.5g},\n"
    "{blank:15} integers exact up to 2**{bits} = {exact:,}"
)  # chapter 7 prints it with 2**24 and 2**11


@pytest.mark.parametrize(
    ("lang", "grouped"), [("en", "16,777,216"), ("id", "16\u202f777\u202f216"), ("ko", "16,777,216")]
)
def test_each_edition_groups_digits_its_own_way_now_or_when_the_template_is_filled_later(lang, grouped):
    _ = translator(lang)
    fields = {"dtype": "float32", "bits": 24, "eps": 1.19e-07, "largest": 3.4e38, "blank": "", "exact": 2**24}
    assert f"2**24 = {grouped}" in _(EXACT, **fields)
    assert _(EXACT).format(**fields) == _(EXACT, **fields)  # a template filled in by the cell, later
    assert "1.19e-07" in _(EXACT, **fields)  # a field without "," keeps Python's point


def test_indonesian_grouping_is_a_narrow_space_that_never_touches_a_decimal_point():
    line = translator("id")(
        "above {value:>9,.0f} float32 numbers are {gap:.3g} apart: u * value = {bound:.3g}"
    )
    filled = line.format(value=1_048_576.0, gap=0.125, bound=0.0625)
    assert filled.startswith("di atas 1\u202f048\u202f576: jarak antarbilangan float32 0.125;")
    assert filled.endswith(" = 0.0625")
    assert posenc.words.GROUPING["id"] == "\u202f" and "." not in posenc.words.GROUPING.values()


@pytest.mark.parametrize("lang", ["id", "ko"])
def test_the_translator_refuses_a_text_its_catalogs_do_not_translate(lang):
    with pytest.raises(
        KeyError, match=rf"no translation of 'no such words' in posenc/locale/cells/\*\.{lang}\.po"
    ):
        translator(lang)("no such words", n=1)


def test_the_docstring_examples_run():
    results = doctest.testmod(posenc.words)
    assert results.attempted >= 4 and not results.failed


def test_import_is_light_and_reads_on_first_use():
    code = (
        "import sys, posenc.words as w; light = 'babel' not in sys.modules and 'torch' not in sys.modules; "
        "w.message('plot.figures.heatmap', 'en'); print(light, 'babel' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["True", "True"]
