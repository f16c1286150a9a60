"""What position buys: small Transformers trained with and without each encoding.

Two synthetic tasks, made by a seeded generator, whose answer is a matter of
position; one small model with a ``position`` option; a training loop; and
evaluation at longer lengths than the training ones. Everything runs on one
CPU thread in seconds. Like :mod:`posenc.nn`, this module imports torch, and
``import posenc`` does not import it.

Run ``python -m posenc.experiment --bench`` to time every variant, ``python -m
posenc.experiment sweep`` to train every model of chapter 8 and write its results
file (:mod:`posenc.results`), and ``python -m posenc.experiment check`` to
compare a fresh sweep with that file.
"""

from __future__ import annotations

import argparse
import copy
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from posenc import results as _results
from posenc._checks import check_int, check_real
from posenc.nn import PositionalEncoding, RotaryEmbedding
from posenc.relative import alibi_bias
from posenc.results import Record, Results, band
from posenc.rope import rope_frequencies
from posenc.scaling import scaled_frequencies, yarn_attention_factor

__all__ = [
    "CONTROL",
    "DISTANCES",
    "DISTANCE_LENGTH",
    "DISTANCE_RECIPES",
    "FORMULA_LENGTH",
    "POSITIONS",
    "PROBES",
    "RECIPES",
    "SEEDS",
    "TASKS",
    "TEST_LENGTHS",
    "Attention",
    "Block",
    "Curve",
    "RescaledRotary",
    "RunResult",
    "TinyTransformer",
    "answers_by_distance",
    "band",
    "chapter_sweep",
    "evaluate",
    "evaluate_by_label",
    "fine_tune",
    "format_table",
    "make_batch",
    "order_task",
    "recipe_frequencies",
    "relative_task",
    "rescaled",
    "run",
    "sweep",
    "to_results",
    "train",
]

POSITIONS = ("none", "nope", "sinusoidal", "learned", "rope", "alibi")
"""The variants: how (and whether) the model is told where each token is."""

FORMULA_LENGTH = 1024
"""Positions covered by the tables of the formula-based encodings (sinusoid, RoPE).

A formula is defined at every position, so these variants accept any length up
to this one; only the learned table is limited to the lengths it was trained on.
"""

ORDER_VOCAB = 16
RELATIVE_VOCAB = 16
RELATIVE_OFFSET = 3


# --------------------------------------------------------------------------- tasks


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
    >>> from posenc.experiment import order_task
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
    >>> from posenc.experiment import relative_task
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
    """A batch of ``task`` as torch tensors ``(tokens, labels)``; see :data:`TASKS`.

    Parameters
    ----------
    task : {"order", "relative"}
        The task, a key of :data:`TASKS`.
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
    >>> from posenc.experiment import make_batch
    >>> tokens, labels = make_batch("order", np.random.default_rng(0), batch_size=4, seq_len=8)
    >>> tokens.dtype, tokens.shape, labels
    (torch.int64, torch.Size([4, 8]), tensor([0, 1, 0, 1]))
    """
    tokens, labels = TASKS[_check_task(task)][0](rng, batch_size, seq_len)
    return torch.from_numpy(tokens), torch.from_numpy(labels)


# --------------------------------------------------------------------------- model


class Attention(nn.Module):
    """Multi-head self-attention; RoPE rotates q and k, masks and ALiBi are added to the scores.

    Parameters
    ----------
    d_model : int
        Width of the residual stream; a multiple of ``num_heads``.
    num_heads : int
        Number of heads, >= 1.
    rope : bool
        Rotate queries and keys by their positions (rotary embedding) before the scores.

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment import Attention
    >>> _ = torch.manual_seed(0)
    >>> attention = Attention(d_model=32, num_heads=4, rope=True)
    >>> x = torch.randn(2, 5, 32)  # (batch, seq, d_model)
    >>> causal = torch.full((5, 5), float("-inf")).triu(diagonal=1)  # query i sees keys j <= i
    >>> attention(x, causal).shape
    torch.Size([2, 5, 32])
    """

    def __init__(self, d_model: int, num_heads: int, *, rope: bool) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.rope = RotaryEmbedding(d_model // num_heads, FORMULA_LENGTH) if rope else None

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """``x`` is ``(batch, seq, d_model)``; ``bias`` is added to the ``(heads, seq, seq)`` scores."""
        batch, seq_len, d_model = x.shape
        # (batch, seq, 3 * d_model) -> three tensors of shape (batch, heads, seq, head_dim)
        q, k, v = self.qkv(x).view(batch, seq_len, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        if self.rope is not None:
            q, k = self.rope(q), self.rope(k)  # v is not rotated: positions live in the scores only
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)) + bias
        mixed = scores.softmax(dim=-1) @ v
        return self.out(mixed.transpose(1, 2).reshape(batch, seq_len, d_model))


class Block(nn.Module):
    """One pre-norm Transformer layer: attention, then a two-layer MLP, each added to the residual.

    Parameters
    ----------
    d_model : int
        Width of the residual stream; a multiple of ``num_heads``.
    num_heads : int
        Number of heads, >= 1.
    rope : bool
        Whether its :class:`Attention` rotates queries and keys.

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment import Block
    >>> _ = torch.manual_seed(0)
    >>> block = Block(d_model=32, num_heads=4, rope=False)
    >>> block(torch.randn(2, 5, 32), torch.zeros(5, 5)).shape  # no mask: every token sees every token
    torch.Size([2, 5, 32])
    """

    def __init__(self, d_model: int, num_heads: int, *, rope: bool) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attention = Attention(d_model, num_heads, rope=rope)
        self.norm2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.norm1(x), bias)
        return x + self.mlp(self.norm2(x))


