"""Which notebooks a command means: the ones named, and every notebook inside the folders named."""

from __future__ import annotations

from pathlib import Path


def notebooks(paths: list[Path]) -> list[Path]:
    """``paths`` with each folder replaced by its notebooks, sorted, checkpoints left out."""
    found = []
    for path in map(Path, paths):
        if path.is_dir():
            found += sorted(p for p in path.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
        else:
            found.append(path)
    return found
