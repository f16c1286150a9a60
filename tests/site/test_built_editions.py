"""Each edition numbers and names things in its own language.

Chapter N is "N." in English, Indonesian and Korean, and inside it figures, exercises and theorems count
from 1 with the edition's word ("Fig. 2.1", "Gambar 2.1", "그림 2.1"). Reads the HTML that `make book`
wrote into _build/html/<lang>/, one Sphinx build per edition (`make test` builds before the tests run).
"""

from __future__ import annotations

import re

import pytest
from book_files import ENGLISH_ONLY
from site_helpers import SITE, page_language, site_path, toc_docnames

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
    page = SITE / site_path(docname)
    assert page.is_file(), f"{page} is missing: run `make book`"
    expected = f"{int(CHAPTER.match(docname)['number'])}."
    assert heading_number(page.read_text(encoding="utf-8")) == expected


CAPTION_WORDS = {
    "en": {"Fig.", "Exercise", "Theorem"},
    "id": {"Gambar", "Latihan", "Teorema"},
    "ko": {"그림", "연습", "정리"},
}


def caption_numbers(html: str) -> dict[str, list[str]]:
    """The numbered captions of a page, by their word: {"Fig.": ["2.1", "2.2"], ...}."""
    found: dict[str, list[str]] = {}
    for word, number in re.findall(r'<span class="caption-number">(\S+) ([\d.]+)\s*</span>', html):
        found.setdefault(word, []).append(number)
    return found


@pytest.mark.parametrize("docname", CHAPTERS)
def test_captions_count_from_one_in_the_page_language(docname):
    chapter = int(CHAPTER.match(docname)["number"])
    captions = caption_numbers((SITE / site_path(docname)).read_text(encoding="utf-8"))
    assert set(captions) <= CAPTION_WORDS[page_language(docname)], captions
    assert captions, "every chapter has numbered exercises"
    for numbers in captions.values():
        assert numbers == [f"{chapter}.{n}" for n in range(1, len(numbers) + 1)], captions


def test_caption_numbers_reads_what_sphinx_writes():
    html = '<span class="caption-number">그림 2.1 </span><span class="caption-number">연습 2.1 </span>'
    assert caption_numbers(html) == {"그림": ["2.1"], "연습": ["2.1"]}


def test_heading_number_reads_what_sphinx_writes():
    html = '<h1><span class="section-number">12. </span>Title<a class="headerlink" href="#t">#</a></h1>'
    assert heading_number(html) == "12."
    assert heading_number("<h1>Title</h1>") is None


PROOF_WORDS = {"en": "Proof.", "id": "Bukti.", "ko": "증명."}


@pytest.mark.parametrize("lang", sorted(PROOF_WORDS))
def test_proofs_begin_with_the_edition_word(lang):
    html = (SITE / lang / "05_rotation.html").read_text(encoding="utf-8")
    openings = re.findall(r'<div class="proof admonition" id="proof">\s*<p>(\S+)', html)
    assert openings and set(openings) == {PROOF_WORDS[lang]}, openings


EDITION_PAGES = [
    name for name in toc_docnames() if page_language(name) != "en" or name.startswith("book/en/")
]


@pytest.mark.parametrize("docname", EDITION_PAGES)
def test_previous_and_next_stay_in_the_edition(docname):
    html = (SITE / site_path(docname)).read_text(encoding="utf-8")
    targets = re.findall(r'<a class="(?:left-prev|right-next)"[^>]*href="([^"]*)"', html)
    assert targets, "every page of an edition has a previous or a next page"
    assert all(not target.startswith("../") for target in targets), targets


@pytest.mark.parametrize("docname", EDITION_PAGES)
def test_head_names_the_page_in_the_other_editions(docname):
    """<link rel="alternate" hreflang> to the twin pages, relative, beside the visible switch."""
    html = (SITE / site_path(docname)).read_text(encoding="utf-8")
    lang, page = site_path(docname).split("/", 1)
    head = html.split("</head>", 1)[0]
    alternates = dict(re.findall(r'<link rel="alternate" hreflang="(\w+)" href="([^"]+)"', head))
    # A page of one edition only (the English API reference) has no twin to name.
    twins = () if page.removesuffix(".html") in ENGLISH_ONLY.values() else ("en", "id", "ko")
    assert alternates == {other: f"../{other}/{page}" for other in twins if other != lang}
    assert f'<html lang="{lang}"' in html


def test_korean_solutions_are_titled_with_the_book_word():
    """The book says 풀이 for a solution; sphinx-exercise's Korean catalog says 해답."""
    pages = [name for name in CHAPTERS if page_language(name) == "ko"]
    pattern = re.compile(r"admonition-title\">(해답|풀이)<a [^>]*> 연습")
    titles = [pattern.findall((SITE / site_path(name)).read_text(encoding="utf-8")) for name in pages]
    assert all(found and set(found) == {"풀이"} for found in titles), titles
