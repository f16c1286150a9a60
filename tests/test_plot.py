import logging
import re
import warnings

import matplotlib
import numpy as np
import pytest
from matplotlib import font_manager
from matplotlib.text import Text

matplotlib.use("Agg")

from posenc import alibi_bias, plot, rope_decay_bound, scaled_frequencies, t5_relative_bucket
from posenc.encoding import sinusoidal_encoding


def split_heatmap(*args, **kwargs):
    return plot.heatmap(*args, layout="split", **kwargs)


FIGURES = [plot.heatmap, split_heatmap, plot.waves, plot.wavelengths, plot.dot_products, plot.circle]
# Chapters 6 and 7: relative positions, RoPE, context extension.
FIGURES += [plot.rope_decay, plot.alibi, plot.t5_buckets, plot.scaling_ratios]


@pytest.mark.parametrize("draw", FIGURES)
@pytest.mark.parametrize("lang", plot.LANGUAGES)
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
    titles = {lang: draw(lang=lang).axes[0].get_title() for lang in plot.LANGUAGES}
    assert len(set(titles.values())) == 3


def test_hangul_uses_bundled_font():
    font = font_manager.findfont(font_manager.FontProperties(family="NanumGothic"), fallback_to_default=False)
    assert font.endswith("NanumGothic.ttf")
    assert "NanumGothic" in matplotlib.rcParams["font.family"]


def test_font_licence_is_shipped():
    from importlib import resources

    licence = (resources.files("posenc") / "fonts" / "OFL.txt").read_text()
    assert "SIL OPEN FONT LICENSE" in licence


@pytest.mark.parametrize("draw", FIGURES)
def test_unknown_language(draw):
    with pytest.raises(ValueError, match=r"lang must be one of \('en', 'id', 'ko'\), got 'fr'"):
        draw(lang="fr")


def test_bad_figure_arguments():
    with pytest.raises(ValueError, match="pair must be < d_model // 2 = 4"):
        plot.circle(pair=4, d_model=8)
    with pytest.raises(ValueError, match="dims must be a non-empty list of columns < d_model=16"):
        plot.waves(d_model=16, dims=(3, 16))
    with pytest.raises(ValueError, match="d_model must be even"):
        plot.heatmap(d_model=9)


def texts_of(fig) -> list[str]:
    """Every non-empty text of a drawn figure: titles, axis and tick labels, legends."""
    fig.canvas.draw()
    return [text.get_text() for text in fig.findobj(Text) if text.get_text()]


@pytest.mark.parametrize("draw", FIGURES)
@pytest.mark.parametrize("lang", plot.LANGUAGES)
def test_symbols_are_written_in_mathtext(draw, lang):
    for text in texts_of(draw(lang=lang)):
        outside_math = re.sub(r"\$[^$]*\$", "", text)
        assert "ω" not in text and "·" not in text, text
        assert "_" not in outside_math and "\\" not in outside_math, text


@pytest.mark.parametrize("draw", FIGURES)
@pytest.mark.parametrize("lang", plot.LANGUAGES)
def test_every_glyph_is_found(draw, lang, caplog):
    # A label mixing Hangul and mathtext draws its words in one font; a missing
    # glyph is only logged by matplotlib, not warned, so listen to the log.
    with caplog.at_level(logging.WARNING, logger="matplotlib"):
        texts_of(draw(lang=lang))
    assert not [record.getMessage() for record in caplog.records]


def test_korean_titles_use_korean_terms():
    assert "위치 인코딩" in plot.heatmap(lang="ko").axes[0].get_title()
    assert "위치 인코딩" in split_heatmap(lang="ko").axes[0].get_title()
    assert plot.circle(pair=0, lang="ko").axes[0].get_title().startswith("0번 쌍:")
    for draw in FIGURES:
        assert not re.search(r"[A-Za-z]{4,}", re.sub(r"\$[^$]*\$", "", draw(lang="ko").axes[0].get_title()))


