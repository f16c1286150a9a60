"""Relative position biases: ALiBi (Press et al., 2022) and T5's buckets (Raffel et al., 2020).

Both add a number to the attention logit of query ``i`` and key ``j`` that
depends only on ``j - i``: a fixed line for ALiBi, a learned scalar per
bucket of distances for T5. This module computes the fixed parts.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from posenc._checks import check_int

if TYPE_CHECKING:  # the types of the annotations, for checkers only
    from numpy.typing import ArrayLike


__all__ = ["alibi_bias", "alibi_slopes", "t5_relative_bucket"]


#: The largest distance t5_relative_bucket looks at: larger ones are clipped to it (see there).
_DISTANCE_CLIP = 2**62


def _power_of_two_slopes(n: int) -> np.ndarray:
    return 2.0 ** (-8.0 * np.arange(1, n + 1) / n)


def alibi_slopes(num_heads: int) -> np.ndarray:
    """The per-head slopes of ALiBi.

    Parameters
    ----------
    num_heads : int
        Number of attention heads, >= 1.

    Returns
    -------
    numpy.ndarray
        Float64 array of length ``num_heads``. For a power of two ``n`` it is
        the geometric sequence ``2 ** (-8 k / n)``, ``k = 1 ... n``. Otherwise,
        as in the paper's code, the ``p`` slopes of the largest power of two
        ``p < n``, followed by the first ``n - p`` of every other slope of
        ``2p`` heads (those that fall between the first ones).

    Examples
    --------
    >>> alibi_slopes(4)
    array([0.25      , 0.0625    , 0.015625  , 0.00390625])
    """
    num_heads = check_int("num_heads", num_heads, minimum=1)
    closest = 1 << (num_heads.bit_length() - 1)
    slopes = _power_of_two_slopes(closest)
    if closest == num_heads:
        return slopes
    extra = _power_of_two_slopes(2 * closest)[0::2][: num_heads - closest]
    return np.concatenate((slopes, extra))


def alibi_bias(num_heads: int, seq_len: int) -> np.ndarray:
    """ALiBi's bias ``-slope_h * |i - j|`` for every head, query ``i`` and key ``j``.

    Parameters
    ----------
    num_heads : int
        Number of attention heads, >= 1.
    seq_len : int
        Number of positions, >= 0.

    Returns
    -------
    numpy.ndarray
        Float64 array of shape ``(num_heads, seq_len, seq_len)`` to add to the
        attention logits. It is symmetric in ``i, j``; a causal model masks
        ``j > i`` itself.

    Examples
    --------
    >>> alibi_bias(1, 3)
    array([[[ 0.        , -0.00390625, -0.0078125 ],
            [-0.00390625,  0.        , -0.00390625],
            [-0.0078125 , -0.00390625,  0.        ]]])
    """
    slopes = alibi_slopes(num_heads)
    seq_len = check_int("seq_len", seq_len)
    position = np.arange(seq_len)
    distance = np.abs(position[:, np.newaxis] - position[np.newaxis, :])
    # slope * (-distance) rather than -slope * distance: the diagonal is +0.0, not -0.0.
    return slopes[:, np.newaxis, np.newaxis] * -distance


def t5_relative_bucket(
    relative_position: ArrayLike,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> np.ndarray:
    """T5's bucket index of each relative position.

    Parameters
    ----------
    relative_position : array_like of int
        ``key_position - query_position``, any shape, of any integer type
        (the whole range of int64 and uint64; an empty list is accepted).
    bidirectional : bool, default True
        If True (encoder), half the buckets are for keys after the query
        (``relative_position > 0``) and half for the rest. If False (decoder),
        keys after the query all share bucket 0 with distance 0.
    num_buckets : int, default 32
        Number of buckets, >= 4; even when ``bidirectional``.
    max_distance : int, default 128
        Distance from which on all positions share the last bucket; larger than
        the exact range ``num_buckets // 4`` (bidirectional) or
        ``num_buckets // 2``, and <= 2**61.

    Returns
    -------
    numpy.ndarray
        Int64 array of ``relative_position``'s shape with values in
        ``0 ... num_buckets - 1``.

    Notes
    -----
    Transcribed from Mesh TensorFlow's ``_relative_position_bucket`` and the
    Hugging Face port. Of the ``b`` buckets for one sign (``num_buckets`` or
    half of it), distances below ``e = b // 2`` get a bucket each; a distance
    ``n >= e`` gets ``e + int(log(n / e) / log(max_distance / e) * (b - e))``,
    at most ``b - 1``. As in both originals the logarithm is taken in float32,
    so the boundaries fall exactly where a T5 checkpoint expects them.

    Examples
    --------
    >>> t5_relative_bucket([-3, -1, 0, 1, 3, 100, 1000], num_buckets=8, max_distance=16)
    array([2, 1, 0, 5, 6, 7, 7])
    """
    if not isinstance(bidirectional, (bool, np.bool_)):
        raise TypeError(f"bidirectional must be True or False, got {bidirectional!r}")
    num_buckets = check_int("num_buckets", num_buckets, minimum=4)
    if bidirectional and num_buckets % 2:
        raise ValueError(f"num_buckets must be even when bidirectional, got {num_buckets}")
    max_distance = check_int("max_distance", max_distance)
    if max_distance > _DISTANCE_CLIP // 2:
        raise ValueError(
            f"max_distance must be <= 2**61 (distances are clipped to 2**62), got {max_distance}"
        )
    exact = num_buckets // 4 if bidirectional else num_buckets // 2
    if max_distance <= exact:
        rule = "num_buckets // 4" if bidirectional else "num_buckets // 2"
        raise ValueError(
            f"max_distance must be larger than the exact range {rule} = {exact}, got {max_distance}"
        )
    relative_position = np.asarray(relative_position)
    if relative_position.size == 0 and relative_position.dtype == np.float64:
        # np.asarray([]) is float64: an empty list holds no position of any type.
        relative_position = relative_position.astype(np.int64)
    if relative_position.dtype == np.bool_ or not np.issubdtype(relative_position.dtype, np.integer):
        raise TypeError(f"relative_position must be an integer array, got dtype {relative_position.dtype}")

    # Every distance from max_distance on is in the last bucket, so clipping to +-2**62 changes no bucket.
    # It keeps np.abs off int64's minimum (whose absolute value int64 cannot hold: it stays negative and
    # gave a negative bucket) and uint64 values above 2**63 from wrapping to negative int64 (a key far
    # ahead of the query read as one far behind it).
    if relative_position.dtype == np.uint64:
        n = np.minimum(relative_position, np.uint64(_DISTANCE_CLIP)).astype(np.int64)
    else:
        n = np.clip(relative_position.astype(np.int64), -_DISTANCE_CLIP, _DISTANCE_CLIP)
    buckets = np.zeros(n.shape, np.int64)
    if bidirectional:
        num_buckets //= 2
        buckets += (n > 0) * num_buckets
        n = np.abs(n)
    else:
        n = -np.minimum(n, 0)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    # The large branch is only used where n >= max_exact; clamping first keeps
    # log(0) and its warning out of the masked entries.
    large = np.maximum(n, max_exact).astype(np.float32)
    log_ratio = np.log(large / np.float32(max_exact)) / np.float32(math.log(max_distance / max_exact))
    if_large = max_exact + (log_ratio * np.float32(num_buckets - max_exact)).astype(np.int64)
    if_large = np.minimum(if_large, num_buckets - 1)
    buckets += np.where(is_small, n, if_large)
    return buckets
