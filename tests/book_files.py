"""Paths of the book that many tests share, and the scripts of tools/ loaded as modules."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
# The kernel every notebook of the book names in its metadata.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
# The one deliberate difference between the editions' files: the API reference of posenc is generated
# from its docstrings, which are written in English, so only the English edition has it; the other
# editions' index and instructor pages link to it (tests/test_parity.py). File -> its label, without
# the edition suffix.
ENGLISH_ONLY = {"api.md": "api"}


def ci_script(name: str) -> ModuleType:
    """Import ``tools/<name>.py``: the scripts there are not a package, and import each other by name."""
    if str(ROOT / "tools") not in sys.path:
        sys.path.insert(0, str(ROOT / "tools"))
    return importlib.import_module(name)


NOTEBOOKS = ci_script("notebook_files").notebooks([BOOK])
