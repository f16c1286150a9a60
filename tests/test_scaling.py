import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc import apply_rope, scaled_frequencies, yarn_attention_factor

dims = st.integers(2, 128).map(lambda half: 2 * half)
factors = st.floats(1.01, 64.0)
bases = st.floats(10.0, 1e6)


def original(dim, base):
    return [base ** (-2 * i / dim) for i in range(dim // 2)]


def yarn_formula(dim, s, base, length, beta_fast, beta_slow):
    """YaRN's NTK-by-parts as in its paper, one pair at a time."""
    out = []
    for theta in original(dim, base):
        r = length * theta / (2 * math.pi)
        gamma = min(max((r - beta_slow) / (beta_fast - beta_slow), 0.0), 1.0)
        out.append((1 - gamma) * theta / s + gamma * theta)
    return out


@given(dim=dims, s=factors, base=bases)
def test_linear_divides_every_frequency(dim, s, base):
    theta = scaled_frequencies(dim, s, method="linear", base=base)
    assert theta.dtype == np.float64 and theta.shape == (dim // 2,)
    np.testing.assert_allclose(theta, [t / s for t in original(dim, base)], rtol=1e-13)


@given(dim=dims, s=factors, base=bases)
def test_ntk_raises_the_base(dim, s, base):
    theta = scaled_frequencies(dim, s, method="ntk", base=base)
    new_base = base * s ** (dim / (dim - 2))
    np.testing.assert_allclose(theta, original(dim, new_base), rtol=1e-12)
    # The fastest pair keeps its frequency; the slowest is divided by exactly s.
    assert theta[0] == 1.0
    assert theta[-1] == pytest.approx(original(dim, base)[-1] / s, rel=1e-12)


@given(
    dim=dims,
    s=factors,
    base=bases,
    length=st.integers(1, 10**6),
    betas=st.tuples(st.floats(0.0, 100.0), st.floats(0.01, 100.0)),
)
def test_yarn_matches_the_paper_formula(dim, s, base, length, betas):
    beta_slow, beta_fast = betas[0], betas[0] + betas[1]
    theta = scaled_frequencies(
        dim,
        s,
        method="yarn",
        base=base,
        original_max_position=length,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
    )
    expected = yarn_formula(dim, s, base, length, beta_fast, beta_slow)
    np.testing.assert_allclose(theta, expected, rtol=1e-12)


@pytest.mark.parametrize(
    ("dim", "base", "length"), [(128, 10000.0, 4096), (64, 500000.0, 8192), (128, 1e4, 2048)]
)
@pytest.mark.parametrize("s", [2.0, 8.0, 32.0])
def test_yarn_keeps_fast_pairs_and_interpolates_slow_ones(dim, base, length, s):
    theta = np.asarray(original(dim, base))
    scaled = scaled_frequencies(dim, s, method="yarn", base=base, original_max_position=length)
    ratio = scaled / theta
    assert ratio[0] == 1.0
    assert ratio[-1] == pytest.approx(1 / s, rel=1e-14)
    assert np.all(np.diff(ratio) <= 0)
    assert np.all((ratio >= 1 / s * (1 - 1e-14)) & (ratio <= 1.0))
    # Strictly in between somewhere: the ramp is not a jump.
    assert np.any((ratio < 1 - 1e-9) & (ratio > 1 / s + 1e-9))


def test_methods_differ_where_they_should():
    linear = scaled_frequencies(128, 4.0, method="linear")
    ntk = scaled_frequencies(128, 4.0, method="ntk")
    yarn = scaled_frequencies(128, 4.0, method="yarn", original_max_position=4096)
    assert linear[0] == 0.25 and ntk[0] == 1.0 and yarn[0] == 1.0
    assert linear[-1] == pytest.approx(ntk[-1], rel=1e-12)
    assert linear[-1] == pytest.approx(yarn[-1], rel=1e-12)


def test_interpolated_positions_land_on_trained_ones():
    # Position interpolation: position s * p with theta / s turns by the angle of p.
    x = np.random.default_rng(0).standard_normal((5, 16))
    theta = scaled_frequencies(16, 4.0, method="linear")
    far = apply_rope(x, offset=4 * 300, frequencies=theta)
    near = apply_rope(x[:1], offset=300)
    np.testing.assert_allclose(far[0], near[0], rtol=0, atol=1e-12)


@given(s=factors)
def test_yarn_attention_factor(s):
    assert yarn_attention_factor(s) == pytest.approx(0.1 * math.log(s) + 1, rel=1e-15)
    assert yarn_attention_factor(s) > 1


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"factor": 1.0}, ValueError, "factor must be > 1"),
        ({"factor": 0.5}, ValueError, "factor must be > 1"),
        ({"factor": -2.0}, ValueError, "factor must be > 1"),
        ({"factor": math.inf}, ValueError, "factor must be finite"),
        ({"factor": math.nan}, ValueError, "factor must be finite"),
        ({"factor": "2"}, TypeError, "factor must be a real number"),
        ({"factor": True}, TypeError, "factor must be a real number"),
        (
            {"method": "dynamic"},
            ValueError,
            r"method must be one of \('linear', 'ntk', 'yarn'\), got 'dynamic'",
        ),
        ({"method": None}, ValueError, "method must be one of"),
        ({"method": "yarn"}, ValueError, "method 'yarn' needs original_max_position"),
        ({"method": "yarn", "original_max_position": 0}, ValueError, "original_max_position must be >= 1"),
        (
            {"method": "yarn", "original_max_position": 4096.0},
            TypeError,
            "original_max_position must be an int",
        ),
        (
            {"method": "yarn", "original_max_position": 4096, "beta_fast": 1.0},
            ValueError,
            "beta_fast must be > beta_slow, got beta_fast=1.0, beta_slow=1.0",
        ),
        (
            {"method": "yarn", "original_max_position": 4096, "beta_fast": 2.0, "beta_slow": 3.0},
            ValueError,
            "beta_fast must be > beta_slow",
        ),
        (
            {"method": "yarn", "original_max_position": 4096, "beta_slow": math.nan},
            ValueError,
            "beta_slow must be finite",
        ),
        ({"dim": 7}, ValueError, "dim must be even"),
        ({"dim": 0}, ValueError, "dim must be >= 1"),
        ({"dim": 64.0}, TypeError, "dim must be an integer"),
        ({"dim": 2, "method": "ntk"}, ValueError, "dim must be >= 4 for method 'ntk'"),
        ({"base": 0.0}, ValueError, "base must be > 0"),
    ],
)
def test_bad_input_names_argument_and_rule(kwargs, error, words):
    arguments = {"dim": 64, "factor": 2.0, "method": "linear"} | kwargs
    with pytest.raises(error, match=words):
        scaled_frequencies(arguments.pop("dim"), arguments.pop("factor"), **arguments)


def test_attention_factor_rejects_bad_factor():
    with pytest.raises(ValueError, match="factor must be > 1"):
        yarn_attention_factor(1.0)