class TinyTransformer(nn.Module):
    """A small Transformer classifier whose only difference between variants is position.

    Parameters
    ----------
    vocab_size : int
        Number of token ids, >= 2.
    position : {"none", "nope", "sinusoidal", "learned", "rope", "alibi"}
        ``"none"``: no positions, bidirectional attention, mean of all tokens.
        Every other variant is causal (token ``i`` attends to ``j <= i``) and
        reads its answer at the last token: ``"nope"`` adds nothing else;
        ``"sinusoidal"`` adds :class:`posenc.nn.PositionalEncoding`;
        ``"learned"`` adds a trained row per position; ``"rope"`` rotates
        queries and keys (:class:`posenc.nn.RotaryEmbedding`); ``"alibi"``
        adds :func:`posenc.alibi_bias` to the scores.
    max_seq_length : int, default 16
        Rows of the learned table, >= 1; the learned variant refuses longer
        sequences. The others accept up to :data:`FORMULA_LENGTH` tokens.
    d_model : int, default 32
        Width of the residual stream; even and a multiple of ``num_heads``.
    num_heads : int, default 4
        Attention heads per layer, >= 1.
    num_layers : int, default 2
        Number of blocks, >= 1.
    num_classes : int, default 2
        Number of outputs (logits), >= 2.

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment import TinyTransformer
    >>> _ = torch.manual_seed(0)
    >>> model = TinyTransformer(vocab_size=16, position="alibi")
    >>> model(torch.randint(0, 16, (4, 8))).shape  # two logits per sequence
    torch.Size([4, 2])

    Every layer adds the same bias to its scores: the causal mask, and for ALiBi a penalty that grows
    with the distance, one slope per head.

    >>> model.attention_bias(3)[0]  # head 0, slope 1/4
    tensor([[ 0.0000,    -inf,    -inf],
            [-0.2500,  0.0000,    -inf],
            [-0.5000, -0.2500,  0.0000]])
    """

    def __init__(
        self,
        vocab_size: int,
        *,
        position: str,
        max_seq_length: int = 16,
        d_model: int = 32,
        num_heads: int = 4,
        num_layers: int = 2,
        num_classes: int = 2,
    ) -> None:
        super().__init__()
        if position not in POSITIONS:
            raise ValueError(f"position must be one of {POSITIONS}, got {position!r}")
        self.position = position
        vocab_size = check_int("vocab_size", vocab_size, minimum=2)
        self.max_seq_length = check_int("max_seq_length", max_seq_length, minimum=1)
        d_model = check_int("d_model", d_model, minimum=2)
        self.num_heads = check_int("num_heads", num_heads, minimum=1)
        num_layers = check_int("num_layers", num_layers, minimum=1)
        num_classes = check_int("num_classes", num_classes, minimum=2)
        if d_model % (2 * self.num_heads):
            raise ValueError(
                f"d_model must be a multiple of 2 * num_heads = {2 * self.num_heads} "
                f"(an even width per head, for RoPE's pairs), got {d_model}"
            )
        # Plain N(0, 1) rows, norm about sqrt(d_model): the same order as the sinusoid's sqrt(d_model / 2).
        self.embedding = nn.Embedding(vocab_size, d_model)
        if position == "sinusoidal":
            self.sinusoid = PositionalEncoding(d_model, FORMULA_LENGTH)
        if position == "learned":
            self.position_embedding = nn.Embedding(self.max_seq_length, d_model)
        self.blocks = nn.ModuleList(
            Block(d_model, self.num_heads, rope=position == "rope") for _ in range(num_layers)
        )
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)

    def attention_bias(self, seq_len: int) -> torch.Tensor:
        """What every layer adds to its scores: 0, the causal mask, and ALiBi's penalty."""
        bias = torch.zeros(self.num_heads, seq_len, seq_len)
        if self.position == "alibi":
            bias += torch.from_numpy(alibi_bias(self.num_heads, seq_len)).float()
        if self.position != "none":
            future = torch.ones(seq_len, seq_len, dtype=torch.bool).triu(diagonal=1)
            bias = bias.masked_fill(future, float("-inf"))
        return bias.to(self.head.weight.dtype)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits of shape ``(batch, num_classes)`` for ``tokens`` of shape ``(batch, seq)``."""
        if tokens.dim() != 2:
            raise ValueError(f"tokens must have shape (batch, seq), got {tuple(tokens.shape)}")
        seq_len = tokens.size(1)
        x = self.embedding(tokens)
        if self.position == "sinusoidal":
            x = self.sinusoid(x)
        if self.position == "learned":
            if seq_len > self.max_seq_length:
                raise ValueError(
                    f"sequence length {seq_len} exceeds max_seq_length {self.max_seq_length}: "
                    f"the learned table has no row for positions {self.max_seq_length} and beyond"
                )
            x = x + self.position_embedding.weight[:seq_len]
        bias = self.attention_bias(seq_len)
        for block in self.blocks:
            x = block(x, bias)
        x = self.norm(x)
        # Without positions the mean is the honest summary; a causal model's last token has seen everything.
        summary = x.mean(dim=1) if self.position == "none" else x[:, -1]
        return self.head(summary)


# --------------------------------------------------------------------------- training


def _reproducible(seed: int) -> None:
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    torch.manual_seed(seed)


@torch.no_grad()
def evaluate_by_label(
    model: TinyTransformer, task: str, seq_len: int, *, num_sequences: int = 500, seed: int = 0
) -> tuple[tuple[int, int], tuple[int, int]]:
    """Right answers of ``model`` per label on fresh test sequences of length ``seq_len``.

    Parameters
    ----------
    model : TinyTransformer
        The model; it is put in evaluation mode and back.
    task : {"order", "relative"}
        The task.
    seq_len : int
        Length of the test sequences, >= 2.
    num_sequences : int, default 500
        Number of test sequences, >= 1.
    seed : int, default 0
        Seed of the test sequences.

    Returns
    -------
    tuple
        ``((right, total) for label 0, (right, total) for label 1)``: a
        confusion matrix in two rows. A model that always answers "no" gets
        all of label 0 and none of label 1, whatever its total accuracy says.

    Notes
    -----
    The test sequences depend only on ``(task, seq_len, seed)``, so every
    variant is scored on the same ones; they are drawn from a generator that
    training never uses.

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment import TinyTransformer, evaluate_by_label
    >>> _ = torch.manual_seed(0)
    >>> model = TinyTransformer(vocab_size=16, position="rope")  # untrained
    >>> (right_0, total_0), (right_1, total_1) = evaluate_by_label(model, "order", 16, num_sequences=100)
    >>> total_0 + total_1, 0 <= right_0 <= total_0 and 0 <= right_1 <= total_1
    (100, True)
    """
    _check_task(task)
    seq_len = check_int("seq_len", seq_len, minimum=2)
    num_sequences = check_int("num_sequences", num_sequences, minimum=1)
    seed = check_int("seed", seed)
    rng = np.random.default_rng([seed, 1, seq_len])
    tokens, labels = make_batch(task, rng, num_sequences, seq_len)
    was_training = model.training
    model.eval()
    right = model(tokens).argmax(dim=-1) == labels
    model.train(was_training)
    return tuple((int(right[labels == n].sum()), int((labels == n).sum())) for n in (0, 1))


@torch.no_grad()
def answers_by_distance(
    model: TinyTransformer, seq_len: int, distances, *, num_sequences: int = 200, seed: int = 0
) -> dict[int, tuple[int, int]]:
    """How often ``model`` answers "yes" on the relative task when every copy is ``d`` steps back.

    Parameters
    ----------
    model : TinyTransformer
        The model, trained on the relative task.
    seq_len : int
        Length of the test sequences, >= 5.
    distances : iterable of int
        The distances to test, each ``1 ... seq_len - 1``.
    num_sequences : int, default 200
        Test sequences per distance, >= 1.
    seed : int, default 0
        Seed of the test sequences.

    Returns
    -------
    dict
        Distance ``d`` -> ``(yes, num_sequences)``. A model that has learned
        the task answers "yes" at distance 3 only; one whose distances are
        squeezed by a factor ``s`` (position interpolation) should answer
        "yes" where ``d / s`` looks like 3 to it.

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment import TinyTransformer, answers_by_distance
    >>> _ = torch.manual_seed(0)
    >>> model = TinyTransformer(vocab_size=16, position="rope")  # untrained: its "yes" means nothing yet
    >>> answers = answers_by_distance(model, 16, [1, 3, 5], num_sequences=10)
    >>> list(answers), [total for _, total in answers.values()]
    ([1, 3, 5], [10, 10, 10])
    """
    seq_len = check_int("seq_len", seq_len, minimum=RELATIVE_OFFSET + 2)
    num_sequences = check_int("num_sequences", num_sequences, minimum=1)
    seed = check_int("seed", seed)
    was_training = model.training
    model.eval()
    counts = {}
    for d in distances:
        rng = np.random.default_rng([seed, 3, seq_len, check_int("distances", d, minimum=1)])
        tokens, _ = relative_task(rng, num_sequences, seq_len, distance=d)
        counts[d] = (int((model(torch.from_numpy(tokens)).argmax(dim=-1) == 1).sum()), num_sequences)
    model.train(was_training)
    return counts


def evaluate(model: TinyTransformer, task: str, seq_len: int, *, num_sequences: int = 500, seed: int = 0):
    """Accuracy of ``model`` on ``num_sequences`` fresh sequences of length ``seq_len``.

    The same test sequences as :func:`evaluate_by_label`, which splits the
    answers by label.

    Parameters
    ----------
    model : TinyTransformer
        The model.
    task : {"order", "relative"}
        The task.
    seq_len : int
        Length of the test sequences, >= 2.
    num_sequences : int, default 500
        Number of test sequences, >= 1.
    seed : int, default 0
        Seed of the test sequences.

    Returns
    -------
    float
        The share of right answers, in [0, 1].

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment import TinyTransformer, evaluate, evaluate_by_label
    >>> _ = torch.manual_seed(0)
    >>> model = TinyTransformer(vocab_size=16, position="sinusoidal")
    >>> counts = evaluate_by_label(model, "relative", 16, num_sequences=100)
    >>> evaluate(model, "relative", 16, num_sequences=100) == sum(right for right, _ in counts) / 100
    True
    """
    counts = evaluate_by_label(model, task, seq_len, num_sequences=num_sequences, seed=seed)
    return sum(right for right, _ in counts) / num_sequences


@dataclass
class Curve:
    """Learning curve: training loss and accuracy, each the mean over the batches since the last record.

    Attributes
    ----------
    steps : list of int
        The step at which each point was recorded.
    loss, accuracy : list of float
        The mean training loss and accuracy over the batches since the previous point.

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment import TinyTransformer, train
    >>> _ = torch.manual_seed(0)
    >>> curve = train(TinyTransformer(vocab_size=16, position="rope"), "order", steps=20, record_every=10)
    >>> curve.steps, len(curve.loss), len(curve.accuracy)
    ([10, 20], 2, 2)
    """

    steps: list[int] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)
    accuracy: list[float] = field(default_factory=list)


def train(
    model: TinyTransformer,
    task: str,
    *,
    steps: int = 600,
    batch_size: int = 32,
    lengths: tuple[int, int] = (8, 16),
    lr: float = 3e-3,
    seed: int = 0,
    stream: int = 0,
    record_every: int = 25,
    log=None,
) -> Curve:
    """Train ``model`` on ``task`` with AdamW; return its learning curve.

    Parameters
    ----------
    model : TinyTransformer
    task : {"order", "relative"}
    steps : int, default 600
        Optimizer steps, >= 1.
    batch_size : int, default 32
        Sequences per step, >= 1.
    lengths : (int, int), default (8, 16)
        Each step draws one length uniformly from ``lengths[0] ... lengths[1]``
        for its whole batch, so no padding is needed and a model cannot rely on
        one fixed length.
    lr : float, default 3e-3
        Peak learning rate, > 0; it decays linearly to 0 over the steps.
    seed : int, default 0
        Seed of the training data; the same seed gives every variant the same batches.
    stream : int, default 0
        Which of the seed's data streams to draw from: 0 for training, 2 for
        a fine-tune (:func:`fine_tune`); 1 is the test sequences', so it is refused.
    record_every : int, default 25
        Record the curve every this many steps, >= 1.
    log : callable, optional
        Called as ``log(step, loss, accuracy)`` at every record.

    Returns
    -------
    Curve
        The learning curve, one point every ``record_every`` steps.

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment import TinyTransformer, evaluate, train
    >>> _ = torch.manual_seed(0)
    >>> model = TinyTransformer(vocab_size=16, position="rope")
    >>> curve = train(model, "order", steps=50, record_every=25)
    >>> curve.steps
    [25, 50]
    >>> 0 <= evaluate(model, "order", 16) <= 1
    True
    """
    _check_task(task)
    steps = check_int("steps", steps, minimum=1)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    low, high = (check_int("lengths", n, minimum=2) for n in lengths)
    if low > high:
        raise ValueError(f"lengths must be (shortest, longest) with shortest <= longest, got {lengths}")
    lr = check_real("lr", lr)
    if lr <= 0:
        raise ValueError(f"lr must be > 0, got {lr}")
    seed = check_int("seed", seed)
    stream = check_int("stream", stream)
    if stream == 1:
        raise ValueError("stream must not be 1: that stream holds the test sequences (evaluate)")
    record_every = check_int("record_every", record_every, minimum=1)
    rng = np.random.default_rng([seed, stream])
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    # The learning rate falls linearly to 0: the last steps settle the weights instead of shaking them.
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda done: 1 - done / steps)
    curve, losses, hits = Curve(), [], []
    for step in range(1, steps + 1):
        tokens, labels = make_batch(task, rng, batch_size, int(rng.integers(low, high + 1)))
        logits = model(tokens)
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        # Every batch is fresh data, so its accuracy before the step estimates the test accuracy.
        losses.append(loss.item())
        hits.append((logits.argmax(dim=-1) == labels).double().mean().item())
        if step % record_every == 0 or step == steps:
            curve.steps.append(step)
            curve.loss.append(sum(losses) / len(losses))
            curve.accuracy.append(sum(hits) / len(hits))
            losses, hits = [], []
            if log is not None:
                log(step, curve.loss[-1], curve.accuracy[-1])
    return curve


@dataclass
class RunResult:
    """One trained variant: its accuracy at each test length (None where it cannot run), curve, time.

    Examples
    --------
    >>> from posenc.experiment import run
    >>> result = run("order", "learned", steps=10)  # trained on 8 to 16 tokens
    >>> result.task, result.position, list(result.accuracy)
    ('order', 'learned', [16, 32, 64])
    >>> result.accuracy[32] is None  # a learned table of 16 rows cannot read 32 tokens
    True
    >>> result.error  # doctest: +ELLIPSIS
    'sequence length 32 exceeds max_seq_length 16: the learned table has no row for positions 16 ...'
    """

    task: str
    position: str
    accuracy: dict[int, float | None]
    curve: Curve
    seconds: float
    model: TinyTransformer = field(repr=False)
    error: str | None = None
    seed: int = 0
    correct: dict = field(default_factory=dict, repr=False)


def run(
    task: str,
    position: str,
    *,
    seed: int = 0,
    steps: int = 600,
    train_length: int = 16,
    test_factors: tuple[int, ...] = (1, 2, 4),
    build=None,
    **train_options,
) -> RunResult:
    """Build a fresh model, train it, and test it at ``factor * train_length`` for each factor.

    Sets ``torch.use_deterministic_algorithms(True)``, one thread, and the
    seed, so a run gives the same numbers every time on the same machine.
    Training lengths are ``train_length // 2 ... train_length``. The learned
    variant has ``train_length`` rows; at longer test lengths its accuracy is
    ``None`` and ``error`` holds the message it raised. ``correct`` holds the
    right answers per label at each length (:func:`evaluate_by_label`).

    ``build``, if given, makes the model instead of :class:`TinyTransformer`:
    it is called as ``build(vocab_size, max_seq_length=train_length)`` after
    seeding and must return a :class:`TinyTransformer` (a subclass that
    overrides :meth:`TinyTransformer.attention_bias`, say); ``position`` then
    only names the result. This is how the capstone project adds a method.

    Examples
    --------
    >>> from posenc.experiment import run
    >>> result = run("order", "rope", steps=20, test_factors=(1, 2))
    >>> list(result.accuracy), all(0 <= value <= 1 for value in result.accuracy.values())
    ([16, 32], True)

    Running it again gives the same numbers (on the same machine; training is chaotic, and another CPU's
    kernels move the last bits, then the accuracies):

    >>> run("order", "rope", steps=20, test_factors=(1, 2)).accuracy == result.accuracy
    True
    """
    _check_task(task)
    seed = check_int("seed", seed)
    train_length = check_int("train_length", train_length, minimum=4)
    factors = [check_int("test_factors", factor, minimum=1) for factor in test_factors]
    if build is not None and not callable(build):
        raise TypeError(f"build must be callable (vocab_size, max_seq_length=...) -> model, got {build!r}")
    _reproducible(seed)
    if build is None:
        model = TinyTransformer(TASKS[task][1], position=position, max_seq_length=train_length)
    else:
        model = build(TASKS[task][1], max_seq_length=train_length)
        if not isinstance(model, TinyTransformer):
            raise TypeError(f"build must return a TinyTransformer or a subclass, got {type(model).__name__}")
    start = time.perf_counter()
    lengths = (train_length // 2, train_length)
    curve = train(model, task, steps=steps, lengths=lengths, seed=seed, **train_options)
    seconds = time.perf_counter() - start
    accuracy, correct, error = {}, {}, None
    for factor in factors:
        length = factor * train_length
        try:
            correct[length] = evaluate_by_label(model, task, length, seed=seed)
            accuracy[length] = sum(right for right, _ in correct[length]) / sum(n for _, n in correct[length])
        except ValueError as raised:
            if position != "learned":
                raise
            accuracy[length] = correct[length] = None
            error = error or str(raised)  # the first length it refused
    return RunResult(task, position, accuracy, curve, seconds, model, error, seed, correct)


# --------------------------------------------------------------------------- longer than trained

RECIPES = ("none", "linear", "ntk", "dynamic", "yarn", "yarn-paper", "llama3")
"""Ways to read a trained RoPE model at longer lengths (chapter 7), without or with a fine-tune.

