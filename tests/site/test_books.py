"""The PDF and EPUB of every edition, which `make book` (run by `make test`) builds where TeX is installed.

They are read as a reader's tools read them: poppler's pdftotext and pdffonts for the PDFs, the LaTeX
logs for missing characters and lines that run off the page, epubcheck and the EPUB's own files for
the EPUBs. On CI (CI=true), where .ci/run installs TeX, a missing book fails instead of skipping.
"""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
import zipfile
from pathlib import Path

import posenc_book.build as build
import pytest
from book_files import BOOK, ROOT
from course_kit import about_box, chapters

from posenc.words import LANGUAGES

LANGS = LANGUAGES  # the editions, named once (posenc.words)
BUILD = ROOT / "_build"
# Lines of code, output or math wider than the text by more than this are a fault (5 mm); LaTeX's
# small excesses of a point or two, in tables and justified lines, are not.
OVERFULL_LIMIT_PT = 15.0


def book(lang: str, book_format: str) -> Path:
    path = build.book_path(BUILD, lang, book_format)
    if not path.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing: `make test` builds it (make book), with TeX from .ci/run")
        pytest.skip(f"no {path.name}: `make pdf` / `make epub` need TeX (the apt-get line of .ci/run)")
    return path


def latex_log(lang: str) -> str:
    book(lang, "pdf")
    return (BUILD / "editions" / f"{lang}-pdf" / "_build" / "latex" / "book.log").read_text(errors="replace")


def titles(lang: str) -> list[str]:
    """The title of every chapter and of the glossary, as the edition's sources write it."""
    sources = [about_box(lang, number) for number in sorted(chapters(lang).values())]
    sources.append((BOOK / lang / "glossary.md").read_text(encoding="utf-8"))
    # *Notebook*, `posenc`: the PDF shows the words without the marks.
    return [re.sub(r"[*`]", "", re.search(r"^# (.+)$", text, re.M).group(1)) for text in sources]


def squeeze(text: str) -> str:
    """Whitespace collapsed, and the typographic apostrophe (U+2019) that Sphinx sets read as a plain one."""
    # pdftotext also puts a space after it ("today' s"); both sides of a comparison are squeezed.
    plain = re.sub(r"' (?=\w)", "'", text.replace("\u2019", "'").replace("&#8217;", "'"))
    return " ".join(plain.split())


def pdf_text(path: Path, *options: str) -> str:
    return subprocess.run(["pdftotext", *options, str(path), "-"], capture_output=True, text=True).stdout


@pytest.mark.parametrize("lang", LANGS)
def test_pdf_holds_every_chapter_title_as_text(lang):
    text = squeeze(
        subprocess.run(["pdftotext", book(lang, "pdf"), "-"], capture_output=True, text=True).stdout
    )
    found = titles(lang)
    assert len(found) == len(chapters(lang)) + 1 >= 10  # the chapters and the glossary
    for title in found:
        # Twice: in the table of contents and at the chapter's start.
        assert text.count(squeeze(title)) >= 2, f"{lang}: {title!r} is not in the PDF's text"


def test_korean_pdf_embeds_a_font_with_hangul():
    fonts = subprocess.run(["pdffonts", book("ko", "pdf")], capture_output=True, text=True).stdout
    embedded = [line.split()[0] for line in fonts.splitlines()[2:] if line.split()[-5:-4] == ["yes"]]
    hangul = [name for name in embedded if "Nanum" in name]
    assert hangul, f"no embedded Nanum (Hangul) font among {embedded}"
    text = subprocess.run(
        ["pdftotext", "-l", "3", book("ko", "pdf"), "-"], capture_output=True, text=True
    ).stdout
    assert re.search(r"[\uac00-\ud7a3]{4}", text), "no Hangul text on the first pages"


# How each book names its version (pyproject.toml's), on the PDF's title page and in its running heads,
# instead of Sphinx's software word "Release" (its Indonesian "Rilis", its Korean "릴리스"). The EPUB
# names its table of contents in its language too (Sphinx's own words are English in every language).
VERSION_WORDS = {"en": "Version", "id": "Versi", "ko": "버전"}
SOFTWARE_WORDS = ("Release", "Rilis", "릴리스")
CONTENTS = {"en": "Table of Contents", "id": "Daftar Isi", "ko": "목차"}


@pytest.mark.parametrize("lang", LANGS)
def test_pdf_names_its_version_in_its_language(lang):
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    text = squeeze(pdf_text(book(lang, "pdf")))
    assert not [word for word in SOFTWARE_WORDS if word in text], f"{lang}: the PDF says {SOFTWARE_WORDS}"
    # The title page, and the running head of nearly every page (not a chapter's first).
    words = f"{VERSION_WORDS[lang]} {version}"
    assert text.count(words) >= 20, f"{lang}: {words!r} {text.count(words)} times"


