"""Write the Colab cell, the first code cell of every chapter, from the repository set in _config.yml.

Colab opens a chapter straight from GitHub, without the rest of the repository, so the notebook itself must
install the helper package ``posenc``. Its first code cell, tagged ``colab``, does that on Colab only; it
names the repository and branch of ``repository:`` in _config.yml. Run this script after changing that
setting (in a fork, say), or to add the cell to a new chapter:

    python -m posenc_book colab                 # every notebook under book/
    python -m posenc_book colab book/ko         # some folders or notebooks
    python -m posenc_book colab --check         # change nothing; exit 1 if a notebook is not up to date

A new cell is inserted before the first code cell and the execution counts after it are shifted by one, as a
clean run would number them (the cell prints nothing outside Colab), so `make execute` is not needed for it.
An existing cell tagged ``colab`` is rewritten in place. tests/posenc_book/test_colab.py checks the result.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
import yaml

from posenc.words import LANGUAGES
from posenc_book.notebooks import notebooks
from posenc_book.paths import ROOT
from posenc_book.words import message

TAG = "colab"
# The address is a variable, which %pip expands like every line magic ({REPOSITORY}), so that no line
# is longer than the notebooks' 88 columns (book/ruff.toml).
TEMPLATE = """\
# {comment}
import sys

if "google.colab" in sys.modules:
    REPOSITORY = "{url}"
    %pip install --quiet "posenc[plot] @ git+{{REPOSITORY}}@{branch}\""""


def repository(config: Path = ROOT / "_config.yml") -> dict:
    """The ``repository:`` settings of _config.yml (``url`` and ``branch``)."""
    return yaml.safe_load(config.read_text(encoding="utf-8"))["repository"]


def cell_source(config: Path = ROOT / "_config.yml", lang: str = "en") -> str:
    """The source of the Colab cell for the repository and branch in ``config``, its comment in ``lang``."""
    repo = repository(config)
    # The comment in the edition's language (code is shared, comments are the edition's).
    comment = message("notebook.colab_comment", lang)
    return TEMPLATE.format(comment=comment, url=repo["url"].rstrip("/"), branch=repo["branch"])


def edition(path: Path) -> str:
    """The language of a notebook, from its folder (``book/ko/...``); English elsewhere."""
    return path.parent.name if path.parent.name in LANGUAGES else "en"


def apply(notebook, source: str) -> bool:
    """Make the first code cell of ``notebook`` the Colab cell with ``source``; return whether it changed."""
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    tagged = [cell for cell in code if TAG in cell.metadata.get("tags", [])]
    if len(tagged) > 1:
        raise ValueError(f"{len(tagged)} code cells are tagged {TAG!r}; there must be at most one")
    if tagged:
        return _rewrite(tagged[0], code[0], source)
    _insert(notebook, code, _new_cell(notebook, source))
    return True


def _rewrite(cell, first_code, source: str) -> bool:
    """Give the tagged ``cell``, which must be the first code cell, ``source``; return whether it changed."""
    if cell is not first_code:
        raise ValueError(f"the cell tagged {TAG!r} is not the first code cell")
    if cell.source == source:
        return False
    cell.source = source
    return True


def _new_cell(notebook, source: str):
    """The Colab cell, tagged, with the id ``colab-install`` where the notebook's format has ids."""
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": [TAG]})
    if notebook.nbformat_minor < 5:
        cell.pop("id", None)
    elif all(other.get("id") != "colab-install" for other in notebook.cells):
        cell.id = "colab-install"
    return cell


def _insert(notebook, code: list, cell) -> None:
    """Put ``cell`` before the first code cell, renumbering the others as a clean run would."""
    counts = [other.execution_count for other in code]
    if code and counts == list(range(1, len(code) + 1)):
        # A clean run numbers the new first cell 1 and every later cell one more than before.
        cell.execution_count = 1
        for other in code:
            other.execution_count += 1
            for output in other.outputs:
                if output.get("execution_count") is not None:
                    output.execution_count += 1
    first_code = [i for i, other in enumerate(notebook.cells) if code and other is code[0]]
    notebook.cells.insert(first_code[0] if first_code else len(notebook.cells), cell)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[ROOT / "book"], help="notebooks or folders")
    parser.add_argument("--check", action="store_true", help="change nothing; fail if a notebook is stale")
    parser.add_argument("--config", type=Path, default=ROOT / "_config.yml", help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    stale = []
    for path in notebooks(arguments.paths):
        notebook = nbformat.read(path, as_version=4)
        if apply(notebook, cell_source(arguments.config, edition(path))):
            stale.append(path)
            if not arguments.check:
                nbformat.validate(notebook)
                nbformat.write(notebook, path)
                print(f"wrote the Colab cell of {path}")
    if arguments.check and stale:
        print("the Colab cell is missing or stale in:", *map(str, stale), sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
