"""Build the site: one Sphinx build per edition, the landing page, and one search index.

    python .ci/build_site.py            # every edition named in _config.yml
    python .ci/build_site.py ko         # the Korean edition alone (and the landing page, the index)
    python .ci/build_site.py --solutions hidden    # the same site without any solution
    python .ci/build_site.py --formats pdf epub    # the books alone: _build/pdf/, _build/epub/

Without ``--formats``, the PDF and EPUB of each edition are built first where TeX is installed (on CI
it must be), and the site links them (``build_books``, ``default_formats``).

`make book` and `make edition EDITION=ko` call this. For each language it derives, from the root
_config.yml and _toc.yml (the single source), an edition's own configuration (its ``language``, title
and author) and table of contents (rooted at ``book/<lang>/index``), writes both to
``_build/editions/<lang>/``, and runs ``jupyter-book build book/<lang>`` with warnings as errors. The
editions build in parallel; each one's HTML lands in ``_build/html/<lang>/``. Then the landing page
(``book/index.html``) is copied to the site root, and Pagefind indexes the site: one index per
``<html lang>``, so that a search from an edition finds only that edition's pages.

Each edition's student handouts are written first (``.ci/strip_solutions.py``, as `make handouts`
does), and the edition's zip of them is copied to ``_build/html/<lang>/handouts/``, where the instructor
page links it. ``--solutions hidden`` (`make book SOLUTIONS=hidden`) builds the same site into the same
``_build/html`` with every solution left out: sphinx-exercise's ``hide_solutions``, made to work for
gated solutions by book/_ext/hidden_solutions.py; each chapter's downloadable ``.ipynb`` is its
handout; and there are no Binder or Colab buttons, which would open the notebooks with their solutions.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml
from strip_solutions import build_handouts, zip_name
from toc_for_language import edition_toc

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"
SITE = BUILD / "html"
JUPYTER_BOOK = Path(sys.executable).with_name("jupyter-book")
# The landing page and what it needs, copied into the site root as they are.
LANDING_FILES = ["book/index.html", "book/_static/favicon.svg"]


def load_yaml(name: str) -> dict:
    return yaml.safe_load((ROOT / name).read_text(encoding="utf-8"))


def editions(config: dict) -> dict[str, dict]:
    """The editions of _config.yml (``sphinx.config.editions``): language -> its words."""
    return config["sphinx"]["config"]["editions"]


# How each edition is typeset in the PDF: Sphinx's xelatex defaults (FreeSerif, FreeSans and FreeMono
# from fonts-freefont-otf) and kotex with the Nanum fonts for Hangul (fonts-nanum): Myeongjo in text,
# Gothic in headings, GothicCoding in code. Every edition needs Hangul: the code cells, the same in all
# three, hold the Korean labels of the figures. English and Indonesian set their language with
# polyglossia (hyphenation, LaTeX's words: "Bab", "Daftar Isi") and keep their quotes and brackets in
# the Latin font; Korean sets its words with kotex's own option (polyglossia's Korean would set Latin
# letters in the Hangul font), and its chapter heads with the class's plain style, since fncychap's
# would print "제 1" without its "장".
HANGUL = (
    "\\setmainhangulfont{NanumMyeongjo}\n\\setsanshangulfont{NanumGothic}\n"
    "\\setmonohangulfont{NanumGothicCoding}\n"
)
LATIN_TEXT = {"preamble": "\\usepackage{kotex}\n\\xetexkofontregime{latin}\n" + HANGUL}
LATEX_BY_LANGUAGE = {
    "en": LATIN_TEXT,
    "id": LATIN_TEXT,
    "ko": {"polyglossia": "", "fncychap": "", "preamble": "\\usepackage[hangul]{kotex}\n" + HANGUL},
}
# polyglossia's Indonesian and kotex name figures and tables "Gambar", "그림" after Sphinx has set its
# "Gambar " with a space: the space goes between the name and the number again.
CAPTION_SPACE = (
    "\\makeatletter\\AtBeginDocument{\\def\\fnum@figure{\\figurename~\\thefigure}"
    "\\def\\fnum@table{\\tablename~\\thetable}}\\makeatother\n"
)
BOOK_FORMATS = {"pdf": ["--builder", "pdflatex"], "epub": ["--builder", "custom", "--custom-builder", "epub"]}


def book_settings(lang: str, book_format: str) -> dict:
    """The Sphinx settings of the PDF (LaTeX) or the EPUB build of an edition."""
    # The book's version (pyproject.toml, with CITATION.cff) on the title page; EPUB 3 requires one.
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    if book_format == "pdf":
        return {
            "version": version,
            "release": version,
            "latex_elements": {
                "papersize": "a4paper",
                **LATEX_BY_LANGUAGE[lang],
                "preamble": LATEX_BY_LANGUAGE[lang]["preamble"] + (CAPTION_SPACE if lang != "en" else ""),
                # A long line of code or output that has no space to break at is broken anyway.
                "sphinxsetup": "verbatimforcewraps=true",
            },
            "latex_domain_indices": False,  # sphinx-proof's "Proof Index", in English
        }
    # EPUB readers run no JavaScript: the math is typeset at build time, as SVG pictures, by pdfTeX
    # (kotex for the few formulas with Hangul); book/_ext/book_formats.py typesets them in one run.
    return {
        "html_math_renderer": "imgmath",
        "imgmath_image_format": "svg",
        "imgmath_use_preview": True,  # the baseline of inline math
        "imgmath_latex_preamble": "\\usepackage{kotex}",
        "imgmath_font_size": 14,
        "version": version,
        "release": version,
        "epub_basename": f"posenc-{lang}",
        "epub_tocscope": "includehidden",  # Jupyter Book's toctrees are hidden: the chapters, in the nav
        "epub_show_urls": "no",
    }


def edition_config(config: dict, lang: str, hidden: bool = False, book_format: str = "html") -> dict:
    """``config`` for one edition: its language, title and author; every path made absolute.

    Jupyter Book resolves Sphinx's paths against the source folder (``book/<lang>``) and the local
    extensions against the configuration file (in ``_build``): absolute paths mean the same in both.
    ``hidden`` leaves the solutions out, and the launch buttons, which open the notebooks with them.
    ``book_format`` "pdf" or "epub" gives the settings of that build instead of the site's (the
    templates, which extend the site's theme, are left out).
    """
    words = editions(config)[lang]
    edition = yaml.safe_load(yaml.safe_dump(config))  # a deep copy
    edition["title"] = words["title"]
    edition["author"] = words["author"]
    edition["repository"]["path_to_book"] = f"book/{lang}"
    sphinx = edition["sphinx"]
    sphinx["local_extensions"] = {
        name: str(ROOT / path) for name, path in (sphinx.get("local_extensions") or {}).items()
    }
    settings = sphinx["config"]
    settings["language"] = lang
    for key in ("templates_path", "html_static_path"):
        settings[key] = [str(ROOT / path) for path in settings.get(key, [])]
    if "html_favicon" in settings:
        settings["html_favicon"] = str(ROOT / settings["html_favicon"])
    if book_format != "html":
        # The site's templates extend its theme; its static files are MathJax and the site's CSS.
        settings.update(templates_path=[], html_static_path=[], html_css_files=[])
        settings.pop("html_favicon", None)
        settings.update(book_settings(lang, book_format))
        sphinx["local_extensions"]["book_formats"] = str(ROOT / "book" / "_ext")
        if book_format == "epub":
            sphinx["extra_extensions"] = [*sphinx.get("extra_extensions", []), "sphinx.ext.imgmath"]
            # The EPUB's metadata: without them, Sphinx writes "Project name not set".
            settings.update(project=words["title"], epub_title=words["title"])
            settings.update(epub_author=words["author"], epub_publisher=words["author"])
    if hidden:
        settings["hide_solutions"] = True
        sphinx["local_extensions"]["hidden_solutions"] = str(ROOT / "book" / "_ext")
    if hidden or book_format != "html":
        edition["launch_buttons"] = {
            **edition.get("launch_buttons", {}),
            "binderhub_url": "",
            "colab_url": "",
        }
    return edition


def write_edition_files(
    config: dict,
    toc: dict,
    lang: str,
    build_dir: Path = BUILD,
    hidden: bool = False,
    book_format: str = "html",
) -> Path:
    """Write ``<build_dir>/editions/<lang>/_config.yml`` and ``_toc.yml``; return that folder.

    The PDF and EPUB builds of an edition have their own folders, ``<lang>-pdf`` and ``<lang>-epub``."""
    folder = build_dir / "editions" / (lang if book_format == "html" else f"{lang}-{book_format}")
    folder.mkdir(parents=True, exist_ok=True)
    note = f"# Generated by .ci/build_site.py from the root {{}} for the {lang} edition: do not edit.\n"
    settings = edition_config(config, lang, hidden, book_format)
    if book_format == "html" and not hidden:
        # The landing page links the PDF and EPUB that `make pdf` and `make epub` have built.
        settings["sphinx"]["config"]["downloads"] = {
            book.upper(): f"downloads/{path.name}"
            for book in BOOK_FORMATS
            if (path := book_path(build_dir, lang, book)).is_file()
        }
    (folder / "_config.yml").write_text(
        note.format("_config.yml") + yaml.safe_dump(settings, allow_unicode=True), encoding="utf-8"
    )
    (folder / "_toc.yml").write_text(
        note.format("_toc.yml") + yaml.safe_dump(edition_toc(toc, lang), sort_keys=False, allow_unicode=True),
        encoding="utf-8",
    )
    return folder


def check_editions(config: dict, langs: list[str]) -> None:
    unknown = [lang for lang in langs if lang not in editions(config)]
    if unknown:
        raise SystemExit(f"unknown edition(s) {unknown}; _config.yml names {sorted(editions(config))}")


def run_builds(folders: dict[str, Path], options: dict[str, list[str]]) -> list[str]:
    """Run ``jupyter-book build`` for each edition folder at once; print each log; return the failed.

    ``folders`` maps a name ("ko", "ko-pdf") to the folder that ``write_edition_files`` wrote, whose
    source is ``book/<lang>``; ``options`` adds a build's own options (its builder).
    """
    runs = {}
    for name, folder in folders.items():
        lang = name.split("-")[0]
        command = [
            str(JUPYTER_BOOK), "build", str(ROOT / "book" / lang),
            "--config", str(folder / "_config.yml"), "--toc", str(folder / "_toc.yml"),
            "--path-output", str(folder), "--warningiserror", "--nitpick", "--keep-going",
            *options.get(name, []),
        ]  # fmt: skip
        log = (folder / "build.log").open("w", encoding="utf-8")
        runs[name] = (subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT), log)
    failed = []
    for name, (process, log) in runs.items():
        process.wait()
        log.close()
        print(f"--- {name}: jupyter-book build exited {process.returncode} ---")
        print((folders[name] / "build.log").read_text(encoding="utf-8"), end="")
        if process.returncode:
            failed.append(name)
    if failed:
        print(f"the build of {failed} failed: see the log above", file=sys.stderr)
    return failed


def build(langs: list[str], hidden: bool = False, build_dir: Path = BUILD) -> int:
    """Build the editions ``langs`` into ``<build_dir>/html``; ``hidden`` leaves every solution out.

    Each edition's PDF and EPUB, if `make pdf` and `make epub` have built them, are copied into its
    ``downloads/``, where its landing page links them."""
    config, toc = load_yaml("_config.yml"), load_yaml("_toc.yml")
    check_editions(config, langs)
    site, handouts = build_dir / "html", build_dir / "handouts"
    build_handouts(langs, handouts)
    folders = {lang: write_edition_files(config, toc, lang, build_dir, hidden) for lang in langs}
    if run_builds(folders, {}):
        return 1
    for lang, folder in folders.items():
        target = site / lang
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(folder / "_build" / "html", target)
        add_handouts(target, handouts, lang, hidden)
        if not hidden:
            add_downloads(target, build_dir, lang)
    for name in LANDING_FILES:
        shutil.copy2(ROOT / name, site / Path(name).name)
    landing = site / "index.html"
    text = landing.read_text(encoding="utf-8")
    for lang in editions(config):
        if not all(
            (site / lang / "downloads" / book_path(build_dir, lang, book).name).is_file()
            for book in BOOK_FORMATS
        ):
            # No PDF and EPUB of this edition (no TeX here, or `make edition`): no links to them.
            links = rf"<!-- downloads -->(?:(?!<!--).)*{lang}/downloads/.*?<!-- /downloads -->"
            text = re.sub(links, "", text)
    landing.write_text(text, encoding="utf-8")
    # One index for the whole site, split by <html lang>; only the article of each page is indexed
    # (the templates mark it data-pagefind-body), so the sidebars do not make every page match.
    index = subprocess.run(
        [sys.executable, "-m", "pagefind_bin", "--site", str(site), "--silent"], check=False
    )
    return index.returncode


def book_path(build_dir: Path, lang: str, book_format: str) -> Path:
    """Where `make pdf` and `make epub` put an edition: ``_build/pdf/posenc-ko.pdf``, ..."""
    return build_dir / book_format / f"posenc-{lang}.{book_format}"


def build_books(langs: list[str], formats: list[str], build_dir: Path = BUILD) -> int:
    """Build the PDF and/or EPUB of the editions ``langs`` into ``<build_dir>/pdf`` and ``/epub``."""
    config, toc = load_yaml("_config.yml"), load_yaml("_toc.yml")
    check_editions(config, langs)
    folders = {
        f"{lang}-{book_format}": write_edition_files(config, toc, lang, build_dir, book_format=book_format)
        for book_format in formats
        for lang in langs
    }
    for folder in folders.values():
        # Each book is built afresh: the EPUB packs every file of its output folder, LaTeX reads its
        # .aux files again, and the doctrees that Sphinx keeps would skip book_formats.py's changes.
        shutil.rmtree(folder / "_build", ignore_errors=True)
    failed = run_builds(folders, {name: BOOK_FORMATS[name.split("-")[1]] for name in folders})
    for name, folder in folders.items():
        lang, book_format = name.split("-")
        if name in failed:
            continue
        target = book_path(build_dir, lang, book_format)
        # Sphinx names the PDF after latex_documents' targetname, the EPUB after epub_basename.
        source = folder / "_build" / ("latex/book.pdf" if book_format == "pdf" else f"epub/{target.name}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        if (build_dir / "html" / lang).is_dir():
            add_downloads(build_dir / "html" / lang, build_dir, lang)
    return 1 if failed else 0


def add_downloads(target: Path, build_dir: Path, lang: str) -> None:
    """Copy the edition's PDF and EPUB, where they exist, into its site folder's ``downloads/``."""
    for book_format in BOOK_FORMATS:
        if (path := book_path(build_dir, lang, book_format)).is_file():
            (target / "downloads").mkdir(exist_ok=True)
            shutil.copy2(path, target / "downloads" / path.name)


def add_handouts(target: Path, handouts: Path, lang: str, hidden: bool) -> None:
    """Copy the edition's zip of handouts into its site folder; if ``hidden``, its notebooks too.

    The instructor page links ``handouts/posenc-handouts-<lang>.zip``. Without solutions, the
    ``.ipynb`` that each chapter page offers for download (``_sources/``) is the chapter's handout.
    """
    (target / "handouts").mkdir(exist_ok=True)
    shutil.copy2(handouts / zip_name(lang), target / "handouts" / zip_name(lang))
    if hidden:
        for notebook in (handouts / lang).glob("*.ipynb"):
            if (target / "_sources" / notebook.name).exists():
                shutil.copy2(notebook, target / "_sources" / notebook.name)


# What the PDF and EPUB builds run (Debian: texlive-xetex, latexmk, dvisvgm; see .ci/run).
TEX_PROGRAMS = ("xelatex", "latexmk", "latex", "dvisvgm")


def default_formats(hidden: bool) -> list[str]:
    """The site, and the PDF and EPUB before it if TeX is installed (on CI it must be).

    The books keep the solutions, so a site without them neither builds nor links them."""
    if hidden:
        return ["html"]
    missing = [program for program in TEX_PROGRAMS if shutil.which(program) is None]
    if not missing:
        return [*BOOK_FORMATS, "html"]
    message = f"no PDF or EPUB: {', '.join(missing)} not found (Debian: see the apt-get line of .ci/run)"
    if os.environ.get("CI") == "true":
        raise SystemExit(message)
    print(message, file=sys.stderr)
    return ["html"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("langs", nargs="*", help="editions to build (default: every edition of _config.yml)")
    parser.add_argument(
        "--solutions", choices=["shown", "hidden"], default="shown",
        help="hidden: leave every solution out of the site (make book SOLUTIONS=hidden)",
    )  # fmt: skip
    parser.add_argument(
        "--formats", nargs="+", choices=["html", *BOOK_FORMATS],
        help="html: the site; pdf, epub: the books to take away (make pdf, make epub). Default: the site,"
        " and first the PDF and EPUB where TeX is installed, since the site links them",
    )  # fmt: skip
    arguments = parser.parse_args(argv)
    langs = arguments.langs or list(editions(load_yaml("_config.yml")))
    hidden = arguments.solutions == "hidden"
    formats = arguments.formats or default_formats(hidden)
    books = [book_format for book_format in formats if book_format != "html"]
    if books and build_books(langs, books):
        return 1
    return build(langs, hidden=hidden) if "html" in formats else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
