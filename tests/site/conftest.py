"""The tier of tests that read the built site (_build/html, or POSENC_SITE): every test here is marked
``needs_build``, and the browser tests' fixtures: a headless Chromium, the built site, and a server on
127.0.0.1. Without the browser they skip, except under CI=true."""

from pathlib import Path

import pytest
from site_helpers import SITE, browser, serve

__all__ = ["browser"]  # the fixture, shared with tests/book (test_notebook_math.py)

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    # A conftest's hook sees every collected item, not only its folder's: mark the ones under tests/site.
    for item in items:
        if HERE in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.needs_build)


@pytest.fixture(scope="module")
def site():
    if not (SITE / "index.html").is_file():
        pytest.fail(f"no built site at {SITE}: run `make book` first (`make test` builds it)")
    return SITE


@pytest.fixture(scope="module")
def served(site):
    with serve(site) as base_url:
        yield base_url
