"""transformers, the reference of every test that compares posenc with Hugging Face (tech review P17).

transformers is a pinned test dependency (requirements.txt). A reader of the book need not have it, so
without it those tests skip, saying why; but on CI (``CI=true``) they must run, so there a missing
transformers fails them instead: a green CI run has always compared posenc with Hugging Face. Every such
test gets transformers from :func:`transformers_or_skip` (tests/posenc/test_hf_reference.py checks it).
"""

import importlib
import os

import pytest

REASON = (
    "transformers is not installed (a pinned test dependency: pip install -r requirements.txt); "
    "the comparison with Hugging Face is skipped"
)


def transformers_or_skip():
    """Return the transformers module; skip the test without it, except under ``CI=true``, where the
    ImportError fails the test."""
    if os.environ.get("CI") == "true":
        return importlib.import_module("transformers")
    return pytest.importorskip("transformers", reason=REASON)
