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

The experiment lives in five modules, each of one piece, and this one gathers their public names, so
that ``posenc.experiment.run`` is :func:`posenc.training.run`: the tasks (:mod:`posenc.tasks`), the
model (:mod:`posenc.tiny_model`), training and testing (:mod:`posenc.training`), the longer-length
recipes (:mod:`posenc.rescaling`), and the sweeps and their tables (:mod:`posenc.sweep`). Its own code is
the command line.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

from posenc import results as _results
from posenc.rescaling import PROBES, RECIPES, RescaledRotary, fine_tune, recipe_frequencies, rescaled
from posenc.results import band
from posenc.sweep import (
    CONTROL,
    DISTANCE_LENGTH,
    DISTANCE_RECIPES,
    DISTANCES,
    SEEDS,
    TEST_LENGTHS,
    _line,
    _percent,
    chapter_sweep,
    format_table,
    sweep,
    to_results,
)
from posenc.tasks import TASKS, make_batch, order_task, relative_task
from posenc.tiny_model import FORMULA_LENGTH, POSITIONS, Attention, Block, TinyTransformer
from posenc.training import Curve, RunResult, answers_by_distance, evaluate, evaluate_by_label, run, train

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
    for name, text in (
        ("sweep", "run chapter 8's whole sweep and write its results file"),
        ("check", "run the sweep and compare it with the committed results file"),
    ):
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
