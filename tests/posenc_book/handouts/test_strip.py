"""Tests of posenc_book.handouts.strip, the command that writes student copies without solutions."""

from __future__ import annotations

import nbformat
import posenc_book.handouts.strip as strip
import pytest
from book_files import BOOK, NOTEBOOKS

EXERCISE_1 = ":::{exercise}\n:label: ex-demo-1-en\n\nCompute it.\n:::"
EXERCISE_2 = ":::{exercise}\n:label: ex-demo-2-en\n\nCompute more.\n:::"


def sample_notebook():
    """Cells laid out like the book's: markers in the middle of Markdown cells, code in between."""
    markdown, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [
        markdown("# Title\n\nIntro."),
        code("x = 1", execution_count=1),
        markdown(
            "## Exercises\n\n"
            + EXERCISE_1
            + "\n\n```{solution-start} ex-demo-1-en\n:class: dropdown\n```\n\n"
            "The answer is 2."
        ),
        code("x + 1", execution_count=2),
        markdown(
            "```{solution-end}\n```\n\n" + EXERCISE_2 + "\n\n:::{solution-start} ex-demo-2-en\n:::\n\nSecret."
        ),
        code("secret = 42", execution_count=3),
        markdown("More secret text."),
        markdown(":::{solution-end}\n:::"),
        markdown("## References\n\nA book."),
    ]
    cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    return nbformat.v4.new_notebook(cells=cells)


def test_solutions_go_and_exercises_stay():
    notebook = sample_notebook()
    stripped = strip.strip_solutions(notebook)
    assert [cell.source for cell in stripped.cells] == [
        "# Title\n\nIntro.",
        "x = 1",
        "## Exercises\n\n" + EXERCISE_1,
        EXERCISE_2,
        "## References\n\nA book.",
    ]
    assert stripped.cells[1].outputs == [] and stripped.cells[1].execution_count is None
    nbformat.validate(stripped)
    # The source notebook is left as it was.
    assert len(notebook.cells) == 9 and notebook.cells[1].outputs


def test_keep_outputs():
    stripped = strip.strip_solutions(sample_notebook(), keep_outputs=True)
    assert stripped.cells[1].outputs[0].text == "1\n" and stripped.cells[1].execution_count == 1


@pytest.mark.parametrize(
    ("sources", "message"),
    [
        (["```{solution-start} a\n```", "```{solution-start} b\n```"], "inside a solution"),
        (["```{solution-end}\n```"], "without a solution-start"),
        (["```{solution-start} a\n```\n\nText"], "without a solution-end"),
    ],
)
def test_unpaired_markers_are_errors(sources, message):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(s) for s in sources])
    with pytest.raises(strip.SolutionMarkerError, match=message):
        strip.strip_solutions(notebook)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: str(path.relative_to(BOOK)))
def test_every_chapter_strips_cleanly(path):
    notebook = nbformat.read(path, as_version=4)
    stripped = strip.strip_solutions(notebook)
    nbformat.validate(stripped)
    before = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    after = "\n".join(cell.source for cell in stripped.cells if cell.cell_type == "markdown")
    assert "solution-start" not in after and "solution-end" not in after
    assert after.count("{exercise}") == before.count("{exercise}")
    # The kept code cells are the chapter's code cells, in order, minus the solutions.
    code = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    kept = iter(code)
    assert all(
        any(source == candidate for candidate in kept)
        for source in (cell.source for cell in stripped.cells if cell.cell_type == "code")
    )
    if "{solution-start}" in before:
        assert len(stripped.cells) < len(notebook.cells)


def test_command_line_writes_copies_and_never_overwrites(tmp_path, capsys):
    folder = tmp_path / "en"
    folder.mkdir()
    nbformat.write(sample_notebook(), folder / "01_demo.ipynb")
    assert strip.main([str(folder), "--output", str(tmp_path / "handout")]) == 0
    written = nbformat.read(tmp_path / "handout" / "01_demo.ipynb", as_version=4)
    assert len(written.cells) == 5
    assert "01_demo.ipynb" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="refusing to overwrite"):
        strip.main([str(folder / "01_demo.ipynb"), "--output", str(folder)])
