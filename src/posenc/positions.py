"""Position ids as serving and training systems build them, in NumPy.

A RoPE model never sees a position it is not given: ``position_ids`` is an
input, next to the token ids. These helpers build it for the three cases of
chapter 9 (left-padded batches, packed documents, context parallelism); the
model that reads them is :class:`posenc.serving.TinyDecoder`.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np

from posenc._checks import check_int

if TYPE_CHECKING:  # the types of the annotations, for checkers only
    from collections.abc import Sequence

    from numpy.typing import ArrayLike


__all__ = ["load_balanced_positions", "packed_attention_mask", "packed_position_ids", "positions_from_mask"]


def positions_from_mask(attention_mask: ArrayLike) -> np.ndarray:
    """The position of every token of a padded batch, counted from its sequence's first real token.

    Parameters
    ----------
    attention_mask : array_like
        Shape ``(batch, seq_len)``, 1 (or True) for a real token and 0 (or
        False) for padding, as a tokenizer returns it.

    Returns
    -------
    numpy.ndarray
        Int64 array of shape ``(batch, seq_len)``: ``cumsum(mask) - 1`` at
        real tokens, 0 at padding (a padded row's position does not matter:
        no query attends to it). Left padding therefore starts every
        sequence at position 0, as if it were alone.

    Examples
    --------
    >>> positions_from_mask([[0, 0, 1, 1], [1, 1, 1, 1]])
    array([[0, 0, 0, 1],
           [0, 1, 2, 3]])
    """
    mask = np.asarray(attention_mask)
    if mask.dtype != np.bool_ and not np.issubdtype(mask.dtype, np.integer):
        raise TypeError(f"attention_mask must hold integers 0/1 or booleans, got dtype {mask.dtype}")
    if mask.ndim != 2:
        raise ValueError(f"attention_mask must have shape (batch, seq_len), got shape {mask.shape}")
    if mask.dtype != np.bool_ and mask.size and not np.isin(mask, (0, 1)).all():
        raise ValueError("attention_mask must hold only 0 (padding) and 1 (a real token)")
    mask = mask.astype(np.int64)
    return np.where(mask == 1, np.cumsum(mask, axis=1) - 1, 0)


def _check_lengths(lengths) -> np.ndarray:
    if isinstance(lengths, (str, bytes)) or not np.iterable(lengths):
        raise TypeError(f"lengths must be a sequence of integers (one per document), got {lengths!r}")
    values = list(lengths)
    if not values:
        raise ValueError("lengths must hold at least one document length")
    for value in values:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            raise TypeError(f"lengths must hold integers, got {value!r} of type {type(value).__name__}")
        if value < 1:
            raise ValueError(f"lengths must be >= 1 (a document has at least one token), got {value}")
    return np.asarray(values, dtype=np.int64)


def packed_position_ids(lengths: Sequence[int]) -> np.ndarray:
    """Position ids of documents packed into one row: every document restarts at 0.

    Parameters
    ----------
    lengths : sequence of int
        The length of each document, in packing order; integers >= 1.

    Returns
    -------
    numpy.ndarray
        Int64 array of length ``sum(lengths)``.

    Examples
    --------
    >>> packed_position_ids([3, 2, 4])
    array([0, 1, 2, 0, 1, 0, 1, 2, 3])
    """
    lengths = _check_lengths(lengths)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.arange(lengths.sum(), dtype=np.int64) - starts


def packed_attention_mask(lengths: Sequence[int], *, causal: bool = True) -> np.ndarray:
    """Which token of a packed row may attend to which: the block-diagonal mask.

    Parameters
    ----------
    lengths : sequence of int
        The length of each document, in packing order; integers >= 1.
    causal : bool, default True
        Also hide later tokens of the same document (a decoder).

    Returns
    -------
    numpy.ndarray
        Boolean array of shape ``(total, total)`` with ``total = sum(lengths)``:
        entry ``[q, k]`` is True where query ``q`` may see key ``k``, that is,
        both belong to the same document (and ``k <= q`` if ``causal``).

    Examples
    --------
    >>> packed_attention_mask([2, 1]).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [0, 0, 1]])
    """
    lengths = _check_lengths(lengths)
    if not isinstance(causal, (bool, np.bool_)):
        raise TypeError(f"causal must be True or False, got {causal!r} of type {type(causal).__name__}")
    document = np.repeat(np.arange(lengths.size), lengths)
    mask = document[:, None] == document[None, :]
    if causal:
        mask &= np.tri(document.size, dtype=bool)
    return mask


def load_balanced_positions(seq_len: int, ranks: int) -> np.ndarray:
    """The positions each rank holds under load-balanced context parallelism.

    Parameters
    ----------
    seq_len : int
        Length of the sequence, a multiple of ``2 * ranks``.
    ranks : int
        Number of ranks (devices) that share the sequence, >= 1.

    Returns
    -------
    numpy.ndarray
        Int64 array of shape ``(ranks, seq_len // ranks)``: the sequence cut
        into ``2 * ranks`` equal chunks, rank ``r`` holding chunks ``r`` and
        ``2 * ranks - 1 - r``. Under a causal mask an early chunk has little
        work and a late one much; pairing them gives every rank the same
        number of (query, key) pairs. Each rank rotates its queries and keys
        by these positions, not by ``0 ... seq_len // ranks - 1``.

    Examples
    --------
    >>> load_balanced_positions(8, 2)
    array([[0, 1, 6, 7],
           [2, 3, 4, 5]])
    """
    seq_len = check_int("seq_len", seq_len, minimum=1)
    ranks = check_int("ranks", ranks, minimum=1)
    if seq_len % (2 * ranks):
        raise ValueError(
            f"seq_len must be a multiple of 2 * ranks = {2 * ranks} (two equal chunks per rank), "
            f"got {seq_len}"
        )
    chunks = np.arange(seq_len, dtype=np.int64).reshape(2 * ranks, -1)
    return np.concatenate((chunks[:ranks], chunks[::-1][:ranks]), axis=1)
