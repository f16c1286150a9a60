"""posenc.plot.serving: chapter 9's figure of positions and masks in serving, in every language."""

import logging
import warnings

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from posenc import packed_attention_mask, packed_position_ids, positions_from_mask
from posenc.plot._style import LANGUAGES
from posenc.plot.serving import serving_positions


def numbers(ax) -> np.ndarray:
    """The integers written in an annotated grid, in reading order."""
    return np.array([int(text.get_text()) for text in ax.texts])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_draws_without_warnings_and_finds_every_glyph(lang, caplog):
    with warnings.catch_warnings(), caplog.at_level(logging.WARNING, logger="matplotlib"):
        warnings.simplefilter("error")
        fig = serving_positions(lang=lang)
        fig.canvas.draw()
    assert not [record.getMessage() for record in caplog.records]
    assert len(fig.axes) == 6
    if lang == "ko":
        assert "쿼리" in fig.axes[4].get_ylabel()


def test_titles_differ_by_language():
    titles = {lang: serving_positions(lang=lang).axes[0].get_title() for lang in LANGUAGES}
    assert len(set(titles.values())) == 3


def test_grids_are_the_chapter_functions_values():
    fig = serving_positions(pads=2, lengths=(4, 2, 3))
    mask = np.array([[0, 0, 1, 1, 1, 1], [1] * 6])
    np.testing.assert_array_equal(numbers(fig.axes[0]), positions_from_mask(mask).ravel())
    np.testing.assert_array_equal(numbers(fig.axes[1]), np.tile(np.arange(6), 2))
    np.testing.assert_array_equal(numbers(fig.axes[2]), packed_position_ids([4, 2, 3]))
    np.testing.assert_array_equal(numbers(fig.axes[3]), np.arange(9))
    np.testing.assert_array_equal(fig.axes[4].images[0].get_array(), packed_attention_mask([4, 2, 3]))
    across = fig.axes[5].images[0].get_array()
    # the causal mask alone: 2 marks a key of an earlier document, 1 one of the same
    np.testing.assert_array_equal(across > 0, np.tril(np.ones((9, 9), dtype=bool)))
    np.testing.assert_array_equal(across == 1, packed_attention_mask([4, 2, 3]))
    assert "2" in fig.axes[1].get_title()  # the shift is the number of pads


def test_bad_arguments():
    with pytest.raises(ValueError, match="pads must be >= 1, got 0"):
        serving_positions(pads=0)
    with pytest.raises(ValueError, match="lengths must hold at least two documents"):
        serving_positions(lengths=(5,))
    with pytest.raises(ValueError, match="lengths must be >= 1, got 0"):
        serving_positions(lengths=(3, 0))
    with pytest.raises(TypeError, match="pads must be an integer"):
        serving_positions(pads=1.5)
    with pytest.raises(ValueError, match=r"lang must be one of \('en', 'id', 'ko'\), got 'fr'"):
        serving_positions(lang="fr")
