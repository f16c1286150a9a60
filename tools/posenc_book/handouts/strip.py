"""Write student copies of the chapters: the exercises stay, the solutions go.

A solution in this book runs from a ``{solution-start}`` directive to the next ``{solution-end}``
directive (sphinx-exercise's gated syntax), across Markdown and code cells. This script removes that
whole span: the solution text in the Markdown cells around it, and every code cell inside it. Outputs
and execution counts are cleared too (``--keep-outputs`` keeps them), so a student runs a clean
notebook top to bottom.

    python -m posenc_book handouts book/en --output handout/en
    python -m posenc_book handouts book/ko/03_numpy.ipynb --output handout/ko

A folder argument writes each of its notebooks into the output folder under the same relative path; a
file argument writes that notebook into the output folder under its own name. The sources are never
changed.

A *handout* (``--answer-cells``) is a student copy with a place to answer: after each exercise, a
Markdown cell with the prompt in the notebook's language ("Your answer:", "Jawaban Anda:", "답:"), an
empty code cell where the solution has code, and, for the exercises in the table of
posenc_book.handouts.checks, a check cell that tells the student, in their language, whether their answer
has the properties a right answer has. The check cell holds the check function's own source and the few
lines that call it and print its verdict, so it runs where only ``posenc`` is installed. The answer and
check cells are tagged ``raises-exception``: a student's unfinished code may fail there, and every other
cell runs.

    python -m posenc_book handouts book/ko --output handout/ko --answer-cells
    python -m posenc_book handouts                # `make handouts`: every edition, and a zip of each

Without notebooks, it writes the handouts (with answer cells) of every chapter of every edition into
``_build/handouts/<lang>/``, and ``_build/handouts/posenc-handouts-<lang>.zip`` (the same notebooks in a
folder ``posenc-handouts-<lang>``).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import shutil
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from posenc_book.handouts.checks import CHECKS, WORDS, Check, call, function_source
from posenc_book.paths import BOOK, BUILD, editions

HANDOUTS = BUILD / "handouts"

# One ``{solution-start}`` or ``{solution-end}`` directive, backtick- or colon-fenced, with its options,
# up to and including its closing fence line.
MARKER = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{solution-(?P<kind>start|end)\}(?P<target>[^\n]*).*?^(?P=fence)[ \t]*(?:\n|\Z)",
    re.MULTILINE | re.DOTALL,
)
# One ``{exercise}`` directive up to its closing fence, and the label among its options.
EXERCISE = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{exercise\}.*?^(?P=fence)[ \t]*(?:\n|\Z)", re.MULTILINE | re.DOTALL
)
LABEL = re.compile(r"^:label:[ \t]*(?P<label>\S+)", re.MULTILINE)
# The cell tagged `lang` of every chapter: LANG = "en".
LANG = re.compile(r'^LANG = "(?P<lang>[a-z]+)"', re.MULTILINE)
# Tags of the cells a handout adds; code cells a student writes in may fail without stopping a run.
ANSWER_TAG, CHECK_TAG, MAY_FAIL = "handout-answer", "handout-check", "raises-exception"
# The words of posenc_book.handouts.checks that a check cell prints.
VERDICTS = ("missing", "passed", "failed")


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


@dataclass
class Solution:
    """The cells of one solution, from its ``{solution-start}`` to its ``{solution-end}``."""

    markdown: list[str] = field(default_factory=list)  # the solution's text, piece by piece
    code: list[str] = field(default_factory=list)  # the sources of its code cells
    outputs: list[str] = field(default_factory=list)  # the text of their stored outputs


def solutions(notebook) -> dict[str, Solution]:
    """The solutions of ``notebook``, by the label of the exercise each one solves, in order."""
    found: dict[str, Solution] = {}
    current: Solution | None = None
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            if current is not None and cell.cell_type == "code":
                current.code.append(cell.source)
                current.outputs += [output_text(output) for output in cell.get("outputs", [])]
            continue
        position = 0
        for marker in MARKER.finditer(cell.source):
            if marker.group("kind") == "start":
                if current is not None:
                    raise SolutionMarkerError("a solution-start inside a solution")
                current = found.setdefault(marker.group("target").strip(), Solution())
            else:
                if current is None:
                    raise SolutionMarkerError("a solution-end without a solution-start")
                current.markdown.append(cell.source[position : marker.start()].strip())
                current = None
            position = marker.end()
        if current is not None:
            current.markdown.append(cell.source[position:].strip())
    if current is not None:
        raise SolutionMarkerError("a solution-start without a solution-end")
    for solution in found.values():
        solution.markdown = [piece for piece in solution.markdown if piece]
    return found


def output_text(output) -> str:
    """The text of one stored output: a stream, or the plain text of a result."""
    if output.get("output_type") == "stream":
        return output.get("text", "")
    return output.get("data", {}).get("text/plain", "")


def notebook_language(notebook) -> str:
    """The edition of a chapter, from its cell tagged ``lang`` (``LANG = "ko"``)."""
    for cell in notebook.cells:
        if "lang" in cell.metadata.get("tags", []):
            match = LANG.search(cell.source)
            if match:
                return match.group("lang")
    raise ValueError("the notebook has no cell tagged 'lang' that sets LANG; pass the language explicitly")


def check_source(check: Check, lang: str) -> str:
    """The check cell's code: the check function's source, then what calls it and prints the verdict.

    The function takes the student's names and the chapter's, which the cell passes from the notebook; a
    name not defined yet is a ``NameError``, and the cell says so. Only the comment on the first line and
    the strings of ``_claims`` and ``_words`` depend on ``lang``.
    """
    words = WORDS[lang]
    claims = "".join(f"    {quoted(claim)},\n" for claim in check.claims[lang])
    verdicts = "".join(f"    {quoted(key)}: {quoted(words[key])},\n" for key in VERDICTS)
    return (
        f"# {words['comment']}\n"
        f"{function_source(check.check)}\n"
        "\n\n"
        f"_claims = [\n{claims}]\n"
        f"_words = {{\n{verdicts}}}\n"
        "try:\n"
        f"    _results = {call(check.check)}\n"
        "except NameError as _missing:\n"
        '    print(_words["missing"].format(name=_missing.name))\n'
        "else:\n"
        "    for _claim, (_holds, _detail) in zip(_claims, _results):\n"
        '        print("✓" if _holds else "✗", _claim + (f": {_detail}" if _detail else ""))\n'
        '    print(_words["passed"] if all(_holds for _holds, _ in _results) else _words["failed"])'
    )


def quoted(text: str) -> str:
    """``text`` as a double-quoted Python string literal, its letters as they are."""
    return json.dumps(text, ensure_ascii=False)


def answer_cells(key: str, lang: str, needs_code: bool, checks: dict[str, Check]):
    """The cells that follow exercise ``key`` in a handout: the prompt, a code cell, a check."""
    words, check = WORDS[lang], checks.get(key)
    prompt = words["answer"]
    if check is not None:
        prompt += f"\n\n{check.define[lang]} {words['checked']}"
    new_markdown, new_code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [new_markdown(prompt, id=f"{key}-answer", metadata={"tags": [ANSWER_TAG]})]
    if needs_code or check is not None:
        cells.append(new_code("", id=f"{key}-code", metadata={"tags": [ANSWER_TAG, MAY_FAIL]}))
    if check is not None:
        source = check_source(check, lang)
        cells.append(new_code(source, id=f"{key}-check", metadata={"tags": [CHECK_TAG, MAY_FAIL]}))
    return cells


def exercise_key(label: str, lang: str) -> str:
    """``ex-formula-2-en`` -> ``ex-formula-2``: the label every edition shares."""
    suffix = f"-{lang}"
    if not label.endswith(suffix):
        raise ValueError(f"exercise label {label!r} does not end with the edition's suffix {suffix!r}")
    return label[: -len(suffix)]


def make_handout(notebook, lang: str | None = None, checks: dict[str, Check] = CHECKS):
    """Return a student handout of ``notebook``: no solutions, a place to answer after each exercise.

    ``lang`` defaults to the notebook's own (its cell tagged ``lang``).
    """
    lang = lang or notebook_language(notebook)
    if lang not in WORDS:
        raise ValueError(f"no handout words for {lang!r}: posenc_book/handouts/checks.py has {sorted(WORDS)}")
    with_code = {label for label, solution in solutions(notebook).items() if solution.code}
    handout = strip_solutions(notebook)
    # The answer cells of an exercise that ends its Markdown cell wait for the code cells that follow it
    # (code the exercise's statement gives, such as a function to debug) and come before the next text.
    cells, waiting = [], []
    for cell in handout.cells:
        if cell.cell_type == "markdown":
            cells += waiting
            waiting = []
        exercises = list(EXERCISE.finditer(cell.source)) if cell.cell_type == "markdown" else []
        if not exercises:
            cells.append(cell)
            continue
        # Split the cell after each exercise, so that the answer cells follow it.
        rest = cell.source[exercises[-1].end() :].strip()
        position = 0
        for number, exercise in enumerate(exercises):
            part = copy.deepcopy(cell)
            if number:
                part.id = f"{cell.id}-{number}"
            part.source = cell.source[position : exercise.end()].strip()
            cells.append(part)
            label = LABEL.search(exercise.group(0))
            key = exercise_key(label.group("label"), lang) if label else f"{cell.id}-exercise-{number + 1}"
            answers = answer_cells(key, lang, label is not None and label.group("label") in with_code, checks)
            if number == len(exercises) - 1 and not rest:
                waiting = answers
            else:
                cells += answers
            position = exercise.end()
        if rest:
            cells.append(nbformat.v4.new_markdown_cell(rest, id=f"{cell.id}-{len(exercises)}"))
    handout.cells = cells + waiting
    return handout


def zip_name(lang: str) -> str:
    return f"posenc-handouts-{lang}.zip"


def build_handouts(langs: list[str] | None = None, output: Path = HANDOUTS) -> list[Path]:
    """Write the handouts of every chapter of each edition, and one zip per edition; return the zips.

    ``output/<lang>/`` holds the notebooks and ``output/posenc-handouts-<lang>.zip`` the same files in a
    folder ``posenc-handouts-<lang>``. The zip is the same bytes for the same notebooks (fixed dates).
    """
    zips = []
    for lang in langs or list(editions()):
        folder = output / lang
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        archive = output / zip_name(lang)
        with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
            for source in sorted((BOOK / lang).glob("[0-9][0-9]_*.ipynb")):
                try:
                    handout = make_handout(nbformat.read(source, as_version=4), lang)
                except (SolutionMarkerError, ValueError) as error:
                    raise SystemExit(f"{source}: {error}") from error
                nbformat.write(handout, folder / source.name)
                entry = zipfile.ZipInfo(f"{archive.stem}/{source.name}", date_time=(2026, 1, 1, 0, 0, 0))
                entry.compress_type, entry.external_attr = zipfile.ZIP_DEFLATED, 0o644 << 16
                bundle.writestr(entry, (folder / source.name).read_bytes())
        zips.append(archive)
    return zips


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
    parser.add_argument(
        "sources",
        nargs="*",
        type=Path,
        help="notebooks, or folders of notebooks; none: the handouts of every chapter of every edition, "
        "and a zip of each, into --output (default _build/handouts)",
    )
    parser.add_argument("--output", "-o", type=Path, help="folder for the student copies")
    parser.add_argument("--keep-outputs", action="store_true", help="keep the outputs of the kept cells")
    parser.add_argument(
        "--answer-cells", action="store_true", help="answer and check cells after each exercise: a handout"
    )
    arguments = parser.parse_args(argv)
    if not arguments.sources:
        if arguments.answer_cells or arguments.keep_outputs:
            parser.error("the handouts of every edition have answer cells and no outputs: name notebooks")
        for archive in build_handouts(output=arguments.output or HANDOUTS):
            print(f"{archive} ({archive.stat().st_size:,} bytes)")
        return 0
    if arguments.output is None:
        parser.error("give --output, the folder for the copies of the notebooks named")
    if arguments.answer_cells and arguments.keep_outputs:
        parser.error("a handout is for running: --keep-outputs does not go with --answer-cells")
    for source, target in targets(arguments.sources, arguments.output):
        if target.resolve() == source.resolve():
            raise SystemExit(f"refusing to overwrite the source {source}")
        notebook = nbformat.read(source, as_version=4)
        try:
            if arguments.answer_cells:
                stripped = make_handout(notebook)
            else:
                stripped = strip_solutions(notebook, keep_outputs=arguments.keep_outputs)
        except (SolutionMarkerError, ValueError) as error:
            raise SystemExit(f"{source}: {error}") from error
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(stripped, target)
        print(f"{source} -> {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
