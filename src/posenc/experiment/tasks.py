"""The two tasks of chapter 8's experiment: sequences whose label is a matter of position.

Both are made by a seeded NumPy generator, so that any batch can be made again: in the order task the label
says whether the first token is smaller than the last, in the relative task whether the last token's earlier
copy is three steps back. Without positions neither can be done better than chance.
:func:`~posenc.experiment.make_batch` hands a batch to the model as torch tensors, so this module imports
torch, and ``import posenc`` does not import it.
"""

from __future__ import annotations

import numpy as np
import torch

from posenc._checks import check_int

__all__ = ["TASKS", "make_batch", "order_task", "relative_task"]

ORDER_VOCAB = 16
RELATIVE_VOCAB = 16
RELATIVE_OFFSET = 3


def _check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def order_task(rng, batch_size: int, seq_len: int, *, vocab_size: int = ORDER_VOCAB):
    """Sequences labelled 1 when the first token is smaller than the last.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of all randomness; the same state gives the same batch.
    batch_size : int
        Number of sequences, >= 1.
    seq_len : int
        Length of every sequence, >= 2.
    vocab_size : int, default 16
        Tokens are ``0 ... vocab_size - 1``; >= 2.

    Returns
    -------
    tokens : numpy.ndarray
        Int64 array of shape ``(batch_size, seq_len)``.
    labels : numpy.ndarray
        Int64 array of shape ``(batch_size,)``, 1 if ``tokens[:, 0] < tokens[:, -1]``.

    Notes
    -----
    The tokens are independent and uniform, except that the last one never
    equals the first. Swapping the first and the last token flips the label
    and keeps the multiset of tokens, so a model that sees only the multiset
    (one without positions) cannot do better than chance: about 50 %.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc.experiment.tasks import order_task
    >>> tokens, labels = order_task(np.random.default_rng(0), batch_size=3, seq_len=5)
    >>> tokens
    array([[13, 10,  8,  4, 10],
           [ 0,  1,  0,  2, 10],
           [10, 14,  8,  9,  8]])
    >>> labels  # 1 where the first token is smaller than the last
    array([0, 1, 0])
    """
    rng = _check_rng(rng)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    seq_len = check_int("seq_len", seq_len, minimum=2)
    vocab_size = check_int("vocab_size", vocab_size, minimum=2)
    tokens = rng.integers(0, vocab_size, size=(batch_size, seq_len))
    # Uniform over the vocab_size - 1 tokens other than the first one: no ties.
    last = rng.integers(0, vocab_size - 1, size=batch_size)
    tokens[:, -1] = last + (last >= tokens[:, 0])
    return tokens, (tokens[:, 0] < tokens[:, -1]).astype(np.int64)


def relative_task(
    rng,
    batch_size: int,
    seq_len: int,
    *,
    vocab_size: int = RELATIVE_VOCAB,
    offset: int = RELATIVE_OFFSET,
    distance: int | None = None,
):
    """Sequences labelled 1 when the last token's earlier copy is ``offset`` steps back.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of all randomness; the same state gives the same batch.
    batch_size : int
        Number of sequences, >= 1.
    seq_len : int
        Length of every sequence, >= ``offset + 2``.
    vocab_size : int, default 16
        Tokens are ``0 ... vocab_size - 1``; >= 2.
    offset : int, default 3
        The distance that makes the label 1, >= 1.
    distance : int, optional
        Put every copy at this distance (``1 ... seq_len - 1``) instead of
        drawing it: then every label is 1 if ``distance == offset`` and 0
        otherwise. For probing which distance a model answers "yes" to.

    Returns
    -------
    tokens : numpy.ndarray
        Int64 array of shape ``(batch_size, seq_len)``.
    labels : numpy.ndarray
        Int64 array of shape ``(batch_size,)``: 1 if ``tokens[:, -1] ==
        tokens[:, -1 - offset]``.

    Notes
    -----
    The last token occurs exactly once before, at distance ``offset`` for
    about half of the sequences (label 1) and at a uniformly drawn other
    distance ``1 ... seq_len - 1`` for the rest; the other tokens are uniform
    over the rest of the vocabulary. Where the copy sits does not change the
    multiset of tokens, so without positions the task is at chance; and
    finding the copy is not enough, since every sequence has one: its
    distance is the answer.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc.experiment.tasks import relative_task
    >>> tokens, labels = relative_task(np.random.default_rng(0), batch_size=3, seq_len=6)
    >>> tokens
    array([[ 4,  4, 13,  1,  0, 13],
           [13,  9, 10,  7,  9, 10],
           [11,  8,  9,  9, 15,  8]])
    >>> labels  # 1 where the last token's copy is 3 steps back (13 and 10), 0 where it is elsewhere
    array([1, 1, 0])
    """
    rng = _check_rng(rng)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    offset = check_int("offset", offset, minimum=1)
    vocab_size = check_int("vocab_size", vocab_size, minimum=2)
    seq_len = check_int("seq_len", seq_len, minimum=offset + 2)
    if distance is not None:
        distance = check_int("distance", distance, minimum=1)
        if distance >= seq_len:
            raise ValueError(f"distance must be <= seq_len - 1 = {seq_len - 1}, got {distance}")
    last = rng.integers(0, vocab_size, size=batch_size)
    # Uniform over the vocab_size - 1 tokens other than the last one: skip over it.
    tokens = rng.integers(0, vocab_size - 1, size=(batch_size, seq_len))
    tokens += tokens >= last[:, np.newaxis]
    labels = rng.integers(0, 2, size=batch_size)
    # A distance other than offset, uniform over the seq_len - 2 others: skip over offset.
    other = rng.integers(1, seq_len - 1, size=batch_size)
    other += other >= offset
    if distance is None:
        distance = np.where(labels == 1, offset, other)
    else:
        labels = np.full(batch_size, int(distance == offset))
    rows = np.arange(batch_size)
    tokens[rows, seq_len - 1 - distance] = last
    tokens[:, -1] = last
    return tokens, labels.astype(np.int64)


TASKS = {
    "order": (order_task, ORDER_VOCAB),
    "relative": (relative_task, RELATIVE_VOCAB),
}
"""Task name -> (generator, vocabulary size)."""


def _check_task(task) -> str:
    if task not in TASKS:
        raise ValueError(f"task must be one of {tuple(TASKS)}, got {task!r}")
    return task


def make_batch(task: str, rng, batch_size: int, seq_len: int):
    """A batch of ``task`` as torch tensors ``(tokens, labels)``; see :data:`~posenc.experiment.tasks.TASKS`.

    Parameters
    ----------
    task : {"order", "relative"}
        The task, a key of :data:`~posenc.experiment.tasks.TASKS`.
    rng : numpy.random.Generator
        Source of all randomness.
    batch_size : int
        Number of sequences, >= 1.
    seq_len : int
        Length of every sequence.

    Returns
    -------
    tokens, labels : torch.Tensor
        Int64 tensors of shapes ``(batch_size, seq_len)`` and ``(batch_size,)``.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc.experiment.tasks import make_batch
    >>> tokens, labels = make_batch("order", np.random.default_rng(0), batch_size=4, seq_len=8)
    >>> tokens.dtype, tokens.shape, labels
    (torch.int64, torch.Size([4, 8]), tensor([0, 1, 0, 1]))
    """
    tokens, labels = TASKS[_check_task(task)][0](rng, batch_size, seq_len)
    return torch.from_numpy(tokens), torch.from_numpy(labels)