# The title page's date, as each language writes a date (Sphinx's default is "Dec 02, 2026" in every one).
DATES = {
    "en": r"\b\d{1,2} (January|February|March|April|May|June|July|August|September|October|November|December)"
    r" \d{4}\b",
    "id": r"\b\d{1,2} (Januari|Februari|Maret|April|Mei|Juni|Juli|Agustus|September|Oktober|November"
    r"|Desember)"
    r" \d{4}\b",
    "ko": r"\b\d{4}년 \d{1,2}월 \d{1,2}일",
}


@pytest.mark.parametrize("lang", LANGS)
def test_pdf_title_page_dates_as_its_language_does(lang):
    first_page = squeeze(pdf_text(book(lang, "pdf"), "-l", "1"))
    assert re.search(DATES[lang], first_page), f"{lang}: no date like {DATES[lang]!r} in {first_page[:300]!r}"


@pytest.mark.parametrize("lang", LANGS)
def test_epub_names_its_contents_in_its_language(lang):
    with zipfile.ZipFile(book(lang, "epub")) as epub:
        files = {
            name: epub.read(name).decode("utf-8")
            for name in epub.namelist()
            if name.endswith(("html", "opf"))
        }
    assert not [name for name, text in files.items() if any(word in text for word in SOFTWARE_WORDS)]
    nav = files["nav.xhtml"]
    assert f"<title>{CONTENTS[lang]}</title>" in nav and f"<h1>{CONTENTS[lang]}</h1>" in nav, nav[:400]


