"""Which Indonesian and Korean notebooks nbval must run itself, and which the English run already proves.

nbval re-runs a notebook and compares every output but its images (and metadata) with the stored one.
Where an edition's notebook has the English code (the ``lang`` cell aside) and stores the same compared
outputs, running it again proves nothing the English run does not: ``book/conftest.py`` leaves it out.
Where the outputs differ, as the interactive figures' HTML and plotly JSON do (their labels are in the
edition's language), nbval runs it.
"""

from __future__ import annotations

import json
from pathlib import Path

# The output keys nbval does not compare (nbval.plugin.IPyNbFile.skip_compare, images included).
NOT_COMPARED = {"metadata", "traceback", "execution_count", "image/png", "image/jpeg"}


def _compared(cell: dict) -> list:
    """A code cell's outputs as nbval compares them: streams joined, images and metadata left out."""
    shown: list = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            if shown and shown[-1][:2] == ("stream", output["name"]):
                shown[-1] = ("stream", output["name"], shown[-1][2] + "".join(output["text"]))
            else:
                shown.append(("stream", output["name"], "".join(output["text"])))
            continue
        kept = {key: value for key, value in output.items() if key not in NOT_COMPARED and key != "data"}
        data = {key: value for key, value in output.get("data", {}).items() if key not in NOT_COMPARED}
        shown.append(("output", json.dumps(kept, sort_keys=True), json.dumps(data, sort_keys=True)))
    return shown


def _code_cells(path: Path) -> list[dict]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [cell for cell in cells if cell["cell_type"] == "code"]


def proven_by_english(notebook: Path, english: Path) -> bool:
    """Whether nbval on ``english`` proves ``notebook``: the same code but for the ``lang`` cell, and the
    same compared outputs."""
    ours, theirs = _code_cells(notebook), _code_cells(english)
    if len(ours) != len(theirs):
        return False
    for cell, twin in zip(ours, theirs, strict=True):
        if "lang" in cell.get("metadata", {}).get("tags", []):
            continue
        if "".join(cell["source"]) != "".join(twin["source"]) or _compared(cell) != _compared(twin):
            return False
    return True
