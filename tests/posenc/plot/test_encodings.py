"""posenc.plot.encodings: the chapters' matplotlib figures of the encodings, in every language."""

import logging
import re
import warnings

import matplotlib
import numpy as np
import pytest
from matplotlib.text import Text

matplotlib.use("Agg")

from posenc import alibi_bias, rope_decay_bound, scaled_frequencies, t5_relative_bucket
from posenc.encoding import sinusoidal_encoding
from posenc.plot import encodings
from posenc.plot._style import LANGUAGES


def split_heatmap(*args, **kwargs):
    return encodings.heatmap(*args, layout="split", **kwargs)


FIGURES = [encodings.heatmap, split_heatmap, encodings.waves, encodings.wavelengths]
FIGURES += [encodings.dot_products, encodings.circle]
# Chapters 6 and 7: relative positions, RoPE, context extension.
FIGURES += [encodings.rope_decay, encodings.alibi, encodings.t5_buckets, encodings.scaling_ratios]


@pytest.mark.parametrize("draw", FIGURES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_figures_draw_without_warnings(draw, lang):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = draw(lang=lang)
        fig.canvas.draw()
    title = fig.axes[0].get_title()
    assert title
    if lang == "ko":
        assert any("\uac00" <= ch <= "\ud7a3" for ch in title), title


@pytest.mark.parametrize("draw", FIGURES)
def test_labels_differ_by_language(draw):
    titles = {lang: draw(lang=lang).axes[0].get_title() for lang in LANGUAGES}
    assert len(set(titles.values())) == 3


@pytest.mark.parametrize("draw", FIGURES)
def test_unknown_language(draw):
    with pytest.raises(ValueError, match=r"lang must be one of \('en', 'id', 'ko'\), got 'fr'"):
        draw(lang="fr")


def test_bad_figure_arguments():
    with pytest.raises(ValueError, match="pair must be < d_model // 2 = 4"):
        encodings.circle(pair=4, d_model=8)
    with pytest.raises(ValueError, match="dims must be a non-empty list of columns < d_model=16"):
        encodings.waves(d_model=16, dims=(3, 16))
    with pytest.raises(ValueError, match="d_model must be even"):
        encodings.heatmap(d_model=9)


def texts_of(fig) -> list[str]:
    """Every non-empty text of a drawn figure: titles, axis and tick labels, legends."""
    fig.canvas.draw()
    return [text.get_text() for text in fig.findobj(Text) if text.get_text()]


@pytest.mark.parametrize("draw", FIGURES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_symbols_are_written_in_mathtext(draw, lang):
    for text in texts_of(draw(lang=lang)):
        outside_math = re.sub(r"\$[^$]*\$", "", text)
        assert "ω" not in text and "·" not in text, text
        assert "_" not in outside_math and "\\" not in outside_math, text


@pytest.mark.parametrize("draw", FIGURES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_glyph_is_found(draw, lang, caplog):
    # A label mixing Hangul and mathtext draws its words in one font; a missing
    # glyph is only logged by matplotlib, not warned, so listen to the log.
    with caplog.at_level(logging.WARNING, logger="matplotlib"):
        texts_of(draw(lang=lang))
    assert not [record.getMessage() for record in caplog.records]


def test_korean_titles_use_korean_terms():
    assert "위치 인코딩" in encodings.heatmap(lang="ko").axes[0].get_title()
    assert "위치 인코딩" in split_heatmap(lang="ko").axes[0].get_title()
    assert encodings.circle(pair=0, lang="ko").axes[0].get_title().startswith("0번 쌍:")
    for draw in FIGURES:
        assert not re.search(r"[A-Za-z]{4,}", re.sub(r"\$[^$]*\$", "", draw(lang="ko").axes[0].get_title()))


def test_split_heatmap_puts_sines_then_cosines():
    num_positions, d_model = 10, 8
    table = sinusoidal_encoding(num_positions, d_model)
    interleaved = encodings.heatmap(num_positions, d_model).axes[0].images[0].get_array()
    split = encodings.heatmap(num_positions, d_model, layout="split").axes[0].images[0].get_array()
    np.testing.assert_array_equal(interleaved, table)
    # Row 0 is sin(0) = 0 for every pair, then cos(0) = 1 for every pair.
    np.testing.assert_array_equal(split[0], [0, 0, 0, 0, 1, 1, 1, 1])
    for i in range(d_model // 2):
        np.testing.assert_array_equal(split[:, i], table[:, 2 * i])
        np.testing.assert_array_equal(split[:, d_model // 2 + i], table[:, 2 * i + 1])


def test_split_heatmap_labels_pairs_and_blocks():
    fig = encodings.heatmap(16, 8, layout="split")
    ax = fig.axes[0]
    fig.canvas.draw()
    assert [label.get_text() for label in ax.get_xticklabels()] == ["0", "1", "2", "3"] * 2
    (top,) = ax.child_axes  # the secondary x axis that names the two blocks
    blocks = [label.get_text() for label in top.get_xticklabels()]
    assert blocks == [r"$\sin(\mathrm{pos}\,\omega_{i})$", r"$\cos(\mathrm{pos}\,\omega_{i})$"]


def test_bad_heatmap_layout():
    with pytest.raises(ValueError, match=r"layout must be one of \('interleaved', 'split'\), got 'barcode'"):
        encodings.heatmap(layout="barcode")


def test_rope_decay_draws_the_bound():
    (line,) = encodings.rope_decay(dim=32, max_distance=100, base=500.0).axes[0].get_lines()
    np.testing.assert_array_equal(line.get_xdata(), np.arange(101))
    np.testing.assert_array_equal(line.get_ydata(), rope_decay_bound(100, 32, base=500.0))


def test_alibi_draws_the_chosen_heads_with_the_future_masked():
    fig = encodings.alibi(num_heads=12, seq_len=6, heads=(0, 11))
    bias = alibi_bias(12, 6)
    for ax, h in zip(fig.axes, (0, 11), strict=False):
        shown = ax.images[0].get_array()
        lower = np.tril_indices(6)
        np.testing.assert_array_equal(np.asarray(shown)[lower], bias[h][lower])
        # Keys after the query are masked (blank), as a causal model masks them.
        assert np.ma.getmaskarray(shown)[np.triu_indices(6, 1)].all()
    # Index 11, head 12 of 12, has the paper's slope 2**-3.5, the fourth of the extra slopes.
    assert fig.axes[1].get_title() == "head 12, slope $\\mu_{12} = 0.08839$"
    full = encodings.alibi(num_heads=4, seq_len=5, heads=(1,), causal=False).axes[0].images[0].get_array()
    np.testing.assert_array_equal(full, alibi_bias(4, 5)[1])


def test_t5_buckets_draws_both_directions():
    lines = encodings.t5_buckets(span=50, num_buckets=16, max_distance=32).axes[0].get_lines()
    steps = [line for line in lines if len(line.get_xdata()) > 2]
    relative = np.arange(-50, 51)
    for line, bidirectional in zip(steps, (True, False), strict=True):
        np.testing.assert_array_equal(line.get_xdata(), relative)
        expected = t5_relative_bucket(relative, bidirectional=bidirectional, num_buckets=16, max_distance=32)
        np.testing.assert_array_equal(line.get_ydata(), expected)


def test_scaling_ratios_draws_every_method():
    lines = encodings.scaling_ratios(dim=64, factor=4.0, original_max_position=2048).axes[0].get_lines()
    curves = [line for line in lines if len(line.get_xdata()) == 32]
    theta = 10000.0 ** (-np.arange(0, 64, 2) / 64)
    for line, method in zip(curves, ("linear", "ntk", "yarn"), strict=True):
        expected = scaled_frequencies(64, 4.0, method=method, original_max_position=2048) / theta
        np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-12)


def test_bad_arguments_of_the_new_figures():
    with pytest.raises(ValueError, match=r"heads must be a non-empty list of head indices < num_heads=4"):
        encodings.alibi(num_heads=4, heads=(1, 4))
    with pytest.raises(ValueError, match="num_heads must be >= 1"):
        encodings.alibi(num_heads=0)
    with pytest.raises(ValueError, match="span must be >= 1"):
        encodings.t5_buckets(span=0)
    with pytest.raises(ValueError, match="max_distance must be larger than the exact range"):
        encodings.t5_buckets(max_distance=8)
    with pytest.raises(ValueError, match="factor must be >= 1"):
        encodings.scaling_ratios(factor=0.5)
    with pytest.raises(ValueError, match="dim must be even"):
        encodings.rope_decay(dim=7)


def test_index_codes_draw_pos_and_pos_over_n_for_each_length():
    fig = encodings.index_codes(lengths=(10, 100, 7))
    left, right = fig.axes
    for n, length in enumerate((10, 100, 7)):
        pos = np.arange(length)
        np.testing.assert_array_equal(left.get_lines()[n].get_ydata(), pos)
        np.testing.assert_array_equal(right.get_lines()[n].get_ydata(), pos / length)
        assert left.get_lines()[n].get_label() == f"$N = {length}$"
    # Chapter 2's markers: big dots for N = 10, small ones for N = 100.
    assert [line.get_marker() for line in left.get_lines()] == ["o", ".", "s"]
    assert [text.get_text() for text in right.get_legend().get_texts()] == [
        "$N = 10$",
        "$N = 100$",
        "$N = 7$",
    ]


def test_index_codes_mark_the_band_of_sines_and_the_chosen_position():
    left, right = encodings.index_codes(position=3).axes
    (band,) = left.patches  # [-1, 1], where sines and cosines stay
    assert band.get_y() == -1 and band.get_height() == 2
    (mark,) = right.get_lines()[2:]  # the vertical line after the two curves
    np.testing.assert_array_equal(mark.get_xdata(), [3, 3])
    assert (left.get_xlabel(), left.get_ylabel()) == (r"$\mathrm{pos}$", r"$\mathrm{pos}$")
    assert right.get_ylabel() == r"$\mathrm{pos}/N$"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_index_codes_draw_in_every_language(lang):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        encodings.index_codes(lang=lang).canvas.draw()


def test_bad_index_codes_arguments():
    with pytest.raises(ValueError, match=r"lang must be one of \('en', 'id', 'ko'\), got 'fr'"):
        encodings.index_codes(lang="fr")
    with pytest.raises(ValueError, match=r"lengths must be a non-empty sequence of text lengths N, got \(\)"):
        encodings.index_codes(lengths=())
    with pytest.raises(ValueError, match="lengths must be >= 1, got 0"):
        encodings.index_codes(lengths=(10, 0))
    with pytest.raises(TypeError, match=r"lengths must be an integer, got 2\.5"):
        encodings.index_codes(lengths=(2.5,))
    with pytest.raises(ValueError, match="position must be >= 0, got -1"):
        encodings.index_codes(position=-1)


@pytest.mark.parametrize("layout", ["interleaved", "split"])
def test_heatmap_draws_plus_one_red_and_minus_one_blue(layout):
    # One colour convention for every heatmap of the book (chapters 1, 3, 6 and 9 draw theirs with RdBu_r):
    # +1 red, -1 blue, 0 white; the chapters' alt texts say so.
    (image,) = encodings.heatmap(16, 8, layout=layout).axes[0].images
    assert image.get_cmap().name == "RdBu_r"
    assert image.get_clim() == (-1, 1)
    plus, minus = (image.to_rgba(value) for value in (1.0, -1.0))
    assert plus[0] > plus[2] and minus[2] > minus[0]  # red above blue at +1, blue above red at -1
