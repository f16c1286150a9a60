"""Every ``posenc`` name the book's pages and chapters' prose show in code resolves to an object.

A name that moved (``posenc.results``, now ``posenc.experiment.results``) would otherwise stay in the prose,
where no test runs it.
"""

from __future__ import annotations

import importlib
import json
import re

from book_files import BOOK

NAME = re.compile(r"`(posenc(?:\.\w+)+)")


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` names a module of posenc or an attribute of one (``posenc.plot.heatmap``)."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for part in parts[split:]:
            if not hasattr(obj, part):
                return False
            obj = getattr(obj, part)
        return True
    return False


def prose_names() -> dict[str, set[str]]:
    """Each dotted posenc name in backticks, by the files whose Markdown shows it."""
    found: dict[str, set[str]] = {}
    for path in sorted(BOOK.rglob("*.md")) + sorted(BOOK.rglob("*.ipynb")):
        if path.suffix == ".ipynb":
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            text = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
        else:
            text = path.read_text(encoding="utf-8")
        for name in NAME.findall(text):
            found.setdefault(name.rstrip("."), set()).add(str(path.relative_to(BOOK)))
    return found


def test_every_posenc_name_in_the_prose_resolves():
    names = prose_names()
    assert len(names) >= 20, sorted(names)  # the pattern still finds the book's names
    broken = {name: sorted(files) for name, files in names.items() if not resolves(name)}
    assert broken == {}, broken


def test_a_moved_name_is_caught():
    assert resolves("posenc.experiment.results.band") and resolves("posenc.plot.heatmap")
    assert not resolves("posenc.results.band") and not resolves("posenc.plot.no_such_figure")
