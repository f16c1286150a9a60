"""Every objective of every chapter is exercised, and the map of assessment.md points at real exercises.

assessment.md (each edition) lists each chapter's objectives (``- **3.2** ...``) under its ``## N.``
section and ends with the map "Objectives and their assessments", one row per objective:
``| 3.2 | {ref}`3.1 <ex-numpy-1-en>`, ... | 3.2 |``. For each chapter of each edition this test
fails when

(a) an objective the chapter's section lists has no exercise in the map (a "—" under Exercises);
(b) a map cell refers to an exercise, ``{ref}`N.M <ex-...-lang>```, whose label is not a ``:label:`` of
    an exercise of chapter N's notebook in that edition, or whose number N.M is not that exercise's
    place in the chapter (the M-th exercise);
(c) the chapter's notebook has fewer than four exercises;
(d) the map's objectives of the chapter differ from the objectives its section lists.

The page and the notebooks are read directly, with nothing shared with the other course-kit tests, so
that a change in their parsing cannot hide a gap here.
"""

from __future__ import annotations

import re
from functools import cache

import nbformat
import pytest
from book_files import BOOK

from posenc.words import LANGUAGES

MINIMUM_EXERCISES = 4

SECTION = re.compile(r"^## (\d+)\. .*$", re.M)  # a chapter's section: "## 3. Positional encoding in NumPy"
HEADING = re.compile(r"^## .*$", re.M)
OBJECTIVE = re.compile(r"^- \*\*(\d+)\.(\d+)\*\* ", re.M)
MAP_ROW = re.compile(r"^\| (\d+)\.(\d+) \| (.*) \| (.*) \|$", re.M)
REF = re.compile(r"\{ref\}`(?P<text>[^`<]*?)\s*<(?P<label>[^`>]+)>`")
EXERCISE = re.compile(r"^(:{3,})\{exercise\}[^\n]*\n(?P<body>.*?)^\1[ \t]*$", re.M | re.S)
LABEL = re.compile(r"^:label: (\S+)[ \t]*$", re.M)

CHAPTERS = sorted(int(path.name[:2]) for path in (BOOK / "en").glob("[0-9][0-9]_*.ipynb"))
CASES = [pytest.param(lang, number, id=f"{lang}-{number}") for lang in LANGUAGES for number in CHAPTERS]


@cache
def page(lang: str) -> str:
    return (BOOK / lang / "assessment.md").read_text(encoding="utf-8")


def section_objectives(lang: str, number: int) -> list[str]:
    """The objectives that chapter ``number``'s section of the page lists, in order."""
    text = page(lang)
    starts = [m for m in SECTION.finditer(text) if int(m.group(1)) == number]
    assert len(starts) == 1, f"{lang}: {len(starts)} sections for chapter {number}"
    end = HEADING.search(text, starts[0].end())
    body = text[starts[0].end() : end.start() if end else len(text)]
    return [f"{chapter}.{k}" for chapter, k in OBJECTIVE.findall(body) if int(chapter) == number]


def map_rows(lang: str, number: int) -> dict[str, str]:
    """The map's rows of chapter ``number``: objective -> the text of its Exercises cell."""
    rows: dict[str, str] = {}
    for chapter, k, exercises, _questions in MAP_ROW.findall(page(lang)):
        if int(chapter) == number:
            objective = f"{chapter}.{k}"
            assert objective not in rows, f"{lang}: the map has two rows for {objective}"
            rows[objective] = exercises
    return rows


@cache
def notebook_exercises(lang: str, number: int) -> tuple[str, ...]:
    """The labels of the exercises of chapter ``number``'s notebook in ``lang``, in order."""
    (path,) = (BOOK / lang).glob(f"{number:02d}_*.ipynb")
    markdown = "\n".join(
        cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "markdown"
    )
    labels = []
    for exercise in EXERCISE.finditer(markdown):
        label = LABEL.search(exercise.group("body"))
        assert label, f"{path.name}: an exercise without :label:"
        labels.append(label.group(1))
    return tuple(labels)


@pytest.mark.parametrize(("lang", "number"), CASES)
def test_the_map_lists_the_objectives_of_the_chapter(lang, number):
    """(d) The map's objectives of a chapter are the ones its section lists, in the same order."""
    listed = section_objectives(lang, number)
    assert listed, f"{lang}: chapter {number}'s section lists no objective"
    assert list(map_rows(lang, number)) == listed


@pytest.mark.parametrize(("lang", "number"), CASES)
def test_every_objective_of_the_chapter_is_exercised(lang, number):
    """(a) Every objective the section lists has at least one exercise in the map."""
    rows = map_rows(lang, number)
    missing = [o for o in section_objectives(lang, number) if not REF.search(rows.get(o, ""))]
    assert not missing, f"{lang}: objectives of chapter {number} without an exercise: {missing}"


@pytest.mark.parametrize(("lang", "number"), CASES)
def test_the_map_refers_to_exercises_of_the_chapter(lang, number):
    """(b) Each exercise the map cites is an exercise of that chapter's notebook, under its own number."""
    exercises = notebook_exercises(lang, number)
    wrong = []
    for objective, cell in map_rows(lang, number).items():
        for ref in REF.finditer(cell):
            label, text = ref.group("label"), ref.group("text")
            if label not in exercises:
                wrong.append(f"{objective}: {label} is not an exercise of chapter {number} in {lang}")
            elif text != f"{number}.{exercises.index(label) + 1}":
                wrong.append(
                    f"{objective}: {label} is exercise {number}.{exercises.index(label) + 1}, not {text}"
                )
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(("lang", "number"), CASES)
def test_the_chapter_has_at_least_four_exercises(lang, number):
    """(c) At least four exercises per chapter."""
    found = notebook_exercises(lang, number)
    assert len(found) >= MINIMUM_EXERCISES, f"{lang}: chapter {number} has {len(found)} exercises: {found}"