def test_split_heatmap_puts_sines_then_cosines():
    num_positions, d_model = 10, 8
    table = sinusoidal_encoding(num_positions, d_model)
    interleaved = plot.heatmap(num_positions, d_model).axes[0].images[0].get_array()
    split = plot.heatmap(num_positions, d_model, layout="split").axes[0].images[0].get_array()
    np.testing.assert_array_equal(interleaved, table)
    # Row 0 is sin(0) = 0 for every pair, then cos(0) = 1 for every pair.
    np.testing.assert_array_equal(split[0], [0, 0, 0, 0, 1, 1, 1, 1])
    for i in range(d_model // 2):
        np.testing.assert_array_equal(split[:, i], table[:, 2 * i])
        np.testing.assert_array_equal(split[:, d_model // 2 + i], table[:, 2 * i + 1])


def test_split_heatmap_labels_pairs_and_blocks():
    fig = plot.heatmap(16, 8, layout="split")
    ax = fig.axes[0]
    fig.canvas.draw()
    assert [label.get_text() for label in ax.get_xticklabels()] == ["0", "1", "2", "3"] * 2
    (top,) = ax.child_axes  # the secondary x axis that names the two blocks
    blocks = [label.get_text() for label in top.get_xticklabels()]
    assert blocks == [r"$\sin(\mathrm{pos}\,\omega_{i})$", r"$\cos(\mathrm{pos}\,\omega_{i})$"]


def test_bad_heatmap_layout():
    with pytest.raises(ValueError, match=r"layout must be one of \('interleaved', 'split'\), got 'barcode'"):
        plot.heatmap(layout="barcode")


def test_rope_decay_draws_the_bound():
    (line,) = plot.rope_decay(dim=32, max_distance=100, base=500.0).axes[0].get_lines()
    np.testing.assert_array_equal(line.get_xdata(), np.arange(101))
    np.testing.assert_array_equal(line.get_ydata(), rope_decay_bound(100, 32, base=500.0))


def test_alibi_draws_the_chosen_heads_with_the_future_masked():
    fig = plot.alibi(num_heads=12, seq_len=6, heads=(0, 11))
    bias = alibi_bias(12, 6)
    for ax, h in zip(fig.axes, (0, 11), strict=False):
        shown = ax.images[0].get_array()
        lower = np.tril_indices(6)
        np.testing.assert_array_equal(np.asarray(shown)[lower], bias[h][lower])
        # Keys after the query are masked (blank), as a causal model masks them.
        assert np.ma.getmaskarray(shown)[np.triu_indices(6, 1)].all()
    # Head 11 of 12 has the paper's slope 2**-3.5, the fourth of the extra slopes.
    assert "m = 0.08839" in fig.axes[1].get_title()
    full = plot.alibi(num_heads=4, seq_len=5, heads=(1,), causal=False).axes[0].images[0].get_array()
    np.testing.assert_array_equal(full, alibi_bias(4, 5)[1])


def test_t5_buckets_draws_both_directions():
    lines = plot.t5_buckets(span=50, num_buckets=16, max_distance=32).axes[0].get_lines()
    steps = [line for line in lines if len(line.get_xdata()) > 2]
    relative = np.arange(-50, 51)
    for line, bidirectional in zip(steps, (True, False), strict=True):
        np.testing.assert_array_equal(line.get_xdata(), relative)
        expected = t5_relative_bucket(relative, bidirectional=bidirectional, num_buckets=16, max_distance=32)
        np.testing.assert_array_equal(line.get_ydata(), expected)


def test_scaling_ratios_draws_every_method():
    lines = plot.scaling_ratios(dim=64, factor=4.0, original_max_position=2048).axes[0].get_lines()
    curves = [line for line in lines if len(line.get_xdata()) == 32]
    theta = 10000.0 ** (-np.arange(0, 64, 2) / 64)
    for line, method in zip(curves, ("linear", "ntk", "yarn"), strict=True):
        expected = scaled_frequencies(64, 4.0, method=method, original_max_position=2048) / theta
        np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-12)


def test_bad_arguments_of_the_new_figures():
    with pytest.raises(ValueError, match=r"heads must be a non-empty list of head indices < num_heads=4"):
        plot.alibi(num_heads=4, heads=(1, 4))
    with pytest.raises(ValueError, match="num_heads must be >= 1"):
        plot.alibi(num_heads=0)
    with pytest.raises(ValueError, match="span must be >= 1"):
        plot.t5_buckets(span=0)
    with pytest.raises(ValueError, match="max_distance must be larger than the exact range"):
        plot.t5_buckets(max_distance=8)
    with pytest.raises(ValueError, match="factor must be > 1"):
        plot.scaling_ratios(factor=1.0)
    with pytest.raises(ValueError, match="dim must be even"):
        plot.rope_decay(dim=7)


# ------------------------------------------------------------------------------------------------
# The figures a reader can move (posenc.interactive): their data are the chapters' functions


MOVING = [plot.rotation_slider, plot.base_slider, plot.rope_slider]


def step_values(figure, step: int, key: str) -> list:
    update, indices = figure.steps[step]["args"]
    return dict(zip(indices, update[key], strict=True))


def test_rotation_slider_moves_pe_of_pos_plus_k():
    figure = plot.rotation_slider(d_model=16, pairs=(0, 3), pos=4, max_offset=6, offset=2)
    table = sinusoidal_encoding(11, 16)
    omega = plot.frequencies(16)
    assert len(figure.steps) == 7 and figure.active == 2
    for k in range(7):
        x, y, text = (step_values(figure, k, key) for key in ("x", "y", "text"))
        hands = sorted(i for i in x if len(x[i]) == 2)
        for i, trace in zip((0, 3), hands, strict=True):
            assert x[trace][1] == pytest.approx(table[4 + k, 2 * i], abs=5e-5)
            assert y[trace][1] == pytest.approx(table[4 + k, 2 * i + 1], abs=5e-5)
            assert text[trace + 1] == [f"k·ω<sub>{i}</sub> = {k * omega[i]:.2f} rad"]
    # The fixed hand points at PE(pos).
    assert figure.data[1]["x"][1] == pytest.approx(table[4, 0], abs=5e-5)


def test_base_slider_draws_wavelengths_and_dot_products_for_every_base():
    figure = plot.base_slider(d_model=32, max_offset=20, bases=(100, 10000), base=100)
    for step, base in enumerate((100, 10000)):
        y = step_values(figure, step, "y")
        np.testing.assert_allclose(y[0], 2 * np.pi / plot.frequencies(32, base), rtol=1e-3)
        np.testing.assert_allclose(y[2], [2 * np.pi * base] * 2, rtol=1e-3)
        table = sinusoidal_encoding(21, 32, base=base)
        np.testing.assert_allclose(y[3], table @ table[0], atol=5e-4)
    assert [step["label"] for step in figure.steps] == ["100", "10,000"]
    assert [step["label"] for step in plot.base_slider(lang="id").steps][-1] == "500.000"


def test_rope_slider_draws_the_bound_for_every_base():
    figure = plot.rope_slider(dim=16, max_distance=50, bases=(100, 10000, 500000))
    assert figure.active == 1
    for step, base in enumerate((100, 10000, 500000)):
        np.testing.assert_allclose(
            step_values(figure, step, "y")[0], rope_decay_bound(50, 16, base=base), atol=5e-3
        )


@pytest.mark.parametrize("build", MOVING)
def test_moving_figures_speak_the_page_language(build):
    texts = {}
    for lang in plot.LANGUAGES:
        figure = build(lang=lang)
        texts[lang] = (figure.layout["title"]["text"], figure.label, figure.description)
    assert len({text for text in texts.values()}) == 3
    assert all(any("\uac00" <= ch <= "\ud7a3" for ch in text) for text in texts["ko"])


@pytest.mark.parametrize("build", MOVING)
@pytest.mark.parametrize("lang", plot.LANGUAGES)
def test_moving_figures_frames_draw_every_glyph_without_warnings(build, lang, caplog):
    with warnings.catch_warnings(), caplog.at_level(logging.WARNING, logger="matplotlib"):
        warnings.simplefilter("error")
        figure = build(lang=lang)
        plot.draw_frame(figure.frame(), figure.layout).canvas.draw()
    assert not [record.getMessage() for record in caplog.records]


@pytest.mark.parametrize(
    ("build", "arguments", "message"),
    [
        (
            plot.rotation_slider,
            {"pairs": (0, 64)},
            r"pairs must be distinct pair indices < d_model // 2 = 64",
        ),
        (plot.rotation_slider, {"pairs": (1, 1)}, "pairs must be distinct"),
        (plot.rotation_slider, {"offset": 51}, r"offset must be one of"),
        (plot.rotation_slider, {"d_model": 7}, "d_model"),
        (plot.base_slider, {"base": 300}, r"base must be one of"),
        (plot.base_slider, {"bases": (1, 10)}, "bases must be finite numbers > 1"),
        (plot.rope_slider, {"bases": (np.inf,)}, "bases must be finite numbers > 1"),
        (plot.rope_slider, {"max_distance": -1}, "max_distance"),
        (plot.rope_slider, {"lang": "fr"}, "lang must be one of"),
    ],
)
def test_bad_arguments_of_the_moving_figures(build, arguments, message):
    with pytest.raises(ValueError, match=message):
        build(**arguments)
