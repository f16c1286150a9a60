"""A rubric row quotes the values its exercise's solution prints.

assessment.md says that the numbers its rubrics quote are the ones the chapters' cells print. For every
rubric row of every edition, each measured value it states (a number with two or more decimals, or in
e-notation, such as 2.1753 or 3.9e-03, outside a formula) must be among the numbers that the cited
exercise's solution cells print, in the same edition. A value the solution does not print, or prints
in another form ("0.0000000000" where the cell prints ``~1e-16 < 1e-10``), fails.
"""

from __future__ import annotations

import re
from functools import cache

import nbformat
import pytest
from book_files import BOOK
from course_kit import RUBRIC_ROW, page
from notebook_hygiene import text_of
from prose_numbers import SEPARATORS, read_numbers

from posenc.words import LANGUAGES

MARKER = re.compile(r"\{solution-(start|end)\}[ \t]*(ex-[\w-]+)?")
MATH = re.compile(r"\$[^$]*\$")
# How a measured value is written: two or more decimals (after the edition's decimal mark), or an exponent.
EXPONENT = re.compile(r"\de[-+\u2212]?\d|\d\s*[\u00d7x]\s*10")


@cache
def printed_by_solutions(lang: str) -> dict[str, str]:
    """Everything each exercise's solution prints, by the exercise's label."""
    printed: dict[str, str] = {}
    for path in sorted((BOOK / lang).glob("[0-9][0-9]_*.ipynb")):
        label = None
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown":
                for marker in MARKER.finditer(cell.source):  # the state after the cell's last marker
                    label = marker.group(2) if marker.group(1) == "start" else None
                    if label:
                        printed.setdefault(label, "")
            elif label:
                printed[label] += "\n".join(text_of(output) for output in cell.outputs) + "\n"
    return printed


def rows(lang: str) -> list[tuple[int, str, str]]:
    """(line, exercise label, criterion) of every rubric row of the edition's assessment page."""
    markdown = page(lang, "assessment")
    return [
        (markdown.count("\n", 0, match.start()) + 1, match.group(2), match.group(0).split(" | ")[2])
        for match in RUBRIC_ROW.finditer(markdown)
    ]


def unprinted(criterion: str, printed: str, lang: str) -> list[str]:
    """The measured values of ``criterion`` that are not among the numbers of ``printed``."""
    shown = {value for value, _, _ in read_numbers(printed, "en")}  # code prints 2.5, never 2,5
    prose = MATH.sub(" ", criterion)  # a formula shows a computation ($257/4 = 64.25$), not a printout
    return [
        written
        for value, written, _ in read_numbers(prose, lang)
        if (re.search(rf"\{SEPARATORS[lang][1]}\d{{2,}}", written) or EXPONENT.search(written))
        and value not in shown
    ]


def test_a_value_the_solution_does_not_print_is_found():
    printed = "max |difference|: ~1e-16 < 1e-10\ndistance 2.1753\n"
    assert unprinted("prints 2.1753, below 1e-10", printed, "en") == []
    assert unprinted("prints as 0.0000000000 (below 1e-10)", printed, "en") == ["0.0000000000"]
    assert unprinted("jaraknya 2,1753 dan 0,156", printed, "id") == ["0,156"]
    assert unprinted("it becomes $257/4 = 64.25$", printed, "en") == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_rubric_row_quotes_what_its_solution_prints(lang):
    printed = printed_by_solutions(lang)
    assert rows(lang), f"no rubric rows found in {lang}/assessment.md"
    wrong = [
        f"line {line} ({label}): {missing}"
        for line, label, criterion in rows(lang)
        if (missing := unprinted(criterion, printed[label], lang))
    ]
    assert not wrong, f"{lang}/assessment.md quotes values its solutions do not print:\n" + "\n".join(wrong)
