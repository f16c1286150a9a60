import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc import apply_rope, cos_sin_table, rope_decay_bound, rope_frequencies, sinusoidal_encoding


def rotate_entrywise(x, offset, layout, theta):
    """RoPE written out with math.cos/math.sin, one pair and one row at a time."""
    x = np.asarray(x, dtype=np.float64)
    dim = x.shape[-1]
    half = dim // 2
    out = np.empty_like(x)
    for index in np.ndindex(x.shape[:-1]):
        position = offset + index[-1]
        for i in range(half):
            a_index, b_index = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + half)
            a, b = x[index][a_index], x[index][b_index]
            angle = position * theta[i]
            out[(*index, a_index)] = a * math.cos(angle) - b * math.sin(angle)
            out[(*index, b_index)] = a * math.sin(angle) + b * math.cos(angle)
    return out


def default_theta(dim, base=10000.0):
    return [base ** (-2 * i / dim) for i in range(dim // 2)]


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize(("shape", "offset"), [((5, 8), 0), ((2, 3, 4, 6), 7), ((1, 2), 1000)])
def test_matches_the_rotation_written_out(layout, shape, offset):
    x = np.random.default_rng(1).standard_normal(shape)
    expected = rotate_entrywise(x, offset, layout, default_theta(shape[-1]))
    np.testing.assert_allclose(apply_rope(x, offset=offset, layout=layout), expected, rtol=0, atol=1e-12)


@given(
    half=st.integers(1, 16),
    seq_len=st.integers(0, 20),
    offset=st.integers(0, 10**5),
    base=st.floats(2.0, 1e6),
    layout=st.sampled_from(["interleaved", "half"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_matches_the_rotation_for_any_size_and_base(half, seq_len, offset, base, layout, seed):
    x = np.random.default_rng(seed).standard_normal((seq_len, 2 * half))
    expected = rotate_entrywise(x, offset, layout, default_theta(2 * half, base))
    out = apply_rope(x, offset=offset, base=base, layout=layout)
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-9)


def test_interleaved_is_half_up_to_a_fixed_permutation():
    # Interleaved pair i is (2i, 2i+1); half pair i is (i, i + dim/2). Putting the
    # even dimensions first and the odd ones after maps one onto the other.
    dim = 12
    perm = np.concatenate((np.arange(0, dim, 2), np.arange(1, dim, 2)))
    x = np.random.default_rng(2).standard_normal((3, 9, dim))
    interleaved = apply_rope(x, offset=5, layout="interleaved")
    half = apply_rope(x[..., perm], offset=5, layout="half")
    np.testing.assert_allclose(half, interleaved[..., perm], rtol=0, atol=1e-13)
    # Without the permutation the two layouts are different rotations.
    assert np.abs(apply_rope(x, layout="half") - interleaved).max() > 0.1


@given(
    m=st.integers(0, 5000),
    n=st.integers(0, 5000),
    shift=st.integers(0, 5000),
    layout=st.sampled_from(["interleaved", "half"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_score_depends_only_on_the_offset(m, n, shift, layout, seed):
    q, k = np.random.default_rng(seed).standard_normal((2, 1, 16))
    score = apply_rope(q, offset=m, layout=layout) @ apply_rope(k, offset=n, layout=layout).T
    shifted = (
        apply_rope(q, offset=m + shift, layout=layout) @ apply_rope(k, offset=n + shift, layout=layout).T
    )
    assert shifted.item() == pytest.approx(score.item(), abs=1e-9)
    # Relative to the query: the same as a query at 0 and a key at n - m (if >= 0).
    if n >= m:
        relative = q @ apply_rope(k, offset=n - m, layout=layout).T
        assert relative.item() == pytest.approx(score.item(), abs=1e-9)


def test_offset_is_the_position_of_the_first_row():
    x = np.random.default_rng(3).standard_normal((2, 10, 8))
    whole = apply_rope(x)
    np.testing.assert_allclose(apply_rope(x[:, 4:], offset=4), whole[:, 4:], rtol=0, atol=1e-14)


def test_rotation_keeps_pair_norms_and_position_zero():
    x = np.random.default_rng(4).standard_normal((6, 10))
    out = apply_rope(x)
    np.testing.assert_array_equal(out[0], x[0])
    pair_norms = np.hypot(x[:, 0::2], x[:, 1::2])
    np.testing.assert_allclose(np.hypot(out[:, 0::2], out[:, 1::2]), pair_norms, rtol=1e-14)


def test_float32_stays_at_rounding_level_up_to_a_million():
    seq_len, dim = 2000, 128
    offset = 10**6 - seq_len
    x = np.random.default_rng(5).standard_normal((4, seq_len, dim)).astype(np.float32)
    theta = np.asarray(default_theta(dim))
    angle = (offset + np.arange(seq_len))[:, np.newaxis] * theta
    a, b = x[..., 0::2].astype(np.float64), x[..., 1::2].astype(np.float64)
    expected_a = a * np.cos(angle) - b * np.sin(angle)
    expected_b = a * np.sin(angle) + b * np.cos(angle)
    out = apply_rope(x, offset=offset)
    assert out.dtype == np.float32
    # Against the length of each pair: the table entries (u each), the products
    # and the sum add at most (2 sqrt(2) + 1) u < 4u, with u = 2**-24.
    norm = np.hypot(a, b)
    assert (np.abs(out[..., 0::2] - expected_a) / norm).max() <= 4 * 2**-24
    assert (np.abs(out[..., 1::2] - expected_b) / norm).max() <= 4 * 2**-24
    # The same rotation with float32 angles misses by orders of magnitude more.
    angle32 = (offset + np.arange(seq_len, dtype=np.float32))[:, np.newaxis] * theta.astype(np.float32)
    naive_a = x[..., 0::2] * np.cos(angle32) - x[..., 1::2] * np.sin(angle32)
    assert (np.abs(naive_a - expected_a) / norm).max() > 1e-3


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.longdouble])
def test_returns_a_new_array_of_the_input_dtype(dtype):
    x = np.random.default_rng(6).standard_normal((3, 4)).astype(dtype)
    before = x.copy()
    out = apply_rope(x, offset=2)
    assert out.dtype == x.dtype
    assert out is not x
    np.testing.assert_array_equal(x, before)
    tolerance = {2: 2e-3, 4: 1e-6}.get(np.dtype(dtype).itemsize, 1e-12)
    np.testing.assert_allclose(
        out.astype(np.float64), apply_rope(x.astype(np.float64), offset=2), atol=tolerance
    )


def test_lists_and_non_contiguous_views_are_accepted():
    x = np.random.default_rng(7).standard_normal((8, 6, 4))
    view = x.transpose(1, 0, 2)[:, ::2]
    np.testing.assert_allclose(apply_rope(view), apply_rope(view.copy()), rtol=0, atol=0)
    np.testing.assert_allclose(apply_rope(x[0].tolist()), apply_rope(x[0]), rtol=0, atol=0)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_custom_frequencies(layout):
    theta = [0.9, 0.05, 1e-4]
    x = np.random.default_rng(8).standard_normal((5, 6))
    out = apply_rope(x, offset=3, layout=layout, frequencies=theta)
    np.testing.assert_allclose(out, rotate_entrywise(x, 3, layout, theta), rtol=0, atol=1e-12)
    default = apply_rope(x, layout=layout, frequencies=rope_frequencies(6, 500.0))
    np.testing.assert_array_equal(default, apply_rope(x, layout=layout, base=500.0))


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_a_pair_at_frequency_zero_is_not_rotated(layout):
    # transformers' proportional RoPE (Gemma 4) leaves a head's last pairs so.
    x = np.random.default_rng(9).standard_normal((5, 6))
    out = apply_rope(x, offset=3, layout=layout, frequencies=[0.9, 0.0, 0.0])
    still = [2, 3, 4, 5] if layout == "interleaved" else [1, 2, 4, 5]
    np.testing.assert_array_equal(out[:, still], x[:, still])
    np.testing.assert_allclose(out, rotate_entrywise(x, 3, layout, [0.9, 0.0, 0.0]), rtol=0, atol=1e-12)


def test_rope_frequencies_default_and_custom():
    np.testing.assert_allclose(rope_frequencies(8, 100.0), default_theta(8, 100.0), rtol=1e-15)
    theta = np.array([1.0, 0.5])
    copy = rope_frequencies(4, frequencies=theta)
    assert copy.dtype == np.float64
    copy[0] = 7.0
    assert theta[0] == 1.0


def test_cos_sin_table_matches_the_sinusoidal_table():
    # The columns of the sinusoidal encoding are these sines and cosines.
    cos, sin = cos_sin_table(300, rope_frequencies(16), dtype=np.float32)
    table = sinusoidal_encoding(300, 16, dtype=np.float32)
    # Within float32 rounding: the two tables use exp(+i t) and exp(-i t), whose last float64 bits (and so,
    # rarely, a float32 rounding) may depend on the CPU's kernels.
    np.testing.assert_allclose(sin, table[:, 0::2], rtol=0, atol=1e-7)
    np.testing.assert_allclose(cos, table[:, 1::2], rtol=0, atol=1e-7)
    assert cos.flags.c_contiguous and sin.flags.c_contiguous


@given(num_positions=st.integers(0, 400), offset=st.integers(0, 10**6), data=st.data())
def test_cos_sin_table_at_any_offset(num_positions, offset, data):
    omega = np.array(data.draw(st.lists(st.floats(-3.0, 3.0), min_size=1, max_size=5)))
    cos, sin = cos_sin_table(num_positions, omega, offset=offset)
    angle = (offset + np.arange(num_positions))[:, np.newaxis] * omega
    np.testing.assert_allclose(cos, np.cos(angle), rtol=0, atol=1e-9)
    np.testing.assert_allclose(sin, np.sin(angle), rtol=0, atol=1e-9)


@pytest.mark.parametrize(
    ("x_shape", "kwargs", "error", "words"),
    [
        ((4, 5), {}, ValueError, r"x.shape\[-1\] \(dim\) must be even"),
        ((4, 0), {}, ValueError, r"x.shape\[-1\] \(dim\) must be >= 1"),
        ((4,), {}, ValueError, r"x must have shape \(..., seq_len, dim\)"),
        ((4, 4), {"offset": 1.0}, TypeError, "offset must be an integer"),
        ((4, 4), {"offset": True}, TypeError, "offset must be an integer"),
        ((4, 4), {"offset": "2"}, TypeError, "offset must be an integer"),
        ((4, 4), {"offset": -1}, ValueError, "offset must be >= 0"),
        ((4, 4), {"layout": "rotate_half"}, ValueError, r"layout must be one of \('interleaved', 'half'\)"),
        ((4, 4), {"layout": None}, ValueError, "layout must be one of"),
        ((4, 4), {"base": 0.0}, ValueError, "base must be > 1"),
        ((4, 4), {"base": math.inf}, ValueError, "base must be finite"),
        ((4, 4), {"frequencies": [1.0]}, ValueError, r"frequencies must have length dim // 2 = 2, got 1"),
        ((4, 4), {"frequencies": [1.0, 0.1, 0.01]}, ValueError, "frequencies must have length"),
        ((4, 4), {"frequencies": [1.0, -0.5]}, ValueError, "frequencies must be finite and >= 0"),
        ((4, 4), {"frequencies": [1.0, math.nan]}, ValueError, "frequencies must be finite"),
        ((4, 4), {"frequencies": [1.0, math.inf]}, ValueError, "frequencies must be finite"),
        ((4, 4), {"frequencies": [[1.0, 0.1]]}, ValueError, "frequencies must be one-dimensional"),
        ((4, 4), {"frequencies": ["a", "b"]}, TypeError, "frequencies must be an array of real numbers"),
        ((4, 4), {"positions": [0, 1, -2, 3]}, ValueError, "positions must be >= 0, got minimum -2"),
        ((4, 4), {"positions": [0.0, 1.0, 2.0, 3.0]}, TypeError, "positions must be an array of integers"),
        ((4, 4), {"positions": [True] * 4}, TypeError, "positions must be an array of integers"),
        ((4, 4), {"positions": [0, 1, 2]}, ValueError, r"positions must have shape \(seq_len,\) = \(4,\)"),
        ((2, 1, 4, 4), {"positions": np.zeros((3, 4), int)}, ValueError, "positions must have shape"),
        (
            (4, 4),
            {"positions": np.zeros((2, 4), int)},
            ValueError,
            r"= \(4,\); got positions of shape \(2, 4\)",
        ),
        ((4, 4), {"seq_dim": -1}, ValueError, "seq_dim must name an axis of x before its last"),
        ((4, 4), {"positions": [0, 1, 2, 3], "offset": 1}, ValueError, "give offset or positions, not both"),
        ((4, 4), {"rotary_dim": 6}, ValueError, "rotary_dim must be <= dim = 4"),
        ((4, 4), {"rotary_dim": 1}, ValueError, "rotary_dim must be even"),
        ((4, 4), {"rotary_dim": 2.0}, TypeError, "rotary_dim must be an integer"),
        ((4, 4), {"rotary_dim": 2, "frequencies": [1.0, 0.1]}, ValueError, "frequencies must have length"),
    ],
)
def test_bad_input_names_argument_and_rule(x_shape, kwargs, error, words):
    with pytest.raises(error, match=words):
        apply_rope(np.zeros(x_shape), **kwargs)


LIMIT = 2**53


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda x: apply_rope(x, positions=[LIMIT - 1, LIMIT]), "positions must be < 2\\*\\*53"),
        (lambda x: apply_rope(x, positions=[LIMIT, LIMIT + 1]), "positions must be < 2\\*\\*53"),
        (lambda x: apply_rope(x, positions=np.array([0, 2**63], np.uint64)), "positions must be < 2\\*\\*53"),
        (
            lambda x: apply_rope(x, offset=LIMIT - 1),
            "offset \\+ the number of positions must be <= 2\\*\\*53",
        ),
        (lambda x: apply_rope(x, offset=2**64), "offset \\+ the number of positions must be <= 2\\*\\*53"),
        (lambda x: cos_sin_table(2, [1.0], offset=LIMIT - 1), "offset \\+ the number of positions"),
        (lambda x: cos_sin_table(0, [1.0], offset=2**63), "offset \\+ the number of positions"),
    ],
)
def test_positions_from_2_to_the_53_are_refused(call, name):
    """Review P11: float64 angles cannot tell 2**53 from 2**53 + 1: the two rows came back identical
    (positions= and offset=), and offset >= 2**63 raised a bare OverflowError naming no argument."""
    with pytest.raises(ValueError, match=name):
        call(np.ones((2, 4)))


def test_the_last_positions_below_2_to_the_53_stay_distinct():
    x = np.ones((2, 4))
    rows = apply_rope(x, positions=[LIMIT - 2, LIMIT - 1])
    assert not np.array_equal(rows[0], rows[1])
    np.testing.assert_array_equal(apply_rope(x, offset=LIMIT - 2), rows)
    cos, _ = cos_sin_table(1, [1.0], offset=LIMIT - 1)
    assert cos.shape == (1, 1)


def test_positions_of_an_empty_sequence_and_ragged_positions():
    """Review P15: positions=[] for an empty sequence reported "dtype float64", and ragged rows NumPy's
    "inhomogeneous shape", neither naming the rule."""
    out = apply_rope(np.ones((0, 4)), positions=[])
    assert out.shape == (0, 4) and out.dtype == np.float64
    with pytest.raises(ValueError, match="positions must be a rectangular array of integers"):
        apply_rope(np.ones((2, 1, 3, 4)), positions=[[0, 1], [0, 1, 2]])


def test_hf_position_ids_of_one_row_broadcast_over_the_batch():
    """Review P15 (fixed before): HF's default position_ids, (1, seq_len), serve every sequence."""
    x = np.random.default_rng(0).normal(size=(2, 3, 5, 8))
    np.testing.assert_array_equal(
        apply_rope(x, positions=np.arange(5)[None]), apply_rope(x, positions=np.arange(5))
    )


def test_integer_input_is_rejected():
    with pytest.raises(TypeError, match="x must be a floating-point array, got dtype int64"):
        apply_rope(np.zeros((2, 4), dtype=np.int64))


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: rope_frequencies(7), ValueError, "dim must be even"),
        (lambda: rope_frequencies(0), ValueError, "dim must be >= 1"),
        (lambda: rope_frequencies(8.0), TypeError, "dim must be an integer"),
        (lambda: rope_frequencies(False), TypeError, "dim must be an integer"),
        (lambda: cos_sin_table(-1, [1.0]), ValueError, "num_positions must be >= 0"),
        (lambda: cos_sin_table(4, [1.0], offset=0.5), TypeError, "offset must be an integer"),
        (lambda: cos_sin_table(4, [1.0, math.nan]), ValueError, "frequencies must be finite"),
        (lambda: cos_sin_table(4, [1.0], dtype=np.int8), TypeError, "dtype must be a NumPy floating type"),
    ],
)
def test_helpers_reject_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_decay_bound_is_the_mean_of_the_partial_sums():
    dim, max_distance = 16, 40
    bound = rope_decay_bound(max_distance, dim, base=100.0)
    theta = default_theta(dim, 100.0)
    for r in range(max_distance + 1):
        terms = [complex(math.cos(r * t), math.sin(r * t)) for t in theta]
        partial_sums = [sum(terms[:j]) for j in range(1, dim // 2 + 1)]
        assert bound[r] == pytest.approx(sum(abs(s) for s in partial_sums) / (dim // 2), rel=1e-12)
    assert bound[0] == (dim // 2 + 1) / 2


def test_decay_bound_decays_and_bounds_the_score():
    dim = 128
    bound = rope_decay_bound(2000, dim)
    assert bound[0] == 32.5
    # Oscillating, but on average lower in each decade of distance than in the one before.
    decades = [bound[lo : 10 * lo].mean() for lo in (1, 10, 100)]
    assert decades[0] > decades[1] > decades[2] > bound[1000:].mean()
    # The bound holds for actual rotated queries and keys (RoFormer's Abel summation).
    rng = np.random.default_rng(9)
    q, k = rng.standard_normal((2, 1, dim))
    h = (q[0, 0::2] + 1j * q[0, 1::2]) * (k[0, 0::2] - 1j * k[0, 1::2])
    slack = np.abs(np.diff(np.append(h, 0))).max() * (dim // 2)
    for r in (0, 10, 300, 1999):
        score = (apply_rope(q, offset=r) @ k.T).item()
        assert abs(score) <= slack * bound[r] + 1e-9


def rotate_at(x, positions, layout, theta):
    """RoPE written out for any positions, one row at a time, with math.cos/math.sin."""
    out = np.empty_like(x)
    for index in np.ndindex(x.shape[:-2]):
        row_positions = positions if positions.ndim == 1 else positions[index[0]]
        for t, position in enumerate(row_positions):
            out[(*index, t)] = rotate_entrywise(x[(*index, t)][np.newaxis], int(position), layout, theta)[0]
    return out


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize(
    "positions",
    [
        np.array([5, 5, 0, 1, 2, 3]),  # one left-padded sequence for every row
        np.array([[1, 1, 0, 1, 2, 3], [0, 1, 2, 0, 1, 2]]),  # left padding; two packed documents
        np.array([[0, 10**6, 7, 3, 3, 2**40], [4, 3, 2, 1, 0, 0]]),  # any order, far positions
        np.array([9, 8, 7, 0, 1, 2], dtype=np.uint8),  # any integer type
    ],
)
def test_positions_match_the_rotation_written_out(layout, positions):
    x = np.random.default_rng(14).standard_normal((2, 3, 6, 8))
    theta = default_theta(8)
    expected = rotate_at(x, positions, layout, theta)
    # At 2**40 the angle itself is only known to 2**40 * 1.1e-16 (about 1e-4 rad): compare below that.
    atol = 1e-12 if positions.max() < 2**20 else 1e-3
    np.testing.assert_allclose(apply_rope(x, positions=positions, layout=layout), expected, rtol=0, atol=atol)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_consecutive_positions_equal_the_offset(layout, dtype):
    x = np.random.default_rng(15).standard_normal((3, 50, 16)).astype(dtype)
    by_offset = apply_rope(x, offset=1000, layout=layout)
    by_positions = apply_rope(x, positions=np.arange(1000, 1050), layout=layout)
    assert by_positions.dtype == dtype
    # Two accurate recipes for the same cos and sin (angle addition, direct float64 exp): equal to rounding.
    tolerance = {np.float64: 1e-12, np.float32: 1e-6, np.float16: 2e-3}[dtype]
    np.testing.assert_allclose(by_positions, by_offset, rtol=0, atol=tolerance)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rotary_dim_rotates_the_first_features_only(layout):
    x = np.random.default_rng(16).standard_normal((2, 9, 12)).astype(np.float32)
    out = apply_rope(x, offset=4, layout=layout, rotary_dim=4, base=100.0)
    assert out.dtype == np.float32 and out.shape == x.shape
    expected = rotate_entrywise(x[..., :4], 4, layout, default_theta(4, 100.0))
    np.testing.assert_allclose(out[..., :4], expected, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(out[..., 4:], x[..., 4:])  # passed through: the same numbers
    np.testing.assert_array_equal(apply_rope(x, rotary_dim=12), apply_rope(x))