@pytest.mark.parametrize("lang", LANGS)
def test_latex_log_has_no_missing_character_and_no_wide_line(lang):
    log = latex_log(lang)
    missing = sorted(set(re.findall(r"Missing character: There is no (.+?) in font", log)))
    assert not missing, f"{lang}: characters without a glyph: {missing[:10]}"
    widths = [float(width) for width in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide", log)]
    assert max(widths, default=0) <= OVERFULL_LIMIT_PT, f"{lang}: a line {max(widths)} pt wider than the text"


def test_indonesian_pdf_is_hyphenated_as_indonesian(tmp_path):
    """The language the PDF sets breaks Indonesian words as Indonesian does (per-ban-ding-an), where
    English patterns would not (per-bandin-gan)."""
    book("id", "pdf")
    tex = (BUILD / "editions" / "id-pdf" / "_build" / "latex" / "book.tex").read_text(encoding="utf-8")
    (language,) = set(re.findall(r"^\\setmainlanguage\{(\w+)\}$", tex, re.M))
    (tmp_path / "words.tex").write_text(
        "\\documentclass{article}\\usepackage{polyglossia}\\setmainlanguage{"
        + language
        + "}\n\\begin{document}\\showhyphens{perbandingan pembelajaran}\\end{document}\n",
        encoding="utf-8",
    )
    subprocess.run(["xelatex", "-interaction=nonstopmode", "words.tex"], cwd=tmp_path, capture_output=True)
    log = (tmp_path / "words.log").read_text(errors="replace")
    assert "per-ban-ding-an pem-be-la-jar-an" in log, re.findall(r"\S*-\S*", log)[-4:]


@pytest.mark.parametrize("lang", LANGS)
def test_epub_passes_epubcheck(lang):
    result = subprocess.run(
        ["java", "-jar", "/usr/share/java/epubcheck.jar", str(book(lang, "epub"))],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "No errors or warnings detected" in result.stdout + result.stderr


@pytest.mark.parametrize("lang", LANGS)
def test_epub_pages_have_no_script_and_math_as_pictures(lang):
    with zipfile.ZipFile(book(lang, "epub")) as epub:
        pages = {name: epub.read(name).decode("utf-8") for name in epub.namelist() if name.endswith(".xhtml")}
        pictures = [name for name in epub.namelist() if "/math/" in name and name.endswith(".svg")]
    assert not [name for name, page in pages.items() if "<script" in page]
    assert len(pictures) > 500, f"{len(pictures)} math pictures"
    rotation = pages["05_rotation.xhtml"]
    assert "math/" in rotation and "\\(" not in rotation and "$$" not in rotation  # no TeX left to a script
    for title in titles(lang):
        assert any(squeeze(title) in squeeze(re.sub(r"<[^>]+>", "", page)) for page in pages.values()), title


@pytest.mark.parametrize("lang", LANGS)
def test_site_links_the_books_of_each_edition(lang):
    pdf, epub = book(lang, "pdf"), book(lang, "epub")
    site = BUILD / "html"
    landing = (site / lang / "index.html").read_text(encoding="utf-8")
    root = (site / "index.html").read_text(encoding="utf-8")
    for path in (pdf, epub):
        copy = site / lang / "downloads" / path.name
        assert copy.read_bytes() == path.read_bytes(), f"{copy} is not the book that was built"
        assert f'href="downloads/{path.name}"' in landing
        assert f'href="{lang}/downloads/{path.name}"' in root


def test_book_builds_have_their_own_settings():
    config = build.load_yaml("_config.yml")
    site = build.edition_config(config, "ko")
    pdf = build.edition_config(config, "ko", book_format="pdf")["sphinx"]["config"]
    epub = build.edition_config(config, "id", book_format="epub")["sphinx"]["config"]
    assert site["sphinx"]["config"]["templates_path"] and not pdf["templates_path"]
    assert "\\usepackage[hangul]{kotex}" in pdf["latex_elements"]["preamble"]
    assert pdf["latex_elements"]["polyglossia"] == ""  # kotex sets the Korean words
    english = build.edition_config(config, "en", book_format="pdf")["sphinx"]["config"]["latex_elements"]
    assert "polyglossia" not in english and "\\usepackage{kotex}" in english["preamble"]
    assert epub["html_math_renderer"] == "imgmath" and epub["imgmath_image_format"] == "svg"


def test_without_tex_the_site_is_built_alone_and_on_ci_it_fails(monkeypatch):
    monkeypatch.setattr(build.shutil, "which", lambda program: None)
    monkeypatch.setenv("CI", "false")
    assert build.default_formats(hidden=False) == ["html"]
    monkeypatch.setenv("CI", "true")
    with pytest.raises(SystemExit, match="xelatex, latexmk, latex, dvisvgm not found"):
        build.default_formats(hidden=False)
    assert build.default_formats(hidden=True) == ["html"]  # the books keep the solutions


def interactive_figures(lang: str) -> list[tuple[str, str]]:
    """(chapter, figure name) of each cell that shows an interactive figure, in ``lang``'s notebooks."""
    import nbformat

    found = []
    for path in sorted((BOOK / lang).glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            outputs = cell.get("outputs", [])
            if any("application/vnd.plotly.v1+json" in output.get("data", {}) for output in outputs):
                found.append((path.stem, cell.metadata["mystnb"]["figure"]["name"]))
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_books_show_the_png_frame_of_each_interactive_figure(lang):
    """The PDF and the EPUB run no script: each interactive figure is its PNG frame, with its caption."""
    figures = interactive_figures(lang)
    # Chapter 2's base, chapter 5's shift, chapter 6's RoPE plane and its decay bound by base.
    assert [name.rsplit("-", 1)[0] for _, name in figures] == [
        "fig-formula-base",
        "fig-rotation-shift",
        "fig-rope-plane",
        "fig-rope-base",
    ]
    latex = BUILD / "editions" / f"{lang}-pdf" / "_build" / "latex"
    book(lang, "pdf")
    tex = (latex / "book.tex").read_text(encoding="utf-8")
    for chapter, name in figures:
        label = tex.index(f"\\label{{\\detokenize{{{chapter}:{name}}}}}")
        figure = tex[tex.rindex("\\begin{figure}", 0, label) : label]
        image = re.search(r"\\sphinxincludegraphics(?:\[[^]]*\])?\{\{([^}]+)\}(\.png)\}", figure)
        assert image, f"{name}: no PNG in its figure"
        assert (latex / (image[1] + image[2])).read_bytes().startswith(b"\x89PNG"), name
        assert "\\caption" in figure or "\\sphinxcaption" in figure, name
    with zipfile.ZipFile(book(lang, "epub")) as epub:
        files = set(epub.namelist())
        for chapter, name in figures:
            page = epub.read(f"{chapter}.xhtml").decode("utf-8")
            assert "posenc-interactive" not in page and "posenc-figure-data" not in page, chapter
            figure = re.search(rf'<figure[^>]*id="{name}".*?</figure>', page, re.S)
            assert figure, f"{name}: no figure in the EPUB"
            image = re.search(r"<img[^>]*>", figure[0])[0]
            source, alt = re.search(r'src="([^"]+\.png)"', image), re.search(r'alt="([^"]+)"', image)
            assert source and alt, f"{name}: no PNG with alt text: {image}"
            assert source[1] in files and epub.read(source[1]).startswith(b"\x89PNG"), source[1]
