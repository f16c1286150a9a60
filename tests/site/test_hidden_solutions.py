"""`make book SOLUTIONS=hidden`: the same site, with every solution left out.

The test builds the English edition that way into a temporary folder (about 45 s on two cores), then
looks in every page for the text of every solution of the English chapters: its sentences, its code and
its outputs. None may appear; the exercises, and the chapters' other code, must. The same search finds
them, so it would also find a solution that leaked.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import posenc_book.build as build
import posenc_book.handouts.strip as strip
import pytest
from book_files import BOOK
from course_kit import solutions_only_blocks
from site_helpers import SITE, page_text, squeeze

CHAPTERS = sorted((BOOK / "en").glob("[0-9][0-9]_*.ipynb"))
WORDS_PER_FRAGMENT = 6
# The tests that read the hidden build (hidden_site) wait for it: a Sphinx build of the English edition.
SLOW = pytest.mark.slow


# Markup that the HTML does not show as it is written: math, roles, directive fences and options.
NOT_PROSE = re.compile(
    r"\$\$.*?\$\$|\$[^$]*\$|\{\w+\}`[^`]*`|^\s*(?::::*|```+|:\w[\w-]*:).*?$", re.DOTALL | re.MULTILINE
)
# A glossary link shows its text (the part before "<target>"), word for word.
TERM_ROLE = re.compile(r"\{term\}`([^`<]*?)\s*(?:<[^`>]*>)?`")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+", re.MULTILINE)
# Plain words and the punctuation that Sphinx writes as it is (quotes, dashes and "..." it changes).
PROSE_RUN = re.compile(r"[\w,;:()]+(?: [\w,;:()]+)*")


def prose_runs(markdown: str) -> list[str]:
    """The runs of plain words in ``markdown``, which the HTML shows word for word."""
    text = LIST_ITEM.sub("", NOT_PROSE.sub("  |  ", TERM_ROLE.sub(r"\1", markdown))).replace(".", " | ")
    return PROSE_RUN.findall(squeeze(text.replace("*", " ").replace("_", " ")))


def prose_fragments(markdown: str) -> set[str]:
    """Pieces of WORDS_PER_FRAGMENT words of the runs of ``markdown``, one every 3 words."""
    fragments = set()
    for run in prose_runs(markdown):
        words = run.split()
        for start in range(0, len(words) - WORDS_PER_FRAGMENT + 1, 3):
            fragments.add(" ".join(words[start : start + WORDS_PER_FRAGMENT]))
    return fragments


def code_lines(sources: list[str]) -> list[str]:
    return [squeeze(line) for text in sources for line in text.splitlines() if line.strip()]


def code_fragments(sources: list[str]) -> set[str]:
    """The lines of code or output, of 20 characters or more, whitespace squeezed."""
    return {line for line in code_lines(sources) if len(line) >= 20}


def kept(path: Path):
    """The chapter without its solutions, outputs kept: what the hidden site may show of it."""
    return strip.strip_solutions(nbformat.read(path, as_version=4), keep_outputs=True)


def shown_text() -> str:
    """Everything the edition shows besides the solutions, in every page: prose runs, lines of code."""
    pieces = []
    for path in CHAPTERS:
        cells = kept(path).cells
        markdown = "\n".join(cell.source for cell in cells if cell.cell_type == "markdown")
        pieces += prose_runs(markdown) + code_lines(re.findall(r"`([^`\n]+)`", markdown))
        pieces += code_lines([cell.source for cell in cells if cell.cell_type == "code"])
        captions = [c.metadata.get("mystnb", {}).get("figure", {}).get("caption", "") for c in cells]
        pieces += prose_runs("\n".join(captions))
        pieces += code_lines([strip.output_text(out) for cell in cells for out in cell.get("outputs", [])])
    for page in (BOOK / "en").glob("*.md"):
        text = solutions_only_blocks(page.read_text(encoding="utf-8"))[1]  # without rubrics and answers
        pieces += prose_runs(text) + code_lines([text])
    return "\n".join(pieces)


SHOWN = shown_text()


def distinct(fragments: set[str]) -> set[str]:
    return {fragment for fragment in fragments if fragment not in SHOWN}


def chapter_parts(path: Path) -> dict[str, set[str]]:
    """The fragments of a chapter's solutions, and of its exercises and (visible) code."""
    solved = strip.solutions(nbformat.read(path, as_version=4)).values()
    cells = kept(path).cells
    markdown = "\n".join(cell.source for cell in cells if cell.cell_type == "markdown")
    # The Colab cell is not on the page (the site's template leaves it out).
    code = [c.source for c in cells if c.cell_type == "code" and "colab" not in c.metadata.get("tags", [])]
    return {
        # A solution may repeat a phrase or a line that the edition shows anyway: those do not count.
        "solution prose": distinct({f for s in solved for f in prose_fragments("\n".join(s.markdown))}),
        "solution code": distinct(code_fragments([code for s in solved for code in s.code])),
        "solution output": distinct(code_fragments([output for s in solved for output in s.outputs])),
        # Inline code is left out, as in page_parts: the prose runs read "_" as a space.
        "exercise prose": prose_fragments(
            re.sub(r"`[^`\n]*`", " | ", "\n".join(match[0] for match in strip.EXERCISE.finditer(markdown)))
        ),
        "chapter code": code_fragments(code),
    }


