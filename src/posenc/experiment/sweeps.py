"""Chapter 8's sweeps: every variant on every task with every seed, and the tables of their results.

:func:`~posenc.experiment.sweep` runs (:func:`posenc.experiment.run`) a chosen set and
:func:`~posenc.experiment.format_table` prints it; :func:`~posenc.experiment.chapter_sweep` trains and
measures every model of the chapter, rescaled and fine-tuned ones included
(:mod:`posenc.experiment.extension`), on several processes, and returns the
:class:`posenc.experiment.results.Results` that ``python -m posenc.experiment sweep`` writes to the results
file. This module imports torch, and ``import posenc`` does not import it.
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import torch

from posenc._checks import check_int
from posenc.experiment.extension import PROBES, RECIPES, fine_tune, rescaled
from posenc.experiment.model import POSITIONS
from posenc.experiment.results import Record, Results, band
from posenc.experiment.tasks import TASKS
from posenc.experiment.training import RunResult, answers_by_distance, evaluate_by_label, run

__all__ = [
    "CONTROL",
    "DISTANCES",
    "DISTANCE_LENGTH",
    "DISTANCE_RECIPES",
    "SEEDS",
    "TEST_LENGTHS",
    "chapter_sweep",
    "format_table",
    "sweep",
    "time_variants",
    "to_results",
]


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
    """Train and test every variant on every task with every seed; with ``verbose``, print one line per run.

    Each run is :func:`~posenc.experiment.run`. The line gives the band of each
    accuracy (:func:`posenc.experiment.results.band`); times are not printed, since they
    differ from run to run. For the chapter's whole sweep, saved to a file, see
    :func:`~posenc.experiment.chapter_sweep`.

    Parameters
    ----------
    tasks : iterable of str, default every task of :data:`~posenc.experiment.tasks.TASKS`
        The tasks.
    positions : iterable of str, default :data:`~posenc.experiment.model.POSITIONS`
        The variants.
    seeds : iterable of int, default (0,)
        The seeds; each (task, variant) is trained once per seed.
    verbose : bool, default True
        Print each run's bands as it ends.
    **run_options
        Passed on to :func:`~posenc.experiment.run` (``steps``, ``train_length``, ...).

    Returns
    -------
    list of RunResult
        In the order task, variant, seed.

    Examples
    --------
    >>> from posenc.experiment.sweeps import sweep
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

    Cells name the band of each accuracy (:func:`posenc.experiment.results.band`), or with
    ``percent`` give it in whole percent; ``--`` marks a length the variant
    cannot run. With several seeds of a variant, the table shows the first.

    Parameters
    ----------
    results : list of RunResult
        What :func:`~posenc.experiment.run` or :func:`~posenc.experiment.sweep` returned.
    percent : bool, default False
        Give the accuracies in whole percent instead of their bands.

    Returns
    -------
    str

    Examples
    --------
    >>> from posenc.experiment.sweeps import format_table, sweep
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


def time_variants(tasks=tuple(TASKS), positions=POSITIONS, steps: int = 600) -> list[RunResult]:
    """Train each variant once on each task, printing its time and accuracies (``--bench``).

    Parameters
    ----------
    tasks : sequence of str, default every task of :data:`~posenc.experiment.tasks.TASKS`
        The tasks.
    positions : sequence of str, default every variant of :data:`~posenc.experiment.model.POSITIONS`
        The model variants.
    steps : int, default 600
        Optimizer steps per run.

    Returns
    -------
    list of RunResult
        One per task and variant, in that order.

    Examples
    --------
    >>> from posenc.experiment import time_variants
    >>> runs = time_variants(["order"], ["none"], steps=2)  # doctest: +ELLIPSIS
    posenc.experiment: one thread, 2 steps per run, torch ...
    ...
    >>> [(run.task, run.position) for run in runs]
    [('order', 'none')]
    """
    check_int("steps", steps, minimum=1)
    print(f"posenc.experiment: one thread, {steps} steps per run, torch {torch.__version__}")
    runs = []
    for task in tasks:
        for position in positions:
            result = run(task, position, steps=steps)
            print(f"{result.seconds:5.1f} s  {_line(result, _percent)}", flush=True)
            runs.append(result)
    seconds = [result.seconds for result in runs]
    print(f"training time: total {sum(seconds):.1f} s, slowest {max(seconds):.1f} s (target: <= 20 s a run)")
    print(format_table(runs, percent=True))
    return runs


