"""What position buys: small Transformers trained with and without each encoding.

Two synthetic tasks, made by a seeded generator, whose answer is a matter of
position; one small model with a ``position`` option; a training loop; and
evaluation at longer lengths than the training ones. Everything runs on one
CPU thread in seconds. Like :mod:`posenc.nn`, this module imports torch, and
``import posenc`` does not import it.

Run ``python -m posenc.experiment --bench`` to time every variant.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from posenc._checks import check_int, check_real
from posenc.nn import PositionalEncoding, RotaryEmbedding
from posenc.relative import alibi_bias

__all__ = [
    "BANDS",
    "FORMULA_LENGTH",
    "POSITIONS",
    "TASKS",
    "Attention",
    "Block",
    "Curve",
    "RunResult",
    "TinyTransformer",
    "band",
    "evaluate",
    "format_table",
    "make_batch",
    "order_task",
    "relative_task",
    "run",
    "sweep",
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
    rng, batch_size: int, seq_len: int, *, vocab_size: int = RELATIVE_VOCAB, offset: int = RELATIVE_OFFSET
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
    """
    rng = _check_rng(rng)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    offset = check_int("offset", offset, minimum=1)
    vocab_size = check_int("vocab_size", vocab_size, minimum=2)
    seq_len = check_int("seq_len", seq_len, minimum=offset + 2)
    last = rng.integers(0, vocab_size, size=batch_size)
    # Uniform over the vocab_size - 1 tokens other than the last one: skip over it.
    tokens = rng.integers(0, vocab_size - 1, size=(batch_size, seq_len))
    tokens += tokens >= last[:, np.newaxis]
    labels = rng.integers(0, 2, size=batch_size)
    # A distance other than offset, uniform over the seq_len - 2 others: skip over offset.
    other = rng.integers(1, seq_len - 1, size=batch_size)
    other += other >= offset
    distance = np.where(labels == 1, offset, other)
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
    """A batch of ``task`` as torch tensors ``(tokens, labels)``; see :data:`TASKS`."""
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
    """One pre-norm Transformer layer: attention, then a two-layer MLP, each added to the residual."""

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
def evaluate(model: TinyTransformer, task: str, seq_len: int, *, num_sequences: int = 500, seed: int = 0):
    """Accuracy of ``model`` on ``num_sequences`` fresh sequences of length ``seq_len``.

    The test sequences depend only on ``(task, seq_len, seed)``, so every
    variant is scored on the same ones; they are drawn from a generator that
    training never uses.
    """
    _check_task(task)
    seq_len = check_int("seq_len", seq_len, minimum=2)
    num_sequences = check_int("num_sequences", num_sequences, minimum=1)
    seed = check_int("seed", seed)
    rng = np.random.default_rng([seed, 1, seq_len])
    tokens, labels = make_batch(task, rng, num_sequences, seq_len)
    model.eval()
    predictions = model(tokens).argmax(dim=-1)
    model.train()
    return (predictions == labels).double().mean().item()


@dataclass
class Curve:
    """Learning curve: training loss and accuracy, each the mean over the batches since the last record."""

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
    record_every : int, default 25
        Record the curve every this many steps, >= 1.
    log : callable, optional
        Called as ``log(step, loss, accuracy)`` at every record.
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
    record_every = check_int("record_every", record_every, minimum=1)
    rng = np.random.default_rng([seed, 0])
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
    """One trained variant: its accuracy at each test length (None where it cannot run), curve, time."""

    task: str
    position: str
    accuracy: dict[int, float | None]
    curve: Curve
    seconds: float
    model: TinyTransformer = field(repr=False)
    error: str | None = None


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
    seed, so a run gives the same numbers every time. Training lengths are
    ``train_length // 2 ... train_length``. The learned variant has
    ``train_length`` rows; at longer test lengths its accuracy is ``None``
    and ``error`` holds the message it raised.

    ``build``, if given, makes the model instead of :class:`TinyTransformer`:
    it is called as ``build(vocab_size, max_seq_length=train_length)`` after
    seeding and must return a :class:`TinyTransformer` (a subclass that
    overrides :meth:`TinyTransformer.attention_bias`, say); ``position`` then
    only names the result. This is how the capstone project adds a method.
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
    accuracy, error = {}, None
    for factor in factors:
        try:
            accuracy[factor * train_length] = evaluate(model, task, factor * train_length, seed=seed)
        except ValueError as raised:
            if position != "learned":
                raise
            accuracy[factor * train_length] = None
            error = error or str(raised)  # the first length it refused
    return RunResult(task, position, accuracy, curve, seconds, model, error)


BANDS = ((0.65, "chance"), (0.85, "partly"), (math.inf, "solved"))
"""Upper edges of the bands that printed accuracies fall into: below 65 %, 65-85 %, 85 % and above.

Training is chaotic: a change in the last bit of the initial weights moves an
accuracy that is not 50 % or 100 % by a few points. Printed outputs, which
must be the same on every CPU, therefore name a band; the figures show the
exact values of one run. The edges sit where no result of this chapter falls.
"""


def band(accuracy: float | None) -> str:
    """The name of the band of ``accuracy`` (see :data:`BANDS`), or ``"--"`` for ``None``."""
    if accuracy is None:
        return "--"
    accuracy = check_real("accuracy", accuracy)
    return next(name for edge, name in BANDS if accuracy < edge)


def _percent(value: float | None) -> str:
    return "--" if value is None else f"{round(100 * value)}%"


def _line(result: RunResult, show=band) -> str:
    scores = "  ".join(f"{length:3d}: {show(acc):>6s}" for length, acc in result.accuracy.items())
    return f"{result.task:9s} {result.position:11s} {scores}"


def sweep(tasks=tuple(TASKS), positions=POSITIONS, *, verbose: bool = True, **run_options) -> list[RunResult]:
    """:func:`run` every variant on every task; with ``verbose``, print one line per run.

    The line gives the band of each accuracy (:func:`band`), which other CPUs
    reproduce; times are not printed, since they differ from run to run.
    """
    results = []
    for task in tasks:
        for position in positions:
            result = run(task, position, **run_options)
            if verbose:
                print(_line(result), flush=True)
            results.append(result)
    return results


def format_table(results: list[RunResult], *, percent: bool = False) -> str:
    """Accuracies as a text table: a row per variant, a column per task and test length.

    Cells name the band of each accuracy (:func:`band`), or with ``percent``
    give it in whole percent; ``--`` marks a length the variant cannot run.
    """
    show = _percent if percent else band
    tasks = list(dict.fromkeys(result.task for result in results))
    positions = list(dict.fromkeys(result.position for result in results))
    by_key = {(result.task, result.position): result for result in results}
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


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m posenc.experiment", description=__doc__.splitlines()[0])
    parser.add_argument("--bench", action="store_true", help="train the variants, print times and accuracies")
    parser.add_argument("--steps", type=int, default=600, help="optimizer steps per run (default 600)")
    parser.add_argument("--tasks", nargs="+", choices=tuple(TASKS), default=tuple(TASKS))
    parser.add_argument("--positions", nargs="+", choices=POSITIONS, default=POSITIONS)
    args = parser.parse_args(argv)
    if not args.bench:
        parser.print_help()
        return
    _bench(args.tasks, args.positions, args.steps)


if __name__ == "__main__":
    main()