@pytest.fixture(scope="module")
def hidden_site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hidden")
    assert build.build(["en"], hidden=True, build_dir=folder) == 0
    return folder / "html" / "en"


@pytest.fixture(scope="module")
def site_text(hidden_site) -> str:
    return "\n".join(page_text(page) for page in sorted(hidden_site.rglob("*.html")))


@SLOW
@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_no_solution_text_reaches_the_hidden_site(path, site_text):
    parts = chapter_parts(path)
    assert parts["solution prose"] and parts["solution code"], "each chapter has solutions with text and code"
    for kind in ("solution prose", "solution code", "solution output"):
        leaked = sorted(fragment for fragment in parts[kind] if fragment in site_text)
        assert not leaked, f"{kind} of {path.name} on the site: {leaked[:5]}"
    # The same search finds the exercises and the rest of the chapter's code.
    for kind in ("exercise prose", "chapter code"):
        assert parts[kind]
        missing = sorted(fragment for fragment in parts[kind] if fragment not in site_text)
        assert not missing, f"{kind} of {path.name} not found: {missing[:5]}"


def page_parts(path: Path) -> dict[str, set[str]]:
    """The fragments of a page's ``solutions-only`` blocks (rubrics, answers), and of the rest of it."""
    hidden, shown = solutions_only_blocks(path.read_text(encoding="utf-8"))
    # Paragraph by paragraph: the HTML puts a heading's link mark between it and the next paragraph.
    # Inline code is left out: the prose runs read "_" as a space.
    paragraphs = re.split(r"\n\s*\n|^#+ .*$", re.sub(r"`[^`\n]*`", " | ", shown), flags=re.M)
    return {
        "solutions-only": distinct(prose_fragments("\n".join(hidden))),
        "page": set().union(*map(prose_fragments, paragraphs)),
    }


PAGES = sorted((BOOK / "en").glob("*.md"))
PAGES_WITH_ANSWERS = [path for path in PAGES if solutions_only_blocks(path.read_text(encoding="utf-8"))[0]]


def test_the_instructor_pages_have_answers_to_hide():
    assert [path.stem for path in PAGES_WITH_ANSWERS] == ["assessment"]


@SLOW
@pytest.mark.parametrize("path", PAGES_WITH_ANSWERS, ids=lambda path: path.stem)
def test_no_rubric_or_answer_reaches_the_hidden_site(path, site_text):
    parts = page_parts(path)
    assert len(parts["solutions-only"]) > 100, "the rubrics and answers are found by their words"
    leaked = sorted(fragment for fragment in parts["solutions-only"] if fragment in site_text)
    assert not leaked, f"rubric or answer text of {path.name} on the site: {leaked[:5]}"
    missing = sorted(fragment for fragment in parts["page"] if fragment not in site_text)
    assert not missing, f"text of {path.name} not found: {missing[:5]}"


@SLOW
def test_hidden_site_offers_handouts_and_no_launch_buttons(hidden_site):
    assert (hidden_site / "handouts" / "posenc-handouts-en.zip").is_file()
    for path in CHAPTERS:
        download = hidden_site / "_sources" / path.name
        assert "solution-start" not in download.read_text(encoding="utf-8")
        handout = hidden_site.parent.parent / "handouts" / "en" / path.name
        assert download.read_bytes() == handout.read_bytes()
        page = (hidden_site / f"{path.stem}.html").read_text(encoding="utf-8")
        assert "colab.research.google.com" not in page and "mybinder.org" not in page


def test_the_same_search_finds_the_solutions_on_the_site_with_solutions():
    """The control: on the site that `make book` built (before the tests, in `make test`), it finds them."""
    site = SITE / "en"
    if not (site / "index.html").is_file():
        if os.environ.get("CI") == "true":
            pytest.fail("_build/html/en is missing: `make test` builds the site before the tests")
        pytest.skip("no site with solutions in _build/html/en: run `make book` first")
    text = "\n".join(page_text(page) for page in sorted(site.rglob("*.html")))
    for path in CHAPTERS:
        if not (site / f"{path.stem}.html").is_file():
            continue  # a chapter newer than the last build
        parts = chapter_parts(path)
        for kind in ("solution prose", "solution code"):
            found = sum(fragment in text for fragment in parts[kind])
            # Most (a sentence edited since the last build differs); a search that misses text finds none.
            assert found >= 0.5 * len(parts[kind]), f"{kind} of {path.name}: {found} of {len(parts[kind])}"
    for path in PAGES_WITH_ANSWERS:
        if (site / f"{path.stem}.html").is_file():
            hidden = page_parts(path)["solutions-only"]
            found = sum(fragment in text for fragment in hidden)
            assert found >= 0.5 * len(hidden), f"answers of {path.name}: {found} of {len(hidden)}"
