"""Write student copies of the chapters: the exercises stay, the solutions go.

A solution in this book runs from a ``{solution-start}`` directive to the next ``{solution-end}``
directive (sphinx-exercise's gated syntax), across Markdown and code cells. This script removes that
whole span: the solution text in the Markdown cells around it, and every code cell inside it. Outputs
and execution counts are cleared too (``--keep-outputs`` keeps them), so a student runs a clean
notebook top to bottom.

    python .ci/strip_solutions.py book/en --output handout/en
    python .ci/strip_solutions.py book/ko/03_numpy.ipynb --output handout/ko

A folder argument writes each of its notebooks into the output folder under the same relative path; a
file argument writes that notebook into the output folder under its own name. The sources are never
changed.
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from pathlib import Path

import nbformat

# One ``{solution-start}`` or ``{solution-end}`` directive, backtick- or colon-fenced, with its options,
# up to and including its closing fence line.
MARKER = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{solution-(?P<kind>start|end)\}.*?^(?P=fence)[ \t]*(?:\n|\Z)",
    re.MULTILINE | re.DOTALL,
)


class SolutionMarkerError(ValueError):
    """The solution-start and solution-end directives of a notebook do not pair up."""


def strip_markdown(text: str, inside: bool) -> tuple[str, bool]:
    """Remove the solution spans from one Markdown cell.

    ``inside`` tells whether the cell starts inside a solution (opened by an earlier cell); the second
    value returned tells whether it ends inside one.
    """
    kept, position = [], 0
    for marker in MARKER.finditer(text):
        if marker.group("kind") == "start":
            if inside:
                raise SolutionMarkerError("a solution-start inside a solution")
            kept.append(text[position : marker.start()])
            inside = True
        else:
            if not inside:
                raise SolutionMarkerError("a solution-end without a solution-start")
            inside = False
        position = marker.end()
    if not inside:
        kept.append(text[position:])
    return "".join(kept).strip(), inside


def strip_solutions(notebook, keep_outputs: bool = False):
    """Return a copy of ``notebook`` without its solutions."""
    stripped = copy.deepcopy(notebook)
    cells, inside = [], False
    for cell in stripped.cells:
        if cell.cell_type == "markdown":
            cell.source, inside = strip_markdown(cell.source, inside)
            if cell.source:
                cells.append(cell)
        elif not inside:
            if cell.cell_type == "code" and not keep_outputs:
                cell.outputs = []
                cell.execution_count = None
            cells.append(cell)
    if inside:
        raise SolutionMarkerError("a solution-start without a solution-end")
    stripped.cells = cells
    return stripped


def targets(sources: list[Path], output: Path) -> list[tuple[Path, Path]]:
    """Pairs (notebook to read, notebook to write) for the command-line arguments."""
    pairs = []
    for source in sources:
        if source.is_dir():
            for path in sorted(source.rglob("*.ipynb")):
                if ".ipynb_checkpoints" not in path.parts:
                    pairs.append((path, output / path.relative_to(source)))
        elif source.suffix == ".ipynb":
            pairs.append((source, output / source.name))
        else:
            raise SystemExit(f"not a notebook or a folder: {source}")
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="+", type=Path, help="notebooks, or folders of notebooks")
    parser.add_argument("--output", "-o", type=Path, required=True, help="folder for the student copies")
    parser.add_argument("--keep-outputs", action="store_true", help="keep the outputs of the kept cells")
    arguments = parser.parse_args(argv)
    for source, target in targets(arguments.sources, arguments.output):
        if target.resolve() == source.resolve():
            raise SystemExit(f"refusing to overwrite the source {source}")
        notebook = nbformat.read(source, as_version=4)
        try:
            stripped = strip_solutions(notebook, keep_outputs=arguments.keep_outputs)
        except SolutionMarkerError as error:
            raise SystemExit(f"{source}: {error}") from error
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(stripped, target)
        print(f"{source} -> {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
