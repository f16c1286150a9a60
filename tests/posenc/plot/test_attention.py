"""posenc.plot.attention: chapter 1's figure of the two sentences' attention outputs, in every language."""

import logging
import warnings

import matplotlib
import numpy as np
import pytest
from matplotlib.text import Annotation

matplotlib.use("Agg")

from posenc.plot import attention
from posenc.plot._style import LANGUAGES

TOKENS = [["dog", "bites", "man"], ["man", "bites", "dog"]]
FIRST = np.random.default_rng(0).normal(size=(3, 8))
SECOND = FIRST[[2, 1, 0]]


def draw(lang="en", first=FIRST, second=SECOND, tokens=TOKENS):
    return attention.swapped_outputs(first, second, tokens, lang=lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_draws_without_warnings_or_missing_glyphs(lang, caplog):
    with warnings.catch_warnings(), caplog.at_level(logging.WARNING, logger="matplotlib"):
        warnings.simplefilter("error")
        draw(lang).canvas.draw()
    assert not [record.getMessage() for record in caplog.records]


def test_the_axis_label_comes_from_the_catalog_of_each_language():
    expected = {"en": "output dimension", "id": "dimensi keluaran", "ko": "출력 차원"}
    for lang, label in expected.items():
        left, middle, right = draw(lang).axes
        assert (left.get_xlabel(), right.get_xlabel()) == (label, label)
        assert middle.get_xlabel() == ""


def test_the_korean_label_is_drawn_in_nanum_gothic():
    assert draw("ko").axes[0].xaxis.label.get_fontfamily()[0] == "NanumGothic"


def test_each_panel_shows_its_sentence_with_one_row_per_word():
    fig = draw()
    fig.canvas.draw()
    left, _, right = fig.axes
    for ax, words, out in ((left, TOKENS[0], FIRST), (right, TOKENS[1], SECOND)):
        assert ax.get_title() == " ".join(words)
        assert [label.get_text() for label in ax.get_yticklabels()] == words
        np.testing.assert_array_equal(ax.images[0].get_array(), out)
    assert right.yaxis.get_ticks_position() == "right"


def test_both_panels_share_one_scale_symmetric_about_zero_red_positive():
    left, _, right = draw().axes
    top = np.abs(FIRST).max()
    for ax in (left, right):
        (image,) = ax.images
        assert image.get_clim() == (-top, top)
        assert image.get_cmap().name == "RdBu_r"  # red for +, blue for -, as every heatmap of the book


def test_one_arrow_per_word_joins_its_two_rows():
    middle = draw().axes[1]
    arrows = [text for text in middle.texts if isinstance(text, Annotation)]
    assert len(arrows) == 3
    # From the word's row on the left (x = 0) to its row on the right (x = 1):
    # dog 0 -> 2, bites 1 -> 1, man 2 -> 0.
    assert [(arrow.xyann, arrow.xy) for arrow in arrows] == [
        ((0, 0), (1, 2)),
        ((0, 1), (1, 1)),
        ((0, 2), (1, 0)),
    ]
    assert not middle.axison
    assert middle.get_ylim() == (2.5, -0.5)  # rows run downwards, level with the panels' rows


def test_four_words_draw_four_rows_and_arrows():
    out = np.arange(8.0).reshape(4, 2)
    fig = draw(first=out, second=out[[1, 0, 3, 2]], tokens=[list("abcd"), list("badc")])
    assert fig.axes[0].images[0].get_array().shape == (4, 2)
    assert len(fig.axes[1].texts) == 4
    assert fig.axes[1].get_ylim() == (3.5, -0.5)


def test_bad_arguments_name_the_argument():
    with pytest.raises(ValueError, match=r"lang must be one of \('en', 'id', 'ko'\), got 'fr'"):
        draw("fr")
    with pytest.raises(
        ValueError, match=r"first must be a non-empty 2-D array \(one row per token\), got shape \(8,\)"
    ):
        draw(first=FIRST[0])
    with pytest.raises(TypeError, match="second must be a 2-D array of numbers"):
        draw(second=[["a", "b"]])
    with pytest.raises(ValueError, match="second must hold finite numbers only"):
        draw(second=np.full((3, 8), np.nan))
    with pytest.raises(ValueError, match=r"first and second must have one shape, got \(3, 8\) and \(3, 4\)"):
        draw(second=SECOND[:, :4])
    with pytest.raises(ValueError, match="tokens must be a pair of word lists"):
        draw(tokens=TOKENS[0])
    with pytest.raises(
        ValueError, match=r"tokens must hold 3 words per sentence, one per row of the outputs, got \[3, 2\]"
    ):
        draw(tokens=[TOKENS[0], ["man", "dog"]])
    with pytest.raises(ValueError, match="tokens must be the same distinct words in two orders"):
        draw(tokens=[TOKENS[0], ["man", "bites", "cat"]])
    with pytest.raises(ValueError, match="tokens must be the same distinct words in two orders"):
        draw(tokens=[["dog", "dog", "man"], ["man", "dog", "dog"]])
