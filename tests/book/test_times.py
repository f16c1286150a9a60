"""Each chapter's time is the one the rule gives (posenc_book.times), and its optional sections are marked.

The rule, which the instructor pages state: core prose at 120 words a minute, a minute per core code cell,
8 minutes per exercise, rounded up to 5. book/course.yml holds the times the pages print, and
test_course_kit.py checks that every chapter's box states the same.
"""

from __future__ import annotations

import nbformat
import pytest
from course_kit import course
from posenc_book.paths import BOOK
from posenc_book.times import OPTIONAL, chapter_minutes, core, headings, marker, words

from posenc.words import LANGUAGES

CHAPTERS = sorted((BOOK / "en").glob("[0-9][0-9]_*.ipynb"))


def markdown(source, tags=()):
    return nbformat.v4.new_markdown_cell(source, metadata={"tags": list(tags)})


def code(source="x = 1", tags=()):
    return nbformat.v4.new_code_cell(source, metadata={"tags": list(tags)})


def notebook(*cells):
    return nbformat.v4.new_notebook(cells=list(cells))


def test_the_rule_counts_prose_code_and_exercises_and_rounds_up_to_5():
    prose = " ".join(["word"] * 240)  # 2 minutes
    exercise = ":::{exercise}\n:label: ex-a-1-en\n\nDo it.\n:::"
    count = core(notebook(markdown(f"# A\n\n{prose}"), code(), code(), markdown(exercise)))
    assert (count.words, count.code_cells, count.exercises) == (243, 2, 1)
    assert count.minutes == 15 and 12 < count.exact < 13  # 243/120 + 2 + 8


def test_solutions_references_and_the_colab_and_lang_cells_are_not_core():
    solution = "```{solution-start} ex-a-1-en\n:class: dropdown\n```\nLong answer words here"
    count = core(
        notebook(
            code(tags=["colab"]),
            code(tags=["lang"]),
            markdown("Read this."),
            markdown(solution),
            code(),
            markdown("```{solution-end}\n```\n\n## References\n\n- A. Author. *Title.* 2020."),
        )
    )
    assert (count.words, count.code_cells) == (2, 0)


def test_an_optional_section_runs_to_the_next_heading_of_its_level():
    cells = [
        markdown("## Core\n\none two", tags=[]),
        markdown("### Deeper (optional)\n\nskipped words", tags=[OPTIONAL]),
        code(),
        markdown("#### Still inside\n\nskipped"),
        code(),
        markdown("### Back\n\nthree"),
        code(),
    ]
    count = core(notebook(*cells))
    assert (count.words, count.code_cells) == (5, 1)  # "Core one two", "Back three"


def test_a_displayed_formula_reads_as_10_words_and_markup_as_none():
    assert words("(rope-en)=\n$$\na + b\n$$\n:::{note}\n:class: tip\nx $q$\n:::") == 10 + 2
    assert headings("## A\n```python\n# not a heading\n```\n### B") == [2, 3]


def test_an_optional_tag_needs_a_heading():
    with pytest.raises(ValueError, match="tagged 'optional' must open with a heading"):
        core(notebook(markdown("no heading", tags=[OPTIONAL])))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_the_course_data_holds_the_time_the_rule_gives(path):
    number = int(path.name[:2])
    assert course()["chapters"][number] == chapter_minutes(path).minutes, (
        f"book/course.yml gives chapter {number} {course()['chapters'][number]} min; the rule gives"
        f" {chapter_minutes(path)} (python -m posenc_book.times)"
    )


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_optional_sections_are_the_same_cells_in_every_edition_and_say_so_in_their_heading(path):
    tagged = {}
    for lang in LANGUAGES:
        cells = nbformat.read(BOOK / lang / path.name, as_version=4).cells
        tagged[lang] = [i for i, cell in enumerate(cells) if OPTIONAL in cell.metadata.get("tags", [])]
        for i, cell in enumerate(cells):
            if cell.cell_type != "markdown":
                continue
            titles = [line for line in cell.source.splitlines() if line.startswith("#")]
            marked = any(title.rstrip().endswith(marker(lang)) for title in titles)
            assert marked == (i in tagged[lang]), (
                f"{lang}/{path.name} cell {i}: a heading ends with {marker(lang)!r} exactly when the cell is"
                f" tagged {OPTIONAL!r}"
            )
    assert tagged["id"] == tagged["en"] == tagged["ko"]
