"""Paths of the book that many tests share (posenc_book.paths), and its notebooks."""

from __future__ import annotations

from posenc_book.notebooks import notebooks
from posenc_book.paths import BOOK, ROOT

__all__ = ["BOOK", "ENGLISH_ONLY", "KERNELSPEC", "NOTEBOOKS", "ROOT"]

# The kernel every notebook of the book names in its metadata.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
# The one deliberate difference between the editions' files: the API reference of posenc is generated
# from its docstrings, which are written in English, so only the English edition has it; the other
# editions' index and instructor pages link to it (tests/book/test_parity.py). File -> its label, without
# the edition suffix.
ENGLISH_ONLY = {"api.md": "api"}

NOTEBOOKS = notebooks([BOOK])
