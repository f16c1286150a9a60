"""``python -m posenc.realmodel``: run chapter 10's sweep, or check it against the committed file.

``sweep`` runs every method of :data:`posenc.realmodel.METHODS` over 16,384 tokens of the text, and the
passkey trials, and writes the results file (about 45 minutes on two cores). ``check`` re-computes the
perplexity of :data:`posenc.realmodel.sweep.CHECKED_METHODS` (``--all``: the whole sweep, as the weekly
workflow does) and compares it with the file, exiting 1 on a difference larger than
:data:`posenc.realmodel.sweep.NLL_TOLERANCE` or a passkey trial that changed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

from posenc.realmodel import sweep
from posenc.realmodel.methods import METHODS


def main(argv=None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``), run the command, and return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m posenc.realmodel", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("sweep", "run chapter 10's whole sweep and write its results file"),
        ("check", "re-compute the checked methods' perplexity and compare it with the results file"),
    ):
        command = commands.add_parser(name, help=text, description=text)
        command.add_argument("--threads", type=int, default=2, help="PyTorch's threads (default 2)")
        command.add_argument(
            "--output" if name == "sweep" else "--file", type=Path, default=sweep.RESULTS_FILE
        )
    commands.choices["check"].add_argument("--all", action="store_true", help="every method and the passkeys")
    commands.choices["sweep"].add_argument(
        "--methods", nargs="+", choices=tuple(METHODS), default=tuple(METHODS)
    )
    args = parser.parse_args(argv)
    if args.threads < 1:
        parser.error(f"--threads must be >= 1, got {args.threads}")
    torch.set_num_threads(args.threads)
    # Imported here: the tokenizer imports transformers (seconds), `--help` should not wait for it.
    from posenc.realmodel import load_decoder, load_tokenizer

    start = time.perf_counter()
    model, tokenizer = load_decoder(), load_tokenizer()
    if args.command == "sweep":
        results = sweep.run_sweep(
            model, tokenizer, methods=args.methods, progress=lambda line: print(line, flush=True)
        )
        results.dump(args.output)
        print(f"wrote {args.output} in {time.perf_counter() - start:.0f} s")
        return 0
    stored = sweep.load(args.file)
    again = sweep.run_sweep(
        model,
        tokenizer,
        methods=tuple(METHODS) if args.all else sweep.CHECKED_METHODS,
        passkey=args.all,
        progress=lambda line: print(line, flush=True),
    )
    problems = sweep.compare(stored, again)
    move = sweep.largest_move(stored, again)
    print(f"largest move of a segment's loss: {move:.2e} nats, tolerance {sweep.NLL_TOLERANCE}")
    print("\n".join(problems) or f"matches {args.file} ({time.perf_counter() - start:.0f} s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
