"""Hygiene of every notebook under book/: what nbval cannot see.

nbval re-runs a notebook and compares outputs, but it passes a notebook with no
stored outputs at all, and it cannot tell a machine-specific output from a
real one. These checks close that gap.
"""

from __future__ import annotations

import ast
import re

import nbformat
import pytest
from book_files import BOOK, KERNELSPEC, NOTEBOOKS
from IPython.core.inputtransformer2 import TransformerManager

ABSOLUTE_PATH = re.compile(r"(?<![\w.])(/(home|root|tmp|usr|opt|work|Users|var)/|[A-Za-z]:\\\\)")
MEMORY_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


def code_cells(notebook):
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def text_of(output) -> str:
    """All text an output shows: stream text, text/* data and error values."""
    if output.output_type == "stream":
        return output.text
    if output.output_type == "error":
        return "\n".join([output.ename, output.evalue, *output.traceback])
    return "\n".join(value for key, value in output.get("data", {}).items() if key.startswith("text/"))


def shows_something(source: str) -> bool:
    """Whether running ``source`` must leave an output: a print, or a final expression that is not a call."""
    # Cells may hold IPython syntax such as `%pip`; turn it into plain Python first.
    tree = ast.parse(TransformerManager().transform_cell(source))
    if not tree.body:
        return False
    last = tree.body[-1]
    # A final call may return None and show nothing; any other final expression shows its value.
    bare_expression = (
        isinstance(last, ast.Expr)
        and not isinstance(last.value, ast.Call)
        and not source.rstrip().endswith(";")
    )
    prints = any(
        isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print" for node in ast.walk(tree)
    )
    return bare_expression or prints


def problems(notebook) -> list[str]:
    """Every hygiene rule that ``notebook`` breaks, one message each."""
    found = []
    cells = code_cells(notebook)
    counts = [cell.execution_count for cell in cells]
    if counts != list(range(1, len(counts) + 1)):
        found.append(f"execution counts {counts} are not 1..n: run `make execute`")
    for index, cell in enumerate(cells, start=1):
        if shows_something(cell.source) and not cell.outputs:
            found.append(f"cell {index} should show output but has none stored")
        for output in cell.outputs:
            if output.output_type == "stream" and output.name != "stdout":
                found.append(f"cell {index} stored {output.name}")
            if output.output_type == "error" and "raises-exception" not in cell.metadata.get("tags", []):
                found.append(f"cell {index} stored an error but is not tagged raises-exception")
            text = text_of(output)
            if ABSOLUTE_PATH.search(text):
                found.append(f"cell {index} shows an absolute path")
            if MEMORY_ADDRESS.search(text):
                found.append(f"cell {index} shows a memory address")
    language_info = notebook.metadata.get("language_info", {})
    if notebook.metadata.get("kernelspec") != KERNELSPEC or language_info.get("name") != "python":
        found.append("kernel metadata differs from the book's python3 kernel")
    if "version" in language_info:
        found.append("language_info.version is stored: run `make execute` to normalise")
    return found


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
        (lambda nb: nb.metadata.kernelspec.update(name="other"), "kernel metadata"),
        (lambda nb: nb.metadata.language_info.update(version="3.11.7"), "language_info.version"),
    ],
)
def test_hygiene_catches(spoil, message):
    notebook = clean_notebook()
    assert problems(notebook) == []
    spoil(notebook)
    assert any(message in problem for problem in problems(notebook)), problems(notebook)


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
