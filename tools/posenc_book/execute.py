"""Re-run the given notebooks, and every notebook under the given folders, in place, top to bottom.

Used by ``make execute``. Timing metadata and the Python patch version are
not stored, so running it twice on an unchanged tree leaves ``git diff`` empty.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from posenc_book.notebooks import notebooks
from posenc_book.paths import BOOK

KERNEL_NAME = "python3"


def merge_streams(outputs: list) -> list:
    """Join consecutive stdout (or stderr) chunks: how a print is split depends on timing."""
    merged = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            output.output_type == "stream"
            and previous is not None
            and previous.output_type == "stream"
            and previous.name == output.name
        ):
            previous.text += output.text
        else:
            merged.append(output)
    return merged


def execute(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        kernel_name=KERNEL_NAME,
        timeout=600,
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)
    notebook.metadata.pop("widgets", None)
    notebook.metadata.get("language_info", {}).pop("version", None)
    nbformat.write(notebook, path)


def main(paths: list[str] | None = None) -> int:
    """Execute the notebooks ``paths`` name (files or folders; the whole book by default)."""
    for path in notebooks(paths or [BOOK]):
        print(f"executing {path}", flush=True)
        execute(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