``"none"`` keeps the trained frequencies; ``"linear"`` is position
interpolation; ``"ntk"`` NTK-aware scaling; ``"dynamic"`` dynamic NTK, which
rescales only as far as each sequence needs; ``"yarn"`` YaRN with the ramp of
its reference code (and Hugging Face's), ``"yarn-paper"`` with the paper's
ramp, both with YaRN's attention factor; ``"llama3"`` Llama 3.1's scaling. Each
is :func:`posenc.scaled_frequencies` with ``original_max_position`` the trained
length.
"""


PROBES = ("pi-fastest", "pi-others", "ntk-longest")
"""Recipes no one ships, each made to test one reading of the results.

``"pi-fastest"`` divides only the fastest pair's frequency ``theta_0`` by
``s``; ``"pi-others"`` divides every other pair's and keeps ``theta_0``:
together they make position interpolation. ``"ntk-longest"`` is NTK-aware
scaling at every length with the factor that dynamic NTK uses at the longest
test length ``s * L``, ``s * s - s + 1`` (13 for ``s = 4``).
"""


def recipe_frequencies(
    recipe: str, dim: int, seq_len: int, *, factor: float, original_max_position: int, base: float = 10000.0
) -> tuple[np.ndarray, float]:
    """The frequencies and the query/key scale that ``recipe`` uses for a sequence of ``seq_len`` tokens.

    Parameters
    ----------
    recipe : str
        One of :data:`RECIPES` or :data:`PROBES`.
    dim : int
        Head dimension; a positive even integer.
    seq_len : int
        Length of the sequence to read, >= 1 (dynamic NTK's frequencies depend on it).
    factor : float
        The extension ``s``.
    original_max_position : int
        The longest training length ``L``.
    base : float, default 10000.0
        The trained RoPE base.

    Returns
    -------
    frequencies : numpy.ndarray
        ``dim // 2`` frequencies, from :func:`posenc.scaled_frequencies`.
    scale : float
        What both the rotated queries and keys are multiplied by: YaRN's
        :func:`posenc.yarn_attention_factor` for the two YaRN recipes, 1 otherwise.

    Examples
    --------
    >>> from posenc.experiment import recipe_frequencies
    >>> theta, scale = recipe_frequencies("linear", 8, 64, factor=4.0, original_max_position=16)
    >>> theta.round(8)  # position interpolation: every frequency divided by 4
    array([0.25   , 0.025  , 0.0025 , 0.00025])
    >>> scale
    1.0
    >>> theta, scale = recipe_frequencies("yarn", 8, 64, factor=4.0, original_max_position=16)
    >>> round(scale, 4)  # YaRN also scales the queries and keys: 0.1 ln 4 + 1
    1.1386
    """
    if recipe not in RECIPES + PROBES:
        raise ValueError(f"recipe must be one of {RECIPES + PROBES}, got {recipe!r}")
    seq_len = check_int("seq_len", seq_len, minimum=1)
    if recipe == "none":
        return rope_frequencies(dim, base), 1.0
    if recipe == "ntk-longest":
        return scaled_frequencies(dim, factor * factor - factor + 1, method="ntk", base=base), 1.0
    if recipe in PROBES:
        theta = rope_frequencies(dim, base)
        interpolated = scaled_frequencies(dim, factor, method="linear", base=base)
        fastest = np.arange(theta.size) == 0
        return np.where(fastest == (recipe == "pi-fastest"), interpolated, theta), 1.0
    options = {"base": base, "original_max_position": original_max_position}
    if recipe == "dynamic":
        options["seq_len"] = seq_len
    if recipe.startswith("yarn"):
        options["ramp"] = "paper" if recipe == "yarn-paper" else "code"
    method = "yarn" if recipe.startswith("yarn") else recipe
    scale = yarn_attention_factor(factor) if method == "yarn" else 1.0
    return scaled_frequencies(dim, factor, method=method, **options), scale


class RescaledRotary(nn.Module):
    """A rotary embedding whose frequencies come from a context extension recipe.

    It replaces :class:`posenc.nn.RotaryEmbedding` inside a trained model
    (:func:`rescaled`) and rotates the same way; the tables are made for each
    sequence length, since dynamic NTK's frequencies depend on it, and kept.

    Parameters
    ----------
    dim : int
        Head dimension; a positive even integer.
    recipe : str
        One of :data:`RECIPES` or :data:`PROBES`.
    factor : float
        The extension ``s``.
    original_max_position : int
        The longest training length ``L``.

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment import RescaledRotary
    >>> rotary = RescaledRotary(8, "linear", factor=4.0, original_max_position=16)
    >>> rotary
    RescaledRotary(dim=8, recipe='linear', factor=4.0)
    >>> rotary(torch.ones(1, 2, 64, 8)).shape  # (batch, heads, seq, head_dim)
    torch.Size([1, 2, 64, 8])
    """

    def __init__(self, dim: int, recipe: str, *, factor: float, original_max_position: int) -> None:
        super().__init__()
        self.dim, self.recipe, self.factor = dim, recipe, factor
        self.original_max_position = original_max_position
        # Check the recipe and its arguments now, not at the first forward pass.
        recipe_frequencies(recipe, dim, 1, factor=factor, original_max_position=original_max_position)
        self._tables: dict[int, tuple[RotaryEmbedding, float]] = {}

    def extra_repr(self) -> str:
        return f"dim={self.dim}, recipe={self.recipe!r}, factor={self.factor}"

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        seq_len = x.size(-2)
        if seq_len not in self._tables:
            theta, scale = recipe_frequencies(
                self.recipe, self.dim, seq_len, factor=self.factor,
                original_max_position=self.original_max_position,
            )
            self._tables[seq_len] = (RotaryEmbedding(self.dim, seq_len, frequencies=theta), scale)
        rope, scale = self._tables[seq_len]
        rotated = rope(x)
        return rotated if scale == 1.0 else rotated * scale


def rescaled(model: TinyTransformer, recipe: str, *, factor: float = 4.0, original_max_position: int = 16):
    """A copy of a trained ``rope`` model whose every layer rotates with ``recipe``'s frequencies.

    Parameters
    ----------
    model : TinyTransformer
        A model with ``position="rope"``; it is not changed.
    recipe : str
        One of :data:`RECIPES` or :data:`PROBES`.
    factor : float, default 4.0
        The extension ``s > 1``: 4 reads 64 tokens with a model trained on 16.
    original_max_position : int, default 16
        The longest training length ``L``.

    Returns
    -------
    TinyTransformer
        The copy, whose every :class:`Attention` rotates with a :class:`RescaledRotary`.

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment import TinyTransformer, rescaled
    >>> _ = torch.manual_seed(0)
    >>> model = TinyTransformer(vocab_size=16, position="rope")
    >>> longer = rescaled(model, "linear", factor=4.0, original_max_position=16)
    >>> type(longer.blocks[0].attention.rope).__name__, type(model.blocks[0].attention.rope).__name__
    ('RescaledRotary', 'RotaryEmbedding')
    """
    if not isinstance(model, TinyTransformer) or model.position != "rope":
        raise ValueError(f"model must be a TinyTransformer with position='rope', got {model!r:.60}")
    copied = copy.deepcopy(model)
    for block in copied.blocks:
        dim = block.attention.rope.dim
        block.attention.rope = RescaledRotary(
            dim, recipe, factor=factor, original_max_position=original_max_position
        )
    return copied


def fine_tune(
    model: TinyTransformer, task: str, *, steps: int = 150, lengths=(32, 64), lr: float = 1e-3, seed: int = 0
) -> Curve:
    """Train an already trained ``model`` a little longer at longer lengths, in place.

    :func:`train` with the fine-tune's own data stream (so the batches are
    new), a smaller peak learning rate, and lengths drawn from ``lengths``:
    by default 150 steps at 32 to 64 tokens, as position interpolation's paper
    fine-tunes briefly at the extended length.

    Parameters
    ----------
    model : TinyTransformer
        The trained model, changed in place.
    task : {"order", "relative"}
        The task.
    steps : int, default 150
        Training steps.
    lengths : tuple of int, default (32, 64)
        The shortest and longest sequence length of the batches.
    lr : float, default 1e-3
        Peak learning rate.
    seed : int, default 0
        Seed of the fine-tune's batches.

    Returns
    -------
    Curve
        The fine-tune's learning curve.

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment import TinyTransformer, fine_tune, rescaled
    >>> _ = torch.manual_seed(0)
    >>> model = rescaled(TinyTransformer(vocab_size=16, position="rope"), "linear")
    >>> fine_tune(model, "relative", steps=10, lengths=(32, 64)).steps  # one point: fewer steps than 25
    [10]
    """
    return train(model, task, steps=steps, lengths=lengths, lr=lr, seed=seed, stream=2)


# --------------------------------------------------------------------------- sweeps


def _percent(value: float | None) -> str:
    return "--" if value is None else f"{round(100 * value)}%"


def _band(value: float | None) -> str:
    return band([value])


def _line(result: RunResult, show=_band) -> str:
    scores = "  ".join(f"{length:3d}: {show(acc):>6s}" for length, acc in result.accuracy.items())
    return f"{result.task:9s} {result.position:11s} {scores}"


def sweep(
    tasks=tuple(TASKS), positions=POSITIONS, *, seeds=(0,), verbose: bool = True, **run_options
) -> list[RunResult]:
    """:func:`run` every variant on every task with every seed; with ``verbose``, print one line per run.

    The line gives the band of each accuracy (:func:`posenc.results.band`); times
    are not printed, since they differ from run to run. For the chapter's
    whole sweep, saved to a file, see :func:`chapter_sweep`.

    Parameters
    ----------
    tasks : iterable of str, default every task of :data:`TASKS`
        The tasks.
    positions : iterable of str, default :data:`POSITIONS`
        The variants.
    seeds : iterable of int, default (0,)
        The seeds; each (task, variant) is trained once per seed.
    verbose : bool, default True
        Print each run's bands as it ends.
    **run_options
        Passed on to :func:`run` (``steps``, ``train_length``, ...).

    Returns
    -------
    list of RunResult
        In the order task, variant, seed.

    Examples
    --------
    >>> from posenc.experiment import sweep
    >>> results = sweep(tasks=("order",), positions=("none", "rope"), steps=10)  # doctest: +ELLIPSIS
    order     none         16: ...
    order     rope         16: ...
    >>> [(result.task, result.position, result.seed) for result in results]
    [('order', 'none', 0), ('order', 'rope', 0)]
    """
    results = []
    for task in tasks:
        for position in positions:
            for seed in seeds:
                result = run(task, position, seed=seed, **run_options)
                if verbose:
                    print(_line(result), flush=True)
                results.append(result)
    return results


def format_table(results: list[RunResult], *, percent: bool = False) -> str:
    """Accuracies as a text table: a row per variant, a column per task and test length.

    Cells name the band of each accuracy (:func:`posenc.results.band`), or with
    ``percent`` give it in whole percent; ``--`` marks a length the variant
    cannot run. With several seeds of a variant, the table shows the first.

    Parameters
    ----------
    results : list of RunResult
        What :func:`run` or :func:`sweep` returned.
    percent : bool, default False
        Give the accuracies in whole percent instead of their bands.

    Returns
    -------
    str

    Examples
    --------
    >>> from posenc.experiment import format_table, sweep
    >>> results = sweep(tasks=("order",), positions=("none", "learned"), steps=10, verbose=False)
    >>> print(format_table(results))  # doctest: +ELLIPSIS
               |         order
    length     |      16     32     64
    ----------------------------------
    none       |  failed failed failed
    learned    | ...     --     --
    """
    show = _percent if percent else _band
    tasks = list(dict.fromkeys(result.task for result in results))
    positions = list(dict.fromkeys(result.position for result in results))
    by_key = {}
    for result in results:
        by_key.setdefault((result.task, result.position), result)
    lengths = {task: list(next(r for r in results if r.task == task).accuracy) for task in tasks}
    width = 7
    header = f"{'':11s}" + "".join(f"| {task:^{width * len(lengths[task])}s} " for task in tasks)
    sub = f"{'length':11s}" + "".join(
        "| " + "".join(f"{length:>{width}d}" for length in lengths[task]) + " " for task in tasks
    )
    lines = [header.rstrip(), sub.rstrip(), "-" * len(sub.rstrip())]
    for position in positions:
        cells = []
        for task in tasks:
            result = by_key.get((task, position))
            values = list(result.accuracy.values()) if result else [None] * len(lengths[task])
            cells.append("| " + "".join(f"{show(value):>{width}s}" for value in values) + " ")
        lines.append((f"{position:11s}" + "".join(cells)).rstrip())
    return "\n".join(lines)


def to_results(runs, study: str = "main") -> Results:
    """:func:`run` results (e.g. from :func:`sweep` over several seeds) as :class:`posenc.results.Results`.

    So that :func:`posenc.results.format_summary` and :func:`posenc.results.band`
    give their mean, range and band, as for the chapter's own sweep.

    Parameters
    ----------
    runs : iterable of RunResult
        The runs.
    study : str, default "main"
        The study that every record is filed under.

    Returns
    -------
    posenc.results.Results

    Examples
    --------
    >>> from posenc.experiment import sweep, to_results
    >>> runs = sweep(tasks=("order",), positions=("none",), seeds=(0, 1), steps=10, verbose=False)
    >>> results = to_results(runs)
    >>> [(record.study, record.position, record.seed) for record in results.records]
    [('main', 'none', 0), ('main', 'none', 1)]
    """
    records = []
    for result in runs:
        if not isinstance(result, RunResult):
            raise TypeError(f"runs must hold RunResult objects of posenc.experiment.run, got {result!r:.60}")
        steps = result.curve.steps[-1] if result.curve.steps else 0
        records.append(_record(study, result.task, position=result.position, seed=result.seed, steps=steps,
                               correct=result.correct, curve=result.curve))
    if not records:
        raise ValueError("runs must hold at least one result")
    return Results({}, records)


SEEDS = (0, 1, 2, 3, 4)
"""The seeds of every (task, variant) of chapter 8."""

CONTROL = {
    "task": "relative",
    "positions": ("sinusoidal", "alibi", "nope"),
    "seeds": (0, 1, 2),
    "steps": 3000,
}
"""The longer-training control: the relative task, five times the chapter's 600 steps."""

TEST_LENGTHS = (16, 32, 64)
"""The lengths every model of the chapter is tested at: the longest training length, twice and four times it.
"""

DISTANCE_RECIPES = ("none", "linear", "pi-fastest")
"""The recipes of the distance probe (:data:`DISTANCE_LENGTH`)."""

DISTANCES = tuple(range(1, 21))
"""The distances of the distance probe (:data:`DISTANCE_LENGTH`)."""

DISTANCE_LENGTH = 32
"""The distance probe: the trained RoPE models, as trained and with PI or half of it, read 32-token
sequences whose copy is at one distance, 1 to 20; with s = 4, PI turns distance 12 as training turned 3."""


def _record(study: str, task: str, *, position, seed, steps, correct, recipe="", curve=None) -> Record:
    # Four decimals: a curve point is a mean over 25 batches of 32, so more digits would be noise.
    kept = (tuple(curve.steps), tuple(round(value, 4) for value in curve.accuracy)) if curve else ()
    return Record(study, task, position, seed, steps, recipe, correct, kept)


def _measure(model, task: str, seed: int) -> dict:
    return {length: evaluate_by_label(model, task, length, seed=seed) for length in TEST_LENGTHS}


def _unit(job: tuple) -> list[Record]:
    """One piece of the sweep, run in a worker process: a trained model and what is measured on it."""
    study, task, position, seed, steps, fine_tune_steps = job
    result = run(task, position, seed=seed, steps=steps)
    kept = {"position": position, "seed": seed, "steps": steps}
    records = [_record(study, task, correct=result.correct, curve=result.curve, **kept)]
    if study == "main" and task == "relative" and position == "rope":
        train_length = TEST_LENGTHS[0]
        factor = TEST_LENGTHS[-1] / train_length
        for recipe in RECIPES:
            model = rescaled(result.model, recipe, factor=factor, original_max_position=train_length)
            records.append(_record("rescaled", task, position=position, seed=seed, steps=steps,
                                   correct=_measure(model, task, seed), recipe=recipe))
            torch.manual_seed(seed)
            fine_tune(model, task, steps=fine_tune_steps, seed=seed)
            records.append(_record("fine-tuned", task, position=position, seed=seed, steps=fine_tune_steps,
                                   correct=_measure(model, task, seed), recipe=recipe))
        for probe in PROBES:
            model = rescaled(result.model, probe, factor=factor, original_max_position=train_length)
            records.append(_record("probe", task, position=position, seed=seed, steps=steps,
                                   correct=_measure(model, task, seed), recipe=probe))
        # Which distance does each model answer "yes" to? Stored as (yes, total) under label 1.
        for recipe in DISTANCE_RECIPES:
            model = rescaled(result.model, recipe, factor=factor, original_max_position=train_length)
            answers = answers_by_distance(model, DISTANCE_LENGTH, DISTANCES, seed=seed)
            correct = {d: ((0, 0), yes) for d, yes in answers.items()}
            records.append(_record("distance", task, position=position, seed=seed, steps=steps,
                                   correct=correct, recipe=recipe))
    return records


def chapter_sweep(
    *,
    workers: int = 2,
    seeds=SEEDS,
    steps: int = 600,
    control_steps: int = CONTROL["steps"],
    fine_tune_steps: int = 150,
    log=None,
) -> Results:
    """Train and measure every model of chapter 8, and return the results that the chapter shows.

    - ``"main"``: every task and variant, each with every seed of ``seeds``,
      ``steps`` steps, tested at 16, 32 and 64 tokens, with the right answers
      per label and the learning curve;
    - ``"control"``: :data:`CONTROL`, the relative task trained longer
      (``control_steps`` steps);
    - ``"rescaled"`` and ``"fine-tuned"``: each trained RoPE model of the
      relative task read with each of :data:`RECIPES` at ``s = 4``, first as
      it is, then after :func:`fine_tune` (``fine_tune_steps`` steps);
    - ``"probe"``: the same models read with each of :data:`PROBES`, no training;
    - ``"distance"``: the same models, as trained and with each of
      :data:`DISTANCE_RECIPES`, answering sequences whose copy is at one of
      :data:`DISTANCES` (:func:`answers_by_distance`); each record's
      ``correct[d]`` holds ``((0, 0), (yes, total))``.

    Every run seeds itself and uses one thread, so the results do not depend on
    ``workers`` (processes run side by side) or on their order.

    Examples
    --------
    The chapter's sweep takes about an hour on two cores; one step per model shows what it returns.

    >>> from posenc.experiment import chapter_sweep
    >>> results = chapter_sweep(workers=1, seeds=(0,), steps=1, control_steps=1, fine_tune_steps=1)
    >>> sorted({record.study for record in results.records})
    ['control', 'distance', 'fine-tuned', 'main', 'probe', 'rescaled']
    >>> results.meta["test_lengths"]
    [16, 32, 64]
    """
    workers = check_int("workers", workers, minimum=1)
    seeds = tuple(check_int("seeds", seed) for seed in seeds)
    steps = check_int("steps", steps, minimum=1)
    control_steps = check_int("control_steps", control_steps, minimum=1)
    fine_tune_steps = check_int("fine_tune_steps", fine_tune_steps, minimum=1)
    jobs = [("main", task, position, seed, steps, fine_tune_steps)
            for task in TASKS for position in POSITIONS for seed in seeds]
    jobs += [("control", CONTROL["task"], position, seed, control_steps, fine_tune_steps)
             for position in CONTROL["positions"] for seed in CONTROL["seeds"]]
    # The longest jobs first, so that no worker is left with one at the end.
    order = sorted(range(len(jobs)), key=lambda n: -(jobs[n][4] + 600 * (jobs[n][2] == "rope")))
    done: dict[int, list[Record]] = {}
    start = time.perf_counter()
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        futures = {n: pool.submit(_unit, jobs[n]) for n in order}
        for count, n in enumerate(order, 1):
            done[n] = futures[n].result()
            if log is not None:
                seconds = time.perf_counter() - start
                log(f"[{count}/{len(jobs)}] {seconds:5.0f} s  {' '.join(map(str, jobs[n][:4]))}")
    records = [record for n in range(len(jobs)) for record in done[n]]
    meta = {
        "seeds": list(seeds),
        "steps": steps,
        "fine_tune_steps": fine_tune_steps,
        "control": {
            **CONTROL,
            "positions": list(CONTROL["positions"]),
            "seeds": list(CONTROL["seeds"]),
            "steps": control_steps,
        },
        "test_lengths": list(TEST_LENGTHS),
        "recipes": list(RECIPES),
        "probes": list(PROBES),
        "distance": {"recipes": list(DISTANCE_RECIPES), "length": DISTANCE_LENGTH},
        "factor": TEST_LENGTHS[-1] / TEST_LENGTHS[0],
    }
    return Results(meta, records)


def _bench(tasks, positions, steps: int) -> None:
    print(f"posenc.experiment: one thread, {steps} steps per run, torch {torch.__version__}")
    results = []
    for task in tasks:
        for position in positions:
            result = run(task, position, steps=steps)
            print(f"{result.seconds:5.1f} s  {_line(result, _percent)}", flush=True)
            results.append(result)
    seconds = [result.seconds for result in results]
    print(f"training time: total {sum(seconds):.1f} s, slowest {max(seconds):.1f} s (target: <= 20 s a run)")
    print(format_table(results, percent=True))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m posenc.experiment", description=__doc__.splitlines()[0])
    parser.add_argument("--bench", action="store_true", help="train the variants, print times and accuracies")
    parser.add_argument("--steps", type=int, default=600, help="optimizer steps per run (default 600)")
    parser.add_argument("--tasks", nargs="+", choices=tuple(TASKS), default=tuple(TASKS))
    parser.add_argument("--positions", nargs="+", choices=POSITIONS, default=POSITIONS)
    commands = parser.add_subparsers(dest="command")
    for name, text in (("sweep", "run chapter 8's whole sweep and write its results file"),
                       ("check", "run the sweep and compare it with the committed results file")):
        command = commands.add_parser(name, help=text, description=text)
        command.add_argument("--workers", type=int, default=2, help="processes side by side (default 2)")
        command.add_argument("--output", type=Path, default=_results.RESULTS_FILE, help="the results file")
    args = parser.parse_args(argv)
    if args.command is None:
        if not args.bench:
            parser.print_help()
            return 0
        _bench(args.tasks, args.positions, args.steps)
        return 0
    start = time.perf_counter()
    fresh = chapter_sweep(workers=args.workers, log=lambda line: print(line, file=sys.stderr, flush=True))
    print(f"sweep: {len(fresh.records)} records in {time.perf_counter() - start:.0f} s")
    if args.command == "sweep":
        fresh.dump(args.output)
        print(f"wrote {args.output}")
        return 0
    problems = _results.compare(_results.load(args.output), fresh)
    for problem in problems:
        print(problem)
    limits = ", ".join(f"{name} {value:.0%}" for name, value in _results.TOLERANCE.items())
    print(f"{len(problems)} differences beyond the tolerance ({limits}) from {args.output}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
