"""The book's commands, behind the Makefile's targets:

    python -m posenc_book build [LANG ...] [--solutions hidden] [--formats pdf epub]
                                                 # make book, make pdf, make epub, make edition
    python -m posenc_book execute [NOTEBOOK_OR_FOLDER ...]              # make execute
    python -m posenc_book handouts                                      # make handouts
    python -m posenc_book handouts NOTEBOOK_OR_FOLDER --output DIR [--answer-cells]
    python -m posenc_book colab [--check] [NOTEBOOK_OR_FOLDER ...]
    python -m posenc_book toc LANG

Each command is its module's own command line (``python -m posenc_book build --help``).
"""

from __future__ import annotations

import sys

COMMANDS = {
    "build": "posenc_book.build",
    "execute": "posenc_book.execute",
    "handouts": "posenc_book.handouts.strip",
    "colab": "posenc_book.colab",
    "toc": "posenc_book.toc",
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command not in COMMANDS:
        print(f"unknown command {command!r}; the commands are {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    from importlib import import_module

    return import_module(COMMANDS[command]).main(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