def to_results(runs, study: str = "main") -> Results:
    """Runs of :func:`~posenc.experiment.run` (a :func:`~posenc.experiment.sweep` over seeds) as
    :class:`posenc.experiment.results.Results`.

    So that :func:`posenc.experiment.results.format_summary` and :func:`posenc.experiment.results.band`
    give their mean, range and band, as for the chapter's own sweep.

    Parameters
    ----------
    runs : iterable of RunResult
        The runs.
    study : str, default "main"
        The study that every record is filed under.

    Returns
    -------
    posenc.experiment.results.Results

    Examples
    --------
    >>> from posenc.experiment.sweeps import sweep, to_results
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
        records.append(
            _record(
                study,
                result.task,
                position=result.position,
                seed=result.seed,
                steps=steps,
                correct=result.correct,
                curve=result.curve,
            )
        )
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

DISTANCE_RECIPES = ("unscaled", "linear", "pi-fastest")
"""The recipes of the distance probe (:data:`~posenc.experiment.sweeps.DISTANCE_LENGTH`)."""

DISTANCES = tuple(range(1, 21))
"""The distances of the distance probe (:data:`~posenc.experiment.sweeps.DISTANCE_LENGTH`)."""

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
            records.append(
                _record(
                    "rescaled",
                    task,
                    position=position,
                    seed=seed,
                    steps=steps,
                    correct=_measure(model, task, seed),
                    recipe=recipe,
                )
            )
            torch.manual_seed(seed)
            fine_tune(model, task, steps=fine_tune_steps, seed=seed)
            records.append(
                _record(
                    "fine-tuned",
                    task,
                    position=position,
                    seed=seed,
                    steps=fine_tune_steps,
                    correct=_measure(model, task, seed),
                    recipe=recipe,
                )
            )
        for probe in PROBES:
            model = rescaled(result.model, probe, factor=factor, original_max_position=train_length)
            records.append(
                _record(
                    "probe",
                    task,
                    position=position,
                    seed=seed,
                    steps=steps,
                    correct=_measure(model, task, seed),
                    recipe=probe,
                )
            )
        # Which distance does each model answer "yes" to? Stored as (yes, total) under label 1.
        for recipe in DISTANCE_RECIPES:
            model = rescaled(result.model, recipe, factor=factor, original_max_position=train_length)
            answers = answers_by_distance(model, DISTANCE_LENGTH, DISTANCES, seed=seed)
            correct = {d: ((0, 0), yes) for d, yes in answers.items()}
            records.append(
                _record(
                    "distance",
                    task,
                    position=position,
                    seed=seed,
                    steps=steps,
                    correct=correct,
                    recipe=recipe,
                )
            )
    return records


def chapter_sweep(
    *,
    workers: int = 2,
    seeds=SEEDS,
    control_seeds=CONTROL["seeds"],
    steps: int = 600,
    control_steps: int = CONTROL["steps"],
    fine_tune_steps: int = 150,
    log=None,
) -> Results:
    """Train and measure every model of chapter 8, and return the results that the chapter shows.

    - ``"main"``: every task and variant, each with every seed of ``seeds``,
      ``steps`` steps, tested at 16, 32 and 64 tokens, with the right answers
      per label and the learning curve;
    - ``"control"``: :data:`~posenc.experiment.sweeps.CONTROL`, the relative task trained longer
      (``control_steps`` steps), with each seed of ``control_seeds``;
    - ``"rescaled"`` and ``"fine-tuned"``: each trained RoPE model of the
      relative task read with each of :data:`~posenc.experiment.extension.RECIPES` at ``s = 4``, first as
      it is, then after :func:`~posenc.experiment.fine_tune` (``fine_tune_steps`` steps);
    - ``"probe"``: the same models read with each of :data:`~posenc.experiment.extension.PROBES`, no training;
    - ``"distance"``: the same models, as trained and with each of
      :data:`~posenc.experiment.sweeps.DISTANCE_RECIPES`, answering sequences whose copy is at one of
      :data:`~posenc.experiment.sweeps.DISTANCES` (:func:`~posenc.experiment.answers_by_distance`); each
      record's ``correct[d]`` holds ``((0, 0), (yes, total))``.

    Every run seeds itself and uses one thread, so the results do not depend on
    ``workers`` (processes run side by side) or on their order.

    Examples
    --------
    The chapter's sweep takes minutes (README gives the figure); one step per model shows what it returns.

    >>> from posenc.experiment.sweeps import chapter_sweep
    >>> results = chapter_sweep(workers=1, seeds=(0,), steps=1, control_steps=1, fine_tune_steps=1)
    >>> sorted({record.study for record in results.records})
    ['control', 'distance', 'fine-tuned', 'main', 'probe', 'rescaled']
    >>> results.meta["test_lengths"]
    [16, 32, 64]
    """
    workers = check_int("workers", workers, minimum=1)
    seeds = tuple(check_int("seeds", seed) for seed in seeds)
    control_seeds = tuple(check_int("control_seeds", seed) for seed in control_seeds)
    steps = check_int("steps", steps, minimum=1)
    control_steps = check_int("control_steps", control_steps, minimum=1)
    fine_tune_steps = check_int("fine_tune_steps", fine_tune_steps, minimum=1)
    jobs = [
        ("main", task, position, seed, steps, fine_tune_steps)
        for task in TASKS
        for position in POSITIONS
        for seed in seeds
    ]
    jobs += [
        ("control", CONTROL["task"], position, seed, control_steps, fine_tune_steps)
        for position in CONTROL["positions"]
        for seed in control_seeds
    ]
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
            "seeds": list(control_seeds),
            "steps": control_steps,
        },
        "test_lengths": list(TEST_LENGTHS),
        "recipes": list(RECIPES),
        "probes": list(PROBES),
        "distance": {"recipes": list(DISTANCE_RECIPES), "length": DISTANCE_LENGTH},
        "factor": TEST_LENGTHS[-1] / TEST_LENGTHS[0],
    }
    return Results(meta, records)
