"""Training and testing chapter 8's models: seeded, on one CPU thread, in seconds.

:func:`~posenc.experiment.run` builds a fresh :class:`~posenc.experiment.TinyTransformer`, trains it
(:func:`~posenc.experiment.train`) on one task of :mod:`posenc.experiment.tasks` and tests it at longer
lengths than the training ones (:func:`~posenc.experiment.evaluate_by_label`);
:func:`~posenc.experiment.answers_by_distance` probes which distance a relative-task model answers "yes" to.
This module imports torch, and ``import posenc`` does not import it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F

from posenc._checks import check_int, check_real
from posenc.experiment.model import TinyTransformer
from posenc.experiment.tasks import RELATIVE_OFFSET, TASKS, _check_task, make_batch, relative_task

__all__ = ["Curve", "RunResult", "answers_by_distance", "evaluate", "evaluate_by_label", "run", "train"]


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
    >>> from posenc.experiment.model import TinyTransformer
    >>> from posenc.experiment.training import evaluate_by_label
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
    >>> from posenc.experiment.model import TinyTransformer
    >>> from posenc.experiment.training import answers_by_distance
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

    The same test sequences as :func:`~posenc.experiment.evaluate_by_label`, which splits the
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
    >>> from posenc.experiment.model import TinyTransformer
    >>> from posenc.experiment.training import evaluate, evaluate_by_label
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
    >>> from posenc.experiment.model import TinyTransformer
    >>> from posenc.experiment.training import train
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
        a fine-tune (:func:`~posenc.experiment.fine_tune`); 1 is the test sequences', so it
        is refused.
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
    >>> from posenc.experiment.model import TinyTransformer
    >>> from posenc.experiment.training import evaluate, train
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
    >>> from posenc.experiment.training import run
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
    right answers per label at each length (:func:`~posenc.experiment.evaluate_by_label`).

    ``build``, if given, makes the model instead of :class:`~posenc.experiment.TinyTransformer`:
    it is called as ``build(vocab_size, max_seq_length=train_length)`` after
    seeding and must return a :class:`~posenc.experiment.TinyTransformer` (a subclass that
    overrides :meth:`~posenc.experiment.TinyTransformer.attention_bias`, say); ``position`` then
    only names the result. This is how the capstone project adds a method.

    Examples
    --------
    >>> from posenc.experiment.training import run
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
