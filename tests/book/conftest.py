"""The tier of tests of the book's sources: notebooks, parity, course kit. test_notebook_math.py typesets
formulas in the browser tests' headless Chromium (the ``browser`` fixture of site_helpers)."""

from site_helpers import browser

__all__ = ["browser"]
