"""The hygiene checks of a notebook (what nbval cannot see), shared by tests/book/test_notebooks.py,
which runs them on every notebook of the book, and tests/posenc_book/test_colab.py."""

from __future__ import annotations

import ast
import re

from book_files import KERNELSPEC
from IPython.core.inputtransformer2 import TransformerManager

from posenc.report import width

ABSOLUTE_PATH = re.compile(r"(?<![\w.])(/(home|root|tmp|usr|opt|work|Users|var)/|[A-Za-z]:\\\\)")
MEMORY_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
# A printed line fits the page as a code line does (book/ruff.toml): 88 columns, Hangul counted twice.
COLUMNS = 88


def code_cells(notebook):
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def text_of(output) -> str:
    """All text an output shows: stream text, text/* data and error values."""
    if output.output_type == "stream":
        return output.text
    if output.output_type == "error":
        return "\n".join([output.ename, output.evalue, *output.traceback])
    return "\n".join(value for key, value in output.get("data", {}).items() if key.startswith("text/"))


# What a reader sees in place of an output's text/plain.
SHOWN_INSTEAD = {"text/html", "image/png", "image/svg+xml", "application/json"}


def printed_lines(output) -> list[str]:
    """The lines an output prints as plain text: stream text, or text/plain where no HTML, image or JSON
    stands in for it (a reader sees the table, the figure or the widget). A traceback is the library's, and
    is left out."""
    if output.output_type == "stream":
        return output.text.splitlines()
    data = output.get("data", {})
    if output.output_type == "error" or SHOWN_INSTEAD & set(data):
        return []
    return data.get("text/plain", "").splitlines()


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
            for line in printed_lines(output):
                if width(line) > COLUMNS:
                    shown = f"{width(line)} > {COLUMNS} columns: {line[:40]!r}"
                    found.append(f"cell {index} prints a line of {shown}")
    language_info = notebook.metadata.get("language_info", {})
    if notebook.metadata.get("kernelspec") != KERNELSPEC or language_info.get("name") != "python":
        found.append("kernel metadata differs from the book's python3 kernel")
    if "version" in language_info:
        found.append("language_info.version is stored: run `make execute` to normalise")
    return found
