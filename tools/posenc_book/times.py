"""How long a chapter takes, by the rule the instructor pages state, computed from its notebook.

A student reads the core prose at 120 words a minute, spends a minute on each core code cell (reading it,
running it, reading what it prints) and 8 minutes on each exercise. A displayed formula counts as 10
words, an inline one as one. The sum, rounded up to 5 minutes, is
the chapter's time: book/course.yml's, which the chapter's box "About this chapter" states
(tests/book/test_times.py checks both).

The core leaves out the solutions, the references and the optional sections. An optional section opens
with a Markdown cell tagged ``optional`` whose heading ends with the edition's marker, "(optional)",
"(opsional)" or "(선택)" (``notebook.optional`` in posenc_book's catalogs); it runs to the next heading of
the same or a higher level. Times are counted on the English edition: the three editions share their
cells, and a translation is not a longer read.

    python -m posenc_book.times          # every chapter's count and minutes
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from posenc_book.handouts.strip import strip_solutions
from posenc_book.paths import BOOK
from posenc_book.words import message

WORDS_PER_MINUTE = 120
MINUTES_PER_CODE_CELL = 1
MINUTES_PER_EXERCISE = 8
OPTIONAL = "optional"  # the tag of the cell that opens an optional section

HEADING = re.compile(r"^(?P<level>#{1,6}) +(?P<title>.+?) *$", re.MULTILINE)
EXERCISE = re.compile(r"^(`{3,}|:{3,})\{exercise\}", re.MULTILINE)
# A displayed formula is read as slowly as 10 words, an inline one as one; directive fences and their
# options, targets such as (rope-en)=, and HTML comments are not read.
WORDS_PER_DISPLAY = 10
DISPLAY = re.compile(r"\$\$.*?\$\$", re.DOTALL)
INLINE = re.compile(r"\$[^$\n]+\$")
MARKUP = re.compile(r"^(?:`{3,}|:{3,}).*$|^:[a-z-]+:.*$|^\([\w-]+\)=$", re.MULTILINE)
COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Core:
    """What the core path of a chapter holds, and the minutes the rule gives it."""

    words: int
    code_cells: int
    exercises: int

    @property
    def exact(self) -> float:
        return (
            self.words / WORDS_PER_MINUTE
            + MINUTES_PER_CODE_CELL * self.code_cells
            + MINUTES_PER_EXERCISE * self.exercises
        )

    @property
    def minutes(self) -> int:
        return 5 * math.ceil(self.exact / 5)


def marker(lang: str) -> str:
    """How an optional section's heading ends in ``lang``: "(optional)", "(opsional)", "(선택)"."""
    return message("notebook.optional", lang)


def words(markdown: str) -> int:
    """The words of a Markdown cell as a reader reads them: a displayed formula is 10, markup none."""
    display = " x" * WORDS_PER_DISPLAY
    text = INLINE.sub(" x ", DISPLAY.sub(display, COMMENT.sub(" ", markdown)))
    return len(WORD.findall(MARKUP.sub(" ", text)))


def headings(markdown: str) -> list[int]:
    """The levels of the headings of a Markdown cell, outside code fences."""
    prose = re.sub(r"```.*?```", "", markdown, flags=re.DOTALL)
    return [len(match["level"]) for match in HEADING.finditer(prose)]


def core(notebook) -> Core:
    """Count the core path of a chapter (a notebook as nbformat reads it)."""
    counts = {"words": 0, "code_cells": 0, "exercises": 0}
    optional_level = None  # the level of the optional section we are in, if any
    for cell in strip_solutions(notebook).cells:
        source = cell.source
        if cell.cell_type == "markdown":
            levels = headings(source)
            if OPTIONAL in cell.metadata.get("tags", []):
                if not levels:
                    raise ValueError(f"a cell tagged {OPTIONAL!r} must open with a heading: {source[:60]!r}")
                optional_level = levels[0]
                continue
            if optional_level is not None and levels and min(levels) <= optional_level:
                optional_level = None
            if optional_level is None:
                source = source.split("## References")[0]
                counts["words"] += words(source)
                counts["exercises"] += len(EXERCISE.findall(source))
        elif optional_level is None and not {"colab", "lang"} & set(cell.metadata.get("tags", [])):
            counts["code_cells"] += 1
    return Core(**counts)


def chapter_minutes(path: Path) -> Core:
    """The core of the chapter at ``path`` (a notebook file)."""
    return core(nbformat.read(path, as_version=4))


def main() -> None:
    for path in sorted((BOOK / "en").glob("[0-9][0-9]_*.ipynb")):
        count = chapter_minutes(path)
        print(
            f"{path.stem:<18} {count.words:>5} words {count.code_cells:>3} cells {count.exercises} exercises"
            f" = {count.exact:5.1f} -> {count.minutes:>3} min"
        )


if __name__ == "__main__":
    main()
