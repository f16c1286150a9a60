"""``python -m posenc.experiment``: time the variants, run chapter 8's sweep, or check it.

``--bench`` trains every variant once and prints its time and accuracies; ``sweep`` trains every model
of chapter 8 and writes its results file; ``check`` runs the same sweep and compares it with that file,
within :data:`posenc.experiment.results.TOLERANCE`, exiting 1 on a difference. ``check --seeds 0`` trains
only those seeds of every study (what ``make test`` does) and compares them with the file's records of
those seeds, within :data:`~posenc.experiment.results.ONE_SEED_TOLERANCE`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from posenc.experiment import results
from posenc.experiment.model import POSITIONS
from posenc.experiment.sweeps import chapter_sweep, time_variants
from posenc.experiment.tasks import TASKS


def main(argv=None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``), run the command, and return the exit status."""
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
        command.add_argument("--output", type=Path, default=results.RESULTS_FILE, help="the results file")
    commands.choices["check"].add_argument(
        "--seeds", type=int, nargs="+", help="only these seeds of every study (make test: 0); default all"
    )
    args = parser.parse_args(argv)
    if args.command is None:
        if not args.bench:
            parser.print_help()
            return 0
        time_variants(args.tasks, args.positions, args.steps)
        return 0
    seeds = getattr(args, "seeds", None)
    subset = {} if seeds is None else {"seeds": seeds, "control_seeds": seeds}
    start = time.perf_counter()
    fresh = chapter_sweep(
        workers=args.workers, log=lambda line: print(line, file=sys.stderr, flush=True), **subset
    )
    print(f"sweep: {len(fresh.records)} records in {time.perf_counter() - start:.0f} s")
    if args.command == "sweep":
        fresh.dump(args.output)
        print(f"wrote {args.output}")
        return 0
    stored = results.load(args.output)
    if seeds is None:
        problems, tolerance = results.compare(stored, fresh), results.TOLERANCE
    else:
        problems, tolerance = results.compare_seeds(stored, fresh, seeds), results.ONE_SEED_TOLERANCE
    for problem in problems:
        print(problem)
    limits = ", ".join(f"{name} {value:.0%}" for name, value in tolerance.items())
    print(f"{len(problems)} differences beyond the tolerance ({limits}) from {args.output}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
