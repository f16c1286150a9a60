import math

import numpy as np
import pytest
import torch

from posenc import alibi_bias, alibi_slopes, t5_relative_bucket


def paper_slopes(n):
    """``get_slopes`` from the ALiBi repository (Press et al.), verbatim."""

    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (
        get_slopes_power_of_2(closest_power_of_2)
        + paper_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
    )


def hf_relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    """``T5Attention._relative_position_bucket`` from Hugging Face transformers, verbatim."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    relative_position_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(
        relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
    )
    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


def test_slopes_for_8_heads_halve_each_time():
    np.testing.assert_allclose(alibi_slopes(8), [2.0**-k for k in range(1, 9)], rtol=1e-15)


def test_slopes_for_12_heads_follow_the_paper_rule():
    slopes = alibi_slopes(12)
    # The 8 slopes of 8 heads, then slopes 1, 3, 5, 7 of 16 heads: 2^-0.5, 2^-1.5, ...
    expected = [2.0**-k for k in range(1, 9)] + [2.0 ** -(k / 2) for k in (1, 3, 5, 7)]
    np.testing.assert_allclose(slopes, expected, rtol=1e-15)
    np.testing.assert_allclose(slopes, paper_slopes(12), rtol=1e-14)


@pytest.mark.parametrize("num_heads", range(1, 70))
def test_slopes_match_the_paper_code(num_heads):
    slopes = alibi_slopes(num_heads)
    assert slopes.dtype == np.float64
    assert slopes.shape == (num_heads,)
    np.testing.assert_allclose(slopes, paper_slopes(num_heads), rtol=1e-13)
    assert len(set(slopes)) == num_heads
    assert np.all((slopes > 0) & (slopes < 1))


def test_bias_is_minus_slope_times_distance():
    bias = alibi_bias(3, 5)
    slopes = alibi_slopes(3)
    assert bias.shape == (3, 5, 5)
    assert bias.dtype == np.float64
    for h in range(3):
        for i in range(5):
            for j in range(5):
                assert bias[h, i, j] == -slopes[h] * abs(i - j)
    assert alibi_bias(2, 0).shape == (2, 0, 0)


CONFIGS = [
    {},
    {"bidirectional": False},
    {"num_buckets": 8, "max_distance": 16},
    {"num_buckets": 4, "max_distance": 2},
    {"num_buckets": 4, "max_distance": 3, "bidirectional": False},
    {"num_buckets": 64, "max_distance": 1000},
    {"num_buckets": 30, "max_distance": 40},
    {"num_buckets": 33, "max_distance": 100, "bidirectional": False},
]


@pytest.mark.parametrize("config", CONFIGS)
def test_buckets_match_the_t5_definition(config):
    relative = np.arange(-5000, 5001)
    expected = hf_relative_position_bucket(torch.from_numpy(relative), **config).numpy()
    buckets = t5_relative_bucket(relative, **config)
    assert buckets.dtype == np.int64
    np.testing.assert_array_equal(buckets, expected)
    assert buckets.min() == 0
    assert buckets.max() == config.get("num_buckets", 32) - 1


@pytest.mark.parametrize("config", CONFIGS)
def test_buckets_grow_with_distance_on_each_side(config):
    distance = np.arange(0, 3000)
    for sign in (1, -1):
        buckets = t5_relative_bucket(sign * distance, **config)
        if sign == 1 and not config.get("bidirectional", True):
            # A decoder never looks ahead: every key after the query is bucket 0.
            assert np.all(buckets == 0)
            continue
        assert np.all(np.diff(buckets[1:]) >= 0)
        half = config.get("num_buckets", 32) // (2 if config.get("bidirectional", True) else 1)
        exact = half // 2
        # One bucket per distance below the exact range, then shared buckets.
        assert len(np.unique(buckets[1:exact])) == exact - 1
        assert buckets[-1] == buckets.max()


def test_bucket_examples_from_the_definition():
    # Bidirectional, 32 buckets: 16 per sign, distances 0-7 exact, 8-127 log-spaced.
    assert t5_relative_bucket(np.array([0, -1, -7, 1, 7])).tolist() == [0, 1, 7, 17, 23]
    assert t5_relative_bucket(np.array([-128, -(10**6), 10**6])).tolist() == [15, 15, 31]
    assert t5_relative_bucket(np.array([[3, -3]]), bidirectional=False).tolist() == [[0, 3]]


def test_buckets_keep_the_shape_and_accept_any_integer_type():
    relative = np.arange(-6, 6, dtype=np.int16).reshape(3, 4)
    buckets = t5_relative_bucket(relative)
    assert buckets.shape == (3, 4)
    np.testing.assert_array_equal(buckets, t5_relative_bucket(relative.astype(np.int64)))
    assert t5_relative_bucket(5).shape == ()
    assert t5_relative_bucket([[-1, 2]]).tolist() == [[1, 18]]


@pytest.mark.parametrize("bidirectional", [True, False])
def test_buckets_at_the_ends_of_int64_and_uint64(bidirectional):
    """Review P12: np.abs(int64 min) stays negative (a negative bucket), and uint64 above 2**63 wrapped
    to a negative int64 (a key far ahead read as one far behind). Both ends go to the last buckets."""
    far = {"bidirectional": bidirectional}
    last_behind = t5_relative_bucket(np.array([-(10**6)]), **far)
    last_ahead = t5_relative_bucket(np.array([10**6]), **far)
    info = np.iinfo(np.int64)
    behind = t5_relative_bucket(np.array([info.min, info.min + 1, -(2**62) - 1]), **far)
    np.testing.assert_array_equal(behind, np.repeat(last_behind, 3))
    ahead = t5_relative_bucket(
        np.array([info.max, 2**63, 2**63 + 5, np.iinfo(np.uint64).max], np.uint64), **far
    )
    np.testing.assert_array_equal(ahead, np.repeat(last_ahead, 4))
    assert behind.min() >= 0 and ahead.max() <= 31
    assert t5_relative_bucket(np.array([-128], np.int8), **far) == last_behind


def test_buckets_of_an_empty_list():
    empty = t5_relative_bucket([])
    assert empty.shape == (0,) and empty.dtype == np.int64


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (
            lambda: t5_relative_bucket([1], max_distance=2**61 + 1),
            ValueError,
            r"max_distance must be <= 2\*\*61",
        ),
        (lambda: alibi_slopes(0), ValueError, "num_heads must be >= 1"),
        (lambda: alibi_slopes(-3), ValueError, "num_heads must be >= 1"),
        (lambda: alibi_slopes(8.0), TypeError, "num_heads must be an integer"),
        (lambda: alibi_slopes(True), TypeError, "num_heads must be an integer"),
        (lambda: alibi_bias(0, 4), ValueError, "num_heads must be >= 1"),
        (lambda: alibi_bias(4, -1), ValueError, "seq_len must be >= 0"),
        (lambda: alibi_bias(4, 2.5), TypeError, "seq_len must be an integer"),
        (lambda: t5_relative_bucket([1], num_buckets=3), ValueError, "num_buckets must be >= 4"),
        (lambda: t5_relative_bucket([1], num_buckets=2), ValueError, "num_buckets must be >= 4"),
        (lambda: t5_relative_bucket([1], num_buckets=31), ValueError, "num_buckets must be even when bidi"),
        (lambda: t5_relative_bucket([1], num_buckets=32.0), TypeError, "num_buckets must be an integer"),
        (lambda: t5_relative_bucket([1], num_buckets=True), TypeError, "num_buckets must be an integer"),
        (
            lambda: t5_relative_bucket([1], max_distance=8),
            ValueError,
            r"max_distance must be larger than the exact range num_buckets // 4 = 8, got 8",
        ),
        (
            lambda: t5_relative_bucket([1], max_distance=16, bidirectional=False),
            ValueError,
            r"max_distance must be larger than the exact range num_buckets // 2 = 16, got 16",
        ),
        (lambda: t5_relative_bucket([1], max_distance=128.0), TypeError, "max_distance must be an integer"),
        (lambda: t5_relative_bucket([1], bidirectional=1), TypeError, "bidirectional must be True or False"),
        (lambda: t5_relative_bucket([1.0, 2.0]), TypeError, "relative_position must be an integer array"),
        (lambda: t5_relative_bucket([True]), TypeError, "relative_position must be an integer array"),
        (lambda: t5_relative_bucket(["1"]), TypeError, "relative_position must be an integer array"),
    ],
)
def test_bad_input_names_argument_and_rule(call, error, words):
    with pytest.raises(error, match=words):
        call()
