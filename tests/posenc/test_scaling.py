import math

import numpy as np
import pytest
from hf_reference import transformers_or_skip
from hypothesis import given
from hypothesis import strategies as st

from posenc import apply_rope, frequencies, scaled_frequencies, yarn_attention_factor
from posenc.scaling import DYNAMIC_RULES, SCALING_METHODS, YARN_RAMPS, longrope_attention_factor

dims = st.integers(2, 128).map(lambda half: 2 * half)
factors = st.floats(1.01, 64.0)
bases = st.floats(10.0, 1e6)

# transformers computes the frequencies in float32 (base ** (i / dim), 1 / ..., the ramp), posenc in float64:
# they agree to a few float32 roundings (6e-8 each), 1e-6. In the blended pairs of a ramp the ramp's own
# float32 error (HF's arange - low, in float32) is multiplied by up to s, so for s > 8 the tolerance grows
# with s. Measured worst: 7.3e-7 (yarn, s = 40, truncate=False), 4.8e-7 dynamic, 3.2e-7 llama3.
FLOAT32_RTOL = 1e-6


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


# ----------------------------------------------------------------------------- Hugging Face, the reference


@pytest.fixture(scope="module")
def hf():
    """``hf(rope_type, dim, base=..., seq_len=..., max_position=..., **rope_parameters)``: HF's frequencies.

    transformers is a pinned test dependency (requirements.txt); readers of the book need not have it, so
    these tests skip without it, except on CI, which must run them.
    """
    transformers_or_skip()
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    def compute(rope_type, dim, *, base, seq_len=None, max_position=4096, **parameters):
        config = LlamaConfig(
            hidden_size=2 * dim,
            num_attention_heads=2,
            head_dim=dim,
            max_position_embeddings=max_position,
            rope_parameters={"rope_type": rope_type, "rope_theta": base, **parameters},
        )
        inv_freq, attention_factor = ROPE_INIT_FUNCTIONS[rope_type](config, "cpu", seq_len=seq_len)
        assert inv_freq.dtype.is_floating_point and inv_freq.shape == (dim // 2,)
        return inv_freq.double().numpy(), attention_factor

    return compute


def assert_float32_close(ours, theirs, factor):
    np.testing.assert_allclose(ours, theirs, rtol=FLOAT32_RTOL * max(1.0, factor / 8), atol=0)


@pytest.mark.parametrize(
    ("dim", "base", "length"), [(128, 10000.0, 4096), (64, 500000.0, 8192), (96, 1e6, 2048)]
)
@pytest.mark.parametrize("s", [2.0, 4.0, 8.0])
@pytest.mark.parametrize("times", [0.5, 1.0, 1.0001, 1.5, 2.0, 7.3, 40.0])
def test_dynamic_equals_transformers(hf, dim, base, length, s, times):
    seq_len = max(1, round(times * length))
    ours = scaled_frequencies(
        dim, s, method="dynamic", base=base, original_max_position=length, seq_len=seq_len
    )
    theirs, attention = hf("dynamic", dim, base=base, factor=s, seq_len=seq_len, max_position=length)
    assert attention == 1.0
    assert_float32_close(ours, theirs, 1.0)
    if seq_len <= length:
        # HF clamps seq_len to L: the unscaled frequencies, and posenc returns them exactly.
        np.testing.assert_array_equal(ours, frequencies(dim, base))
    else:
        assert ours[-1] < frequencies(dim, base)[-1]


def test_dynamic_is_ntk_at_twice_the_length():
    # s * seq_len / L - (s - 1) = s when seq_len / L = 2 - 1 / s: dynamic NTK meets static NTK there.
    ours = scaled_frequencies(128, 4.0, method="dynamic", original_max_position=1000, seq_len=1750)
    np.testing.assert_allclose(ours, scaled_frequencies(128, 4.0, method="ntk"), rtol=1e-14)


@pytest.mark.parametrize("s", [1.0, 2.0, 4.0, 16.0])
@pytest.mark.parametrize("times", [0.5, 1.0, 1.25, 4.0, 10.0])
def test_the_yarn_dynamic_rule_is_ntk_at_the_extension_ratio(s, times):
    # YaRN's section 3.3: s = max(1, l'/L), whatever the config's factor; tech review P1.
    length = 1000
    seq_len = int(times * length)
    ours = scaled_frequencies(
        64, s, method="dynamic", original_max_position=length, seq_len=seq_len, dynamic_rule="yarn"
    )
    expected = scaled_frequencies(64, max(1.0, seq_len / length), method="ntk")
    np.testing.assert_allclose(ours, expected, rtol=1e-14)


def test_the_two_dynamic_rules_differ_as_the_review_computed():
    # At 4 L with s = 4: an effective s of 13 (transformers' slope) against 4 (YaRN's ratio).
    def effective(rule):
        slow = scaled_frequencies(
            4, 4.0, method="dynamic", original_max_position=100, seq_len=400, dynamic_rule=rule
        )[1]
        return 0.01 / slow  # dim 4: the base grows by s ** 2, the slow pair (0.01) shrinks by s

    assert effective("hf") == pytest.approx(13.0, rel=1e-12)
    assert effective("yarn") == pytest.approx(4.0, rel=1e-12)
    assert DYNAMIC_RULES == ("hf", "yarn")


@pytest.mark.parametrize(
    ("base", "length", "flipped"), [(500.0, 10**8, True), (1e4, 10**10, False), (1e4, 3 * 10**10, True)]
)
def test_the_code_ramp_flips_where_the_docstring_says(hf, base, length, flipped):
    # Tech review P10: past L = 2 pi beta_fast base ** (2 (dim - 1) / dim), the reference code, HF and
    # posenc divide every pair by s; the paper ramp keeps them all. posenc keeps HF's behaviour.
    dim, s = 128, 8.0
    assert (length > 2 * math.pi * 32.0 * base ** (2 * (dim - 1) / dim)) == flipped
    theta = frequencies(dim, base)
    code = scaled_frequencies(dim, s, method="yarn", base=base, original_max_position=length)
    paper = scaled_frequencies(dim, s, method="yarn", base=base, original_max_position=length, ramp="paper")
    np.testing.assert_allclose(code / theta, 1 / s if flipped else 1.0, rtol=1e-12)
    np.testing.assert_allclose(paper, theta, rtol=1e-12)
    theirs, _ = hf("yarn", dim, base=base, factor=s, original_max_position_embeddings=length)
    assert_float32_close(code, theirs, s)


YARN_CONFIGS = [
    # dim, base, s, L, beta_fast, beta_slow
    (128, 10000.0, 8.0, 4096, 32.0, 1.0),  # the chapter's example
    (128, 1e6, 4.0, 32768, 32.0, 1.0),  # Qwen2.5/Qwen3 YaRN
    (64, 10000.0, 40.0, 4096, 32.0, 1.0),  # DeepSeek-V3's rotary slice
    (64, 150000.0, 32.0, 4096, 32.0, 1.0),  # gpt-oss (truncate: false)
    (64, 10000.0, 16.0, 2048, 32.0, 1.0),
    (128, 500000.0, 4.0, 8192, 4.0, 1.0),
    (32, 10000.0, 2.0, 512, 16.0, 2.0),
    (8, 10000.0, 2.0, 64, 32.0, 1.0),  # the ramp's ends clip to 0 and dim - 1
    (8, 10000.0, 2.0, 10**6, 32.0, 1.0),  # every pair is fast: low = high, HF's 0.001
]


@pytest.mark.parametrize(("dim", "base", "s", "length", "beta_fast", "beta_slow"), YARN_CONFIGS)
@pytest.mark.parametrize("truncate", [True, False])
def test_yarn_code_ramp_equals_transformers(hf, dim, base, s, length, beta_fast, beta_slow, truncate):
    kwargs = {"base": base, "beta_fast": beta_fast, "beta_slow": beta_slow, "truncate": truncate}
    ours = scaled_frequencies(dim, s, method="yarn", original_max_position=length, **kwargs)
    theirs, attention = hf("yarn", dim, factor=s, original_max_position_embeddings=length, **kwargs)
    assert_float32_close(ours, theirs, s)
    # The default ramp is the code's: the same computation, so the same bits.
    explicit = scaled_frequencies(dim, s, method="yarn", original_max_position=length, ramp="code", **kwargs)
    np.testing.assert_array_equal(ours, explicit)
    assert attention == pytest.approx(yarn_attention_factor(s), rel=1e-15)


def test_the_two_yarn_ramps_differ_between_their_ends():
    # The chapter's numbers: 0.321 at pair 30 for d = 128, s = 8, L = 4096; up to 0.37 for d = 64, s = 16.
    theta = frequencies(128)
    code = scaled_frequencies(128, 8.0, method="yarn", original_max_position=4096) / theta
    paper = scaled_frequencies(128, 8.0, method="yarn", original_max_position=4096, ramp="paper") / theta
    difference = np.abs(code - paper)
    assert int(difference.argmax()) == 30 and difference.max() == pytest.approx(0.321, abs=5e-4)
    np.testing.assert_allclose(code[:20], 1.0, rtol=1e-15)
    np.testing.assert_allclose(code[47:], 1 / 8, rtol=1e-15)
    wide = scaled_frequencies(64, 16.0, method="yarn", original_max_position=2048) / frequencies(64)
    narrow = scaled_frequencies(64, 16.0, method="yarn", original_max_position=2048, ramp="paper")
    assert np.abs(wide - narrow / frequencies(64)).max() == pytest.approx(0.37, abs=5e-3)


def test_yarn_truncate_widens_the_code_ramp():
    theta = frequencies(128)
    kwargs = {"method": "yarn", "original_max_position": 4096}
    truncated = scaled_frequencies(128, 8.0, **kwargs) / theta
    exact = scaled_frequencies(128, 8.0, truncate=False, **kwargs) / theta
    # correction_dim(32) = 20.94 and correction_dim(1) = 45.03: floor and ceil give pairs 20 and 46.
    assert truncated[20] == 1.0 and exact[20] == 1.0 and exact[21] < 1.0
    assert truncated[46] == pytest.approx(1 / 8, rel=1e-15) and exact[46] == pytest.approx(1 / 8, rel=1e-15)
    # Pair 45 sits just inside both ramps, nearer the interpolated end of the exact one.
    assert truncated[45] > exact[45] + 1e-2 > 1 / 8 + 1e-2
    assert np.abs(truncated - exact).max() > 1e-3


LLAMA3_CONFIGS = [
    # dim, base, s, L, low, high
    (128, 500000.0, 8.0, 8192, 1.0, 4.0),  # Llama 3.1
    (64, 500000.0, 32.0, 8192, 1.0, 4.0),  # Llama 3.2 1B/3B
    (128, 10000.0, 4.0, 4096, 2.0, 8.0),
    (32, 10000.0, 16.0, 1024, 0.5, 3.0),
]


@pytest.mark.parametrize(("dim", "base", "s", "length", "low", "high"), LLAMA3_CONFIGS)
def test_llama3_equals_transformers(hf, dim, base, s, length, low, high):
    ours = scaled_frequencies(
        dim,
        s,
        method="llama3",
        base=base,
        original_max_position=length,
        low_freq_factor=low,
        high_freq_factor=high,
    )
    theirs, attention = hf(
        "llama3",
        dim,
        base=base,
        factor=s,
        original_max_position_embeddings=length,
        low_freq_factor=low,
        high_freq_factor=high,
    )
    assert attention == 1.0
    assert_float32_close(ours, theirs, s)
    theta = frequencies(dim, base)
    assert ours[0] == theta[0] and ours[-1] == pytest.approx(theta[-1] / s, rel=1e-15)


@pytest.mark.parametrize(("dim", "base", "s", "length", "low", "high"), LLAMA3_CONFIGS)
def test_paper_ramp_with_betas_4_and_1_is_llama3(dim, base, s, length, low, high):
    # r_i = L theta_i / (2 pi) = L / lambda_i: the paper's ramp in turns is llama3's in wavelengths.
    llama3 = scaled_frequencies(
        dim,
        s,
        method="llama3",
        base=base,
        original_max_position=length,
        low_freq_factor=low,
        high_freq_factor=high,
    )
    kwargs = {"method": "yarn", "base": base, "original_max_position": length}
    paper = scaled_frequencies(dim, s, ramp="paper", beta_fast=high, beta_slow=low, **kwargs)
    # Equal up to float64 rounding (L * theta / (2 pi) against L / (2 pi / theta)), not bit for bit.
    np.testing.assert_allclose(paper, llama3, rtol=1e-14, atol=0)
    # The code ramp with the same betas is another curve: the identity is the paper ramp's only.
    code = scaled_frequencies(dim, s, ramp="code", beta_fast=high, beta_slow=low, **kwargs)
    assert np.abs(code / llama3 - 1).max() > 1e-2


def phi3_factors(half, seed):
    rng = np.random.default_rng(seed)
    short = np.sort(rng.uniform(1.0, 3.0, half))
    long = np.sort(rng.uniform(1.0, 60.0, half))
    return short.tolist(), long.tolist()


@pytest.mark.parametrize(("dim", "base", "length"), [(96, 10000.0, 4096), (128, 500000.0, 8192)])
@pytest.mark.parametrize("times", [0.5, 1.0, 1.0002, 32.0])
def test_longrope_equals_transformers(hf, dim, base, length, times):
    short, long = phi3_factors(dim // 2, seed=dim)
    seq_len = round(times * length)
    s = 32.0
    ours = scaled_frequencies(
        dim,
        s,
        method="longrope",
        base=base,
        original_max_position=length,
        seq_len=seq_len,
        short_factor=short,
        long_factor=long,
    )
    theirs, attention = hf(
        "longrope",
        dim,
        base=base,
        seq_len=seq_len,
        max_position=round(s * length),
        factor=s,
        original_max_position_embeddings=length,
        short_factor=short,
        long_factor=long,
    )
    assert_float32_close(ours, theirs, 1.0)
    chosen = long if seq_len > length else short
    np.testing.assert_allclose(ours, frequencies(dim, base) / np.array(chosen), rtol=1e-15)
    assert attention == pytest.approx(longrope_attention_factor(s, length), rel=1e-15)


def test_longrope_attention_factor_of_phi3_mini_128k():
    # Phi-3-mini-128k-instruct: max_position_embeddings 131072, original 4096 and no factor in the config.
    assert longrope_attention_factor(131072 / 4096, 4096) == pytest.approx(
        math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-15
    )


@pytest.mark.parametrize(
    ("s", "mscale", "mscale_all_dim"), [(40.0, 1.0, 1.0), (40.0, 0.707, 1.0), (4.0, 1.0, 0.5)]
)
def test_yarn_attention_factor_with_deepseek_mscale_equals_transformers(hf, s, mscale, mscale_all_dim):
    _, attention = hf(
        "yarn",
        64,
        base=10000.0,
        factor=s,
        original_max_position_embeddings=4096,
        mscale=mscale,
        mscale_all_dim=mscale_all_dim,
    )
    ours = yarn_attention_factor(s, mscale=mscale, mscale_all_dim=mscale_all_dim)
    assert ours == pytest.approx(attention, rel=1e-15)
    if mscale == mscale_all_dim:
        assert ours == 1.0


@pytest.mark.parametrize(
    ("rope_type", "extra"),
    [
        ("linear", {}),
        ("dynamic", {}),
        ("yarn", {"original_max_position_embeddings": 4096}),
        (
            "llama3",
            {"original_max_position_embeddings": 4096, "low_freq_factor": 1.0, "high_freq_factor": 4.0},
        ),
    ],
)
@pytest.mark.parametrize("seq_len", [None, 4096, 10000])
def test_factor_one_equals_transformers(hf, rope_type, extra, seq_len):
    """Review P16: HF accepts factor 1 (real configs carry it); posenc gives what HF gives."""
    theirs, attention = hf(rope_type, 64, base=10000.0, factor=1.0, seq_len=seq_len, **extra)
    ours = scaled_frequencies(
        64,
        1.0,
        method=rope_type,
        original_max_position=4096,
        seq_len=seq_len or 4096,
        **{k: v for k, v in extra.items() if k.endswith("freq_factor")},
    )
    assert_float32_close(ours, theirs, 1.0)
    if rope_type != "dynamic" or (seq_len or 4096) <= 4096:
        # No extension: the unscaled frequencies themselves (dynamic NTK's rule still grows beyond L).
        np.testing.assert_array_equal(ours, frequencies(64))
    if rope_type == "yarn":
        assert yarn_attention_factor(1.0) == attention == 1.0


def test_factor_one_of_the_attention_factors_is_one():
    assert yarn_attention_factor(1.0) == 1.0
    assert yarn_attention_factor(1.0, mscale=0.707, mscale_all_dim=1.0) == 1.0
    assert longrope_attention_factor(1.0, 4096) == 1.0
    np.testing.assert_array_equal(scaled_frequencies(8, 1.0, method="ntk"), frequencies(8))


@pytest.mark.parametrize(("mscale", "mscale_all_dim"), [(0.0, 0.0), (0, None), (None, 0.0)])
def test_zero_mscale_is_unset_as_in_transformers(hf, mscale, mscale_all_dim):
    """Review P16: HF's `if mscale and mscale_all_dim` reads 0 as unset and falls back to 0.1 ln(s) + 1."""
    fields = {k: v for k, v in {"mscale": mscale, "mscale_all_dim": mscale_all_dim}.items() if v is not None}
    _, attention = hf("yarn", 64, base=10000.0, factor=4.0, original_max_position_embeddings=4096, **fields)
    ours = yarn_attention_factor(4.0, mscale=mscale, mscale_all_dim=mscale_all_dim)
    assert ours == pytest.approx(attention, rel=1e-15)
    assert ours == yarn_attention_factor(4.0)


# ----------------------------------------------------------------------------- properties


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
    betas=st.tuples(st.floats(0.01, 100.0), st.floats(0.01, 100.0)),
)
def test_yarn_paper_ramp_matches_the_paper_formula(dim, s, base, length, betas):
    beta_slow, beta_fast = betas[0], betas[0] + betas[1]
    theta = scaled_frequencies(
        dim,
        s,
        method="yarn",
        ramp="paper",
        base=base,
        original_max_position=length,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
    )
    expected = yarn_formula(dim, s, base, length, beta_fast, beta_slow)
    np.testing.assert_allclose(theta, expected, rtol=1e-12)


@pytest.mark.parametrize("ramp", YARN_RAMPS)
@pytest.mark.parametrize(
    ("dim", "base", "length"), [(128, 10000.0, 4096), (64, 500000.0, 8192), (128, 1e4, 2048)]
)
@pytest.mark.parametrize("s", [2.0, 8.0, 32.0])
def test_yarn_keeps_fast_pairs_and_interpolates_slow_ones(ramp, dim, base, length, s):
    # Divide by posenc's own theta, not by a scalar-pow copy: NumPy's SIMD pow (AVX-512) and Python's
    # pow differ in the last bit, and the ratio must not carry that noise.
    theta = frequencies(dim, base)
    scaled = scaled_frequencies(dim, s, method="yarn", ramp=ramp, base=base, original_max_position=length)
    ratio = scaled / theta
    assert ratio[0] == 1.0
    assert ratio[-1] == pytest.approx(1 / s, rel=1e-14)
    # Non-increasing, up to the rounding of (theta / s) / theta in the flat parts (a few 1e-17).
    assert np.all(np.diff(ratio) <= 1e-15)
    assert np.all((ratio >= 1 / s * (1 - 1e-14)) & (ratio <= 1.0 + 1e-15))
    # Strictly in between somewhere: the ramp is not a jump.
    assert np.any((ratio < 1 - 1e-9) & (ratio > 1 / s + 1e-9))


def test_methods_differ_where_they_should():
    linear = scaled_frequencies(128, 4.0, method="linear")
    ntk = scaled_frequencies(128, 4.0, method="ntk")
    yarn = scaled_frequencies(128, 4.0, method="yarn", original_max_position=4096)
    assert linear[0] == 0.25 and ntk[0] == 1.0 and yarn[0] == 1.0
    assert linear[-1] == pytest.approx(ntk[-1], rel=1e-12)
    assert linear[-1] == pytest.approx(yarn[-1], rel=1e-12)


def test_unused_arguments_are_ignored():
    # One set of keywords for every method (as posenc.plot.encodings.scaling_ratios passes): each reads
    # its own.
    kwargs = {"original_max_position": 4096, "seq_len": 8192, "beta_fast": 32.0, "ramp": "paper"}
    np.testing.assert_array_equal(
        scaled_frequencies(64, 4.0, method="linear", **kwargs), scaled_frequencies(64, 4.0, method="linear")
    )
    np.testing.assert_array_equal(
        scaled_frequencies(64, 4.0, method="llama3", **kwargs),
        scaled_frequencies(64, 4.0, method="llama3", original_max_position=4096),
    )
    assert set(SCALING_METHODS) == {"linear", "ntk", "dynamic", "yarn", "llama3", "longrope"}


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


# ----------------------------------------------------------------------------- bad input

HALF = [1.0] * 32


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"factor": 0.999}, ValueError, "factor must be >= 1"),
        ({"factor": 0.5}, ValueError, "factor must be >= 1"),
        ({"factor": -2.0}, ValueError, "factor must be >= 1"),
        ({"factor": math.inf}, ValueError, "factor must be finite"),
        ({"factor": math.nan}, ValueError, "factor must be finite"),
        ({"factor": "2"}, TypeError, "factor must be a real number"),
        ({"factor": True}, TypeError, "factor must be a real number"),
        (
            {"method": "ntk-by-parts"},
            ValueError,
            r"method must be one of \('linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope'\), "
            r"got 'ntk-by-parts'",
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
            r"0 < beta_slow < beta_fast \(they count turns\), got beta_fast=1.0, beta_slow=1.0",
        ),
        (
            {"method": "yarn", "original_max_position": 4096, "beta_fast": 2.0, "beta_slow": 3.0},
            ValueError,
            "0 < beta_slow < beta_fast",
        ),
        (
            {"method": "yarn", "original_max_position": 4096, "beta_fast": -1.0, "beta_slow": -32.0},
            ValueError,
            "0 < beta_slow < beta_fast",
        ),
        (
            {"method": "yarn", "original_max_position": 4096, "beta_slow": 0.0, "ramp": "paper"},
            ValueError,
            "0 < beta_slow < beta_fast",
        ),
        (
            {"method": "yarn", "original_max_position": 4096, "beta_slow": math.nan},
            ValueError,
            "beta_slow must be finite",
        ),
        (
            {"method": "yarn", "original_max_position": 4096, "ramp": "index"},
            ValueError,
            r"ramp must be one of \('code', 'paper'\), got 'index'",
        ),
        (
            {"method": "yarn", "original_max_position": 4096, "truncate": 1},
            TypeError,
            "truncate must be True",
        ),
        (
            {"method": "yarn", "original_max_position": 4096, "base": 1.0},
            ValueError,
            r"base must be > 1 \(the frequencies",
        ),
        ({"method": "dynamic", "seq_len": 10}, ValueError, "method 'dynamic' needs original_max_position"),
        (
            {"method": "dynamic", "original_max_position": 4096},
            ValueError,
            "method 'dynamic' needs seq_len",
        ),
        (
            {"method": "dynamic", "original_max_position": 4096, "seq_len": 0},
            ValueError,
            "seq_len must be >= 1",
        ),
        (
            {"method": "dynamic", "original_max_position": 4096, "seq_len": 10.0},
            TypeError,
            "seq_len must be an integer",
        ),
        ({"method": "dynamic", "dim": 2}, ValueError, "dim must be >= 4 for method 'dynamic'"),
        (
            {"method": "dynamic", "original_max_position": 4096, "seq_len": 10, "dynamic_rule": "HF"},
            ValueError,
            r"dynamic_rule must be one of \('hf', 'yarn'\), got 'HF'",
        ),
        ({"method": "llama3"}, ValueError, "method 'llama3' needs original_max_position"),
        (
            {"method": "llama3", "original_max_position": 8192, "low_freq_factor": 5.0},
            ValueError,
            "low_freq_factor must be <= high_freq_factor, got low_freq_factor=5.0, high_freq_factor=4.0",
        ),
        (
            {"method": "llama3", "original_max_position": 8192, "low_freq_factor": 0.0},
            ValueError,
            "low_freq_factor must be > 0",
        ),
        (
            {"method": "llama3", "original_max_position": 8192, "high_freq_factor": "4"},
            TypeError,
            "high_freq_factor must be a real number",
        ),
        (
            {"method": "longrope", "original_max_position": 4096, "seq_len": 10, "long_factor": HALF},
            ValueError,
            "method 'longrope' needs short_factor",
        ),
        (
            {"method": "longrope", "original_max_position": 4096, "seq_len": 10, "short_factor": HALF},
            ValueError,
            "method 'longrope' needs long_factor",
        ),
        (
            {"method": "longrope", "original_max_position": 4096, "short_factor": HALF, "long_factor": HALF},
            ValueError,
            "method 'longrope' needs seq_len",
        ),
        (
            {
                "method": "longrope",
                "original_max_position": 4096,
                "seq_len": 10,
                "short_factor": HALF[:-1],
                "long_factor": HALF,
            },
            ValueError,
            "short_factor must have length dim // 2 = 32, got 31",
        ),
        (
            {
                "method": "longrope",
                "original_max_position": 4096,
                "seq_len": 10,
                "short_factor": HALF,
                "long_factor": [0.0, *HALF[1:]],
            },
            ValueError,
            "long_factor must be finite and > 0",
        ),
        (
            {
                "method": "longrope",
                "original_max_position": 4096,
                "seq_len": 10,
                "short_factor": HALF,
                "long_factor": "1" * 32,
            },
            TypeError,
            "long_factor must be a sequence",
        ),
        (
            {
                "method": "longrope",
                "original_max_position": 4096,
                "seq_len": 10,
                "short_factor": [True] * 32,
                "long_factor": HALF,
            },
            TypeError,
            "short_factor must hold real numbers",
        ),
        (
            {"method": "longrope", "original_max_position": 1, "seq_len": 10},
            ValueError,
            "original_max_position must be >= 2",
        ),
        ({"dim": 7}, ValueError, "dim must be even"),
        ({"dim": 0}, ValueError, "dim must be >= 1"),
        ({"dim": 64.0}, TypeError, "dim must be an integer"),
        ({"dim": 2, "method": "ntk"}, ValueError, "dim must be >= 4 for method 'ntk'"),
        ({"base": 0.0}, ValueError, "base must be > 1"),
    ],
)
def test_bad_input_names_argument_and_rule(kwargs, error, words):
    arguments = {"dim": 64, "factor": 2.0, "method": "linear"} | kwargs
    with pytest.raises(error, match=words):
        scaled_frequencies(arguments.pop("dim"), arguments.pop("factor"), **arguments)


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: yarn_attention_factor(0.5), ValueError, "factor must be >= 1"),
        (lambda: yarn_attention_factor(4.0, mscale=1.0), ValueError, "mscale and mscale_all_dim go together"),
        (lambda: yarn_attention_factor(4.0, mscale_all_dim=1.0), ValueError, "go together"),
        (
            # HF would ignore mscale_all_dim here (its `if mscale and mscale_all_dim`); posenc asks.
            lambda: yarn_attention_factor(4.0, mscale=0.0, mscale_all_dim=1.0),
            ValueError,
            "give both \\(non-zero\\) or neither",
        ),
        (
            lambda: yarn_attention_factor(4.0, mscale=-1.0, mscale_all_dim=1.0),
            ValueError,
            "mscale must be > 0",
        ),
        (
            lambda: yarn_attention_factor(4.0, mscale=1.0, mscale_all_dim="1"),
            TypeError,
            "mscale_all_dim must",
        ),
        (lambda: longrope_attention_factor(0.5, 4096), ValueError, "factor must be >= 1"),
        (lambda: longrope_attention_factor(4.0, 1), ValueError, "original_max_position must be >= 2"),
        (lambda: longrope_attention_factor(4.0, 4096.0), TypeError, "original_max_position must be an int"),
    ],
)
def test_attention_factors_reject_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()


@pytest.mark.parametrize("base", [0.5, 1.0, 1e-300])
@pytest.mark.parametrize(
    "call",
    [
        lambda base: frequencies(4, base=base),
        lambda base: apply_rope(np.ones((2, 4)), base=base),
        lambda base: scaled_frequencies(8, 4.0, method="linear", base=base),
        lambda base: scaled_frequencies(8, 4.0, method="llama3", base=base, original_max_position=4096),
        lambda base: scaled_frequencies(
            8, 4.0, method="yarn", ramp="paper", base=base, original_max_position=4096
        ),
    ],
)
def test_a_base_of_at_most_one_is_refused(call, base):
    """Review P23: a base below 1 gave frequencies that rise with i (and the paper ramp and llama3 then
    raised them further), 1 the same frequency for every pair: no RoPE, and no error."""
    with pytest.raises(ValueError, match=r"base must be > 1 \(the frequencies base \*\* \(-2i/d\) must fall"):
        call(base)
