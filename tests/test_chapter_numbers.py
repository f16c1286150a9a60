"""Chapter numbers restart in each edition: chapter N is "N." in English, Indonesian and Korean.

Reads the HTML that `make book` wrote into _build/html (`make test` builds before the tests run).
"""

from __future__ import annotations

import re

import pytest
from book_files import ROOT
from site_helpers import page_language, toc_docnames

HTML = ROOT / "_build" / "html"
CHAPTER = re.compile(r"^book/(en|id|ko)/(?P<number>\d\d)_\w+$")
CHAPTERS = [name for name in toc_docnames() if CHAPTER.match(name)]


def heading_number(html: str) -> str | None:
    """The section number Sphinx puts before the page's first heading, e.g. "3." for chapter 3."""
    match = re.search(r'<h1>\s*<span class="section-number">([\d.]+)\s*</span>', html)
    return match.group(1) if match else None


def test_every_edition_has_chapters():
    assert {page_language(name) for name in CHAPTERS} == {"en", "id", "ko"}


@pytest.mark.parametrize("docname", CHAPTERS)
def test_chapter_number_matches_its_file_name(docname):
    page = HTML / f"{docname}.html"
    assert page.is_file(), f"{page} is missing: run `make book`"
    expected = f"{int(CHAPTER.match(docname)['number'])}."
    assert heading_number(page.read_text(encoding="utf-8")) == expected


def test_heading_number_reads_what_sphinx_writes():
    html = '<h1><span class="section-number">12. </span>Title<a class="headerlink" href="#t">#</a></h1>'
    assert heading_number(html) == "12."
    assert heading_number("<h1>Title</h1>") is None
