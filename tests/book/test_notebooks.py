"""Hygiene of every notebook under book/: what nbval cannot see.

nbval re-runs a notebook and compares outputs, but it passes a notebook with no
stored outputs at all, and it cannot tell a machine-specific output from a
real one. These checks close that gap.
"""

from __future__ import annotations

import nbformat
import pytest
from book_files import BOOK, KERNELSPEC, NOTEBOOKS
from notebook_hygiene import problems, shows_something


def test_there_are_notebooks():
    assert NOTEBOOKS, f"no notebooks found under {BOOK}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: str(path.relative_to(BOOK)))
def test_notebook_hygiene(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert problems(notebook) == []


def clean_notebook():
    notebook = nbformat.v4.new_notebook(
        metadata={"kernelspec": KERNELSPEC, "language_info": {"name": "python"}}
    )
    cell = nbformat.v4.new_code_cell("print(1)", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    notebook.cells = [cell, nbformat.v4.new_code_cell("x = 2", execution_count=2)]
    return notebook


def stream(text, name="stdout"):
    return nbformat.v4.new_output("stream", name=name, text=text)


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda nb: setattr(nb.cells[1], "execution_count", None), "execution counts"),
        (lambda nb: setattr(nb.cells[0], "execution_count", 3), "execution counts"),
        (lambda nb: nb.cells[0].outputs.clear(), "should show output"),
        (lambda nb: nb.cells[0].outputs.append(stream("Warning", "stderr")), "stored stderr"),
        (lambda nb: nb.cells[0].outputs.append(stream("/root/x.py:3: warn")), "absolute path"),
        (lambda nb: nb.cells[0].outputs.append(stream("<Foo at 0x7f3a2b1c0d90>")), "memory address"),
        (
            lambda nb: nb.cells[0].outputs.append(
                nbformat.v4.new_output("error", ename="E", evalue="", traceback=[])
            ),
            "not tagged raises-exception",
        ),
        (lambda nb: nb.cells[0].outputs.append(stream("x" * 89 + "\n")), "89 > 88 columns"),
        (lambda nb: nb.cells[0].outputs.append(stream("쌍" * 45)), "90 > 88 columns"),
        (
            lambda nb: nb.cells[0].outputs.append(
                nbformat.v4.new_output("execute_result", data={"text/plain": "1" * 100})
            ),
            "100 > 88 columns",
        ),
        (lambda nb: nb.metadata.kernelspec.update(name="other"), "kernel metadata"),
        (lambda nb: nb.metadata.language_info.update(version="3.11.7"), "language_info.version"),
    ],
)
def test_hygiene_catches(spoil, message):
    notebook = clean_notebook()
    assert problems(notebook) == []
    spoil(notebook)
    assert any(message in problem for problem in problems(notebook)), problems(notebook)


def test_a_table_shown_as_html_may_keep_a_wide_plain_text_twin():
    notebook = clean_notebook()
    data = {"text/plain": "1" * 100, "text/html": "<table></table>"}
    notebook.cells[0].outputs.append(nbformat.v4.new_output("execute_result", data=data))
    assert problems(notebook) == []


def test_ipython_syntax_is_understood():
    assert not shows_something('import sys\nif "google.colab" in sys.modules:\n    %pip install x\n')
    assert shows_something("x = 1\nx\n")
    assert not shows_something("x = 1\nx;\n")


def test_tagged_error_and_silenced_cell_are_allowed():
    notebook = clean_notebook()
    notebook.cells[1].source = "fig;"
    error = nbformat.v4.new_output("error", ename="ValueError", evalue="bad", traceback=[])
    notebook.cells[0].outputs.append(error)
    notebook.cells[0].metadata["tags"] = ["raises-exception"]
    assert problems(notebook) == []
