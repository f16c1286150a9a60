"""The handouts on the built site: each edition's zip where its instructor page links it."""

from __future__ import annotations

import os
import zipfile

import posenc_book.handouts.strip as strip
import pytest
from book_files import BOOK
from posenc_book.paths import editions
from site_helpers import SITE

EDITIONS = list(editions())


def test_the_built_site_offers_each_editions_zip():
    """`make book` (which `make test` runs first) puts the zip where the instructor page links it."""
    site = SITE
    if not all((site / lang / "index.html").is_file() for lang in EDITIONS):
        if os.environ.get("CI") == "true":
            pytest.fail("_build/html is missing an edition: `make test` builds the site before the tests")
        pytest.skip("the site is not built: run `make book` first")
    for lang in EDITIONS:
        with zipfile.ZipFile(site / lang / "handouts" / strip.zip_name(lang)) as bundle:
            names = sorted(name.split("/", 1)[1] for name in bundle.namelist())
        assert names == sorted(path.name for path in (BOOK / lang).glob("[0-9][0-9]_*.ipynb"))
