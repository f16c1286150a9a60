"""posenc.plot.sliders: the figures a reader can move; their data are the chapters' functions."""

import numpy as np
import pytest

from posenc import apply_rope, frequencies, rope_decay_bound
from posenc.encoding import sinusoidal_encoding
from posenc.plot import sliders
from posenc.plot._style import LANGUAGES

MOVING = [sliders.rotation_slider, sliders.base_slider, sliders.rope_slider, sliders.rope_plane]


def step_values(figure, step: int, key: str) -> list:
    update, indices = figure.steps[step]["args"]
    return dict(zip(indices, update[key], strict=True))


def test_rotation_slider_moves_pe_of_pos_plus_k():
    figure = sliders.rotation_slider(d_model=16, pairs=(0, 3), pos=4, max_offset=6, offset=2)
    table = sinusoidal_encoding(11, 16)
    omega = frequencies(16)
    assert len(figure.steps) == 7 and figure.active == 2
    for k in range(7):
        x, y, text = (step_values(figure, k, key) for key in ("x", "y", "text"))
        hands = sorted(i for i in x if len(x[i]) == 2)
        for i, trace in zip((0, 3), hands, strict=True):
            assert x[trace][1] == pytest.approx(table[4 + k, 2 * i], abs=5e-5)
            assert y[trace][1] == pytest.approx(table[4 + k, 2 * i + 1], abs=5e-5)
            assert text[trace + 1] == [f"Δ·ω<sub>{i}</sub> = {k * omega[i]:.2f} rad"]
    # The fixed hand points at PE(pos).
    assert figure.data[1]["x"][1] == pytest.approx(table[4, 0], abs=5e-5)


def test_base_slider_draws_wavelengths_and_dot_products_for_every_base():
    figure = sliders.base_slider(d_model=32, max_offset=20, bases=(100, 10000), base=100)
    for step, base in enumerate((100, 10000)):
        y = step_values(figure, step, "y")
        np.testing.assert_allclose(y[0], 2 * np.pi / frequencies(32, base), rtol=1e-3)
        np.testing.assert_allclose(y[2], [2 * np.pi * base] * 2, rtol=1e-3)
        table = sinusoidal_encoding(21, 32, base=base)
        np.testing.assert_allclose(y[3], table @ table[0], atol=5e-4)
    assert [step["label"] for step in figure.steps] == ["100", "10,000"]
    # SI's narrow space: "500.000" would read as 500 in Indonesian.
    assert [step["label"] for step in sliders.base_slider(lang="id").steps][-1] == "500\u202f000"


def test_rope_slider_draws_the_bound_for_every_base():
    figure = sliders.rope_slider(dim=16, max_distance=50, bases=(100, 10000, 500000))
    assert figure.active == 1
    for step, base in enumerate((100, 10000, 500000)):
        np.testing.assert_allclose(
            step_values(figure, step, "y")[0], rope_decay_bound(50, 16, base=base), atol=5e-3
        )


def test_rope_plane_turns_q_to_m_and_k_to_n_and_keeps_their_angle():
    figure = sliders.rope_plane(dim=16, pair=2, m=3, n=9, max_shift=12, shift=4)
    omega = frequencies(16)[2]
    assert len(figure.steps) == 13 and figure.active == 4
    for a in (0, 5, 12):
        traces = figure.frame(a)
        q, k = (np.array([trace["x"][1], trace["y"][1]]) for trace in traces[-5:-3])
        before = np.zeros(16)
        before[4:6] = np.cos(0.3), np.sin(0.3)
        # pair 2 of q points at angle 0.3 before the turn: R_2(m + a) moves it to 0.3 + (m + a) ω_2
        angle = 0.3 + (3 + a) * omega
        assert q == pytest.approx([np.cos(angle), np.sin(angle)], abs=5e-5)
        assert q == pytest.approx(apply_rope(before[np.newaxis], offset=3 + a)[0, 4:6], abs=5e-5)
        between = np.arctan2(k[1], k[0]) - np.arctan2(q[1], q[0])
        assert np.angle(np.exp(1j * between)) == pytest.approx(6 * omega, abs=1e-3)
        assert traces[-1]["text"] == [f"m = {3 + a}, n = {9 + a}"]
    # the left panel stays at m = 3, n = 9
    assert figure.frame(12)[5]["text"] == ["m = 3, n = 9"]


@pytest.mark.parametrize("build", MOVING)
def test_moving_figures_speak_the_page_language(build):
    texts = {}
    for lang in LANGUAGES:
        figure = build(lang=lang)
        texts[lang] = (figure.layout["title"]["text"], figure.label, figure.description)
    assert len({text for text in texts.values()}) == 3
    assert all(any("\uac00" <= ch <= "\ud7a3" for ch in text) for text in texts["ko"])


@pytest.mark.parametrize(
    ("build", "arguments", "message"),
    [
        (
            sliders.rotation_slider,
            {"pairs": (0, 64)},
            r"pairs must be distinct pair indices < d_model // 2 = 64",
        ),
        (sliders.rotation_slider, {"pairs": (1, 1)}, "pairs must be distinct"),
        (sliders.rotation_slider, {"offset": 51}, r"offset must be one of"),
        (sliders.rotation_slider, {"d_model": 7}, "d_model"),
        (sliders.base_slider, {"base": 300}, r"base must be one of"),
        (sliders.base_slider, {"bases": (1, 10)}, "bases must be finite numbers > 1"),
        (sliders.rope_slider, {"bases": (np.inf,)}, "bases must be finite numbers > 1"),
        (sliders.rope_slider, {"max_distance": -1}, "max_distance"),
        (sliders.rope_slider, {"lang": "fr"}, "lang must be one of"),
        (sliders.rope_plane, {"pair": 4}, r"pair must be a pair index < dim // 2 = 4"),
        (sliders.rope_plane, {"shift": 61}, r"shift must be one of"),
    ],
)
def test_bad_arguments_of_the_moving_figures(build, arguments, message):
    with pytest.raises(ValueError, match=message):
        build(**arguments)
