"""Build the site: one Sphinx build per edition, the landing page, and one search index.

    python -m posenc_book build            # every edition named in _config.yml
    python -m posenc_book build ko         # the Korean edition alone (and the landing page, the index)
    python -m posenc_book build --solutions hidden    # the same site without any solution
    python -m posenc_book build --formats pdf epub    # the books alone: _build/pdf/, _build/epub/

Without ``--formats``, the PDF and EPUB of each edition are built first where TeX is installed (on CI
it must be), and the site links them (``build_books``, ``default_formats``).

`make book` and `make edition EDITION=ko` call this. For each language it derives, from the root
_config.yml and _toc.yml (the single source), an edition's own configuration (its ``language``, title
and author) and table of contents (rooted at ``book/<lang>/index``), writes both to
``_build/editions/<lang>/``, and runs ``jupyter-book build book/<lang>`` with warnings as errors. The
editions build in parallel; each one's HTML lands in ``_build/html/<lang>/``. Then the landing page
(``book/index.html``) is copied to the site root, and Pagefind indexes the site: one index per
``<html lang>``, so that a search from an edition finds only that edition's pages.

It prints one line per build (``pdf-ko``, ``html-en``, ``search``: its seconds, its output), a line every
30 s with the builds still running, and a summary with the page to open; each build's full output is in
``_build/logs/<build>.log``, and a failed build's last lines are printed (``run_builds``).

Each edition's student handouts are written first (``posenc_book.handouts.strip``, as `make handouts`
does), and the edition's zip of them is copied to ``_build/html/<lang>/handouts/``, where the instructor
page links it. ``--solutions hidden`` (`make book SOLUTIONS=hidden`) builds the same site into the same
``_build/html`` with every solution left out: sphinx-exercise's ``hide_solutions``, made to work for
gated solutions by posenc_book.sphinx.hidden_solutions; each chapter's downloadable ``.ipynb`` is its
handout; and there are no Binder or Colab buttons, which would open the notebooks with their solutions.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import TextIO

import yaml

from posenc_book.handouts.strip import build_handouts, zip_name
from posenc_book.paths import BUILD, ROOT, TEMPLATES, editions
from posenc_book.toc import edition_toc
from posenc_book.words import message

JUPYTER_BOOK = Path(sys.executable).with_name("jupyter-book")
# The landing page and what it needs, copied into the site root as they are.
LANDING_FILES = ["book/index.html", "book/_static/favicon.svg"]


def load_yaml(name: str) -> dict:
    return yaml.safe_load((ROOT / name).read_text(encoding="utf-8"))


# How each edition is typeset in the PDF: Sphinx's xelatex defaults (FreeSerif, FreeSans and FreeMono
# from fonts-freefont-otf) and kotex with the Nanum fonts for Hangul (fonts-nanum): Myeongjo in text,
# Gothic in headings, GothicCoding in code. Every edition needs Hangul: the code cells, the same in all
# three, hold the Korean labels of the figures. English and Indonesian set their language with
# polyglossia (hyphenation, LaTeX's words: "Bab", "Daftar Isi") and keep their quotes and brackets in
# the Latin font; Korean sets its words with kotex's own option (polyglossia's Korean would set Latin
# letters in the Hangul font), and its chapter heads with the class's plain style, since fncychap's
# would print the chapter's number without the counter word that follows it in Korean.
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
# polyglossia's Indonesian and kotex name figures and tables (in Indonesian "Gambar") after Sphinx has
# set its "Gambar " with a space: the space goes between the name and the number again.
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
            # The date on the title page as each language writes it ("2 December 2026", "2 Desember 2026"),
            # not Sphinx's default "%b %d, %Y", which gives "Des 02, 2026" in Indonesian.
            "today_fmt": message("pdf.date_format", lang),
            "latex_elements": {
                "papersize": "a4paper",
                # The word before the version on the title page and running heads, where Sphinx prints its
                # software word "Release" ("Rilis" in Indonesian). The version is a dotted number (0.1.0),
                # and a book that carries one prints the plain word for it, as open textbooks do ("Version
                # 2.0.17"): "Edition" and its translations are counted ("Second Edition", "Edisi Kedua")
                # and do not take 0.1.0.
                "releasename": message("pdf.version_word", lang),
                **LATEX_BY_LANGUAGE[lang],
                "preamble": LATEX_BY_LANGUAGE[lang]["preamble"] + (CAPTION_SPACE if lang != "en" else ""),
                # A long line of code or output that has no space to break at is broken anyway.
                "sphinxsetup": "verbatimforcewraps=true",
            },
            "latex_domain_indices": False,  # sphinx-proof's "Proof Index", in English
            # The API reference's entries make an index; Sphinx would sort it with xindy under xelatex,
            # which Debian's texlive-xetex does not install: makeindex (texlive-binaries) sorts it.
            "latex_use_xindy": False,
        }
    # EPUB readers run no JavaScript: the math is typeset at build time, as SVG pictures, by pdfTeX
    # (kotex for the few formulas with Hangul); posenc_book.sphinx.book_formats typesets them in one run.
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


COURSE = "book/course.yml"


def lab_minutes(alone: int) -> int:
    """A lab session takes half as much again as working alone, rounded up to 5 minutes."""
    return 5 * math.ceil(1.5 * alone / 5)


def session_minutes(course: dict, work: list) -> tuple[int, int]:
    """The minutes of one session's work in class and alone: chapters at their lab or alone time."""
    chapters = course["chapters"]
    activities = sum(next(iter(item.values())) for item in work if isinstance(item, dict))
    numbers = [item for item in work if isinstance(item, int)]
    return sum(lab_minutes(chapters[n]) for n in numbers) + activities, sum(
        chapters[n] for n in numbers
    ) + activities


def course_substitutions(course: dict, lang: str) -> dict[str, int | str]:
    """The MyST substitutions of the instructor pages: book/course.yml's numbers and their totals.

    Minutes and points are numbers; the sums the pages write out ("40 + 75 + ...") and the totals in
    hours, or with a thousands separator, are text in the edition's own way (``formats``).
    """
    words = course["formats"][lang]

    def total(minutes: int) -> str:
        return f"{minutes:,}".replace(",", words["thousands"])

    def time(minutes: int) -> str:
        hours, rest = divmod(minutes, 60)
        return (words["hours_minutes"] if rest else words["hours"]).format(h=hours, m=rest)

    alone = course["chapters"]
    lab = {number: lab_minutes(minutes) for number, minutes in alone.items()}
    values: dict[str, int | str] = {}
    for kind, times in (("alone", alone), ("lab", lab)):
        values |= {f"{kind}_{number}": minutes for number, minutes in times.items()}
        values[f"{kind}_sum"] = " + ".join(map(str, times.values()))
        values[f"{kind}_total"] = total(sum(times.values()))
        values[f"{kind}_total_time"] = time(sum(times.values()))
        for part, numbers in course["parts"].items():
            values[f"{kind}_{part}"] = sum(times[n] for n in numbers)
            values[f"{kind}_{part}_time"] = time(sum(times[n] for n in numbers))
    values |= {f"{name}_session": minutes for name, minutes in course["sessions"].items()}
    values["points_per_chapter"] = course["points_per_chapter"]
    for plan, sessions in course["plans"].items():
        in_class = homework = 0
        for session in sessions:
            for where, work in (
                ("class", session.get("in_class", [])),
                ("homework", session.get("homework", [])),
            ):
                values |= {
                    f"{plan}_{k}": v for item in work if isinstance(item, dict) for k, v in item.items()
                }
                minutes = session_minutes(course, work)[0 if where == "class" else 1]
                values[f"{plan}_{session['session']}_{where}"] = minutes
                in_class, homework = (
                    (in_class + minutes, homework) if where == "class" else (in_class, homework + minutes)
                )
        values |= {f"{plan}_class": in_class, f"{plan}_homework": homework}
        values |= {
            f"{plan}_total": total(in_class + homework),
            f"{plan}_total_time": time(in_class + homework),
        }
    values |= {f"capstone_{name}": points for name, points in course["capstone"].items()}
    values["capstone_total"] = sum(course["capstone"].values())
    return values


# Jupyter Book 1 loads sphinx-design and sphinx-thebe in every build, and each puts its files on every
# page (sphinx-design.min.css, 55 KB, and design-tabs.js; sphinx-thebe.js and its configuration), which
# no page uses: the book has no tab, grid, card or dropdown, and no live-code button. An edition lists
# its extensions itself (``extensions`` in sphinx.config replaces Jupyter Book's list): Jupyter Book's
# without these two, then _config.yml's. A directive of sphinx-design would now fail the build.
UNUSED_EXTENSIONS = ("sphinx_design", "sphinx_thebe")


def sphinx_extensions(extra: list[str]) -> list[str]:
    """Jupyter Book's default Sphinx extensions without ``UNUSED_EXTENSIONS``, then ``extra``."""
    from jupyter_book.config import get_default_sphinx_config

    names = dict.fromkeys([*get_default_sphinx_config()["extensions"], *extra])
    return [name for name in names if name not in UNUSED_EXTENSIONS]


def edition_config(config: dict, lang: str, hidden: bool = False, book_format: str = "html") -> dict:
    """``config`` for one edition: its language, title and author; every path made absolute.

    Jupyter Book resolves Sphinx's paths against the source folder (``book/<lang>``): absolute paths
    mean the same from the configuration file in ``_build``. The templates are posenc_book's
    (``posenc_book/templates``); its extensions load by module name.
    ``hidden`` leaves the solutions out, and the launch buttons, which open the notebooks with them.
    ``book_format`` "pdf" or "epub" gives the settings of that build instead of the site's (the
    templates, which extend the site's theme, are left out).
    Every edition and format gets the course kit's numbers (book/course.yml) as MyST substitutions.
    """
    words = editions(config)[lang]
    edition = yaml.safe_load(yaml.safe_dump(config))  # a deep copy
    edition["title"] = words["title"]
    edition["author"] = words["author"]
    edition["repository"]["path_to_book"] = f"book/{lang}"
    # The instructor pages' numbers (book/course.yml), as `{{ name }}` substitutions in every format.
    parse = edition.setdefault("parse", {})
    parse["myst_substitutions"] = {
        **parse.get("myst_substitutions", {}),
        **course_substitutions(load_yaml(COURSE), lang),
    }
    sphinx = edition["sphinx"]
    settings = sphinx["config"]
    settings["language"] = lang
    settings["templates_path"] = [str(TEMPLATES)]
    settings["html_static_path"] = [str(ROOT / path) for path in settings.get("html_static_path", [])]
    if "html_favicon" in settings:
        settings["html_favicon"] = str(ROOT / settings["html_favicon"])
    if book_format != "html":
        # The site's templates extend its theme; its static files are MathJax and the site's CSS and JS.
        settings.update(templates_path=[], html_static_path=[], html_css_files=[], html_js_files=[])
        settings.pop("html_favicon", None)
        settings.update(book_settings(lang, book_format))
        sphinx["extra_extensions"] = [*sphinx.get("extra_extensions", []), "posenc_book.sphinx.book_formats"]
        if book_format == "epub":
            sphinx["extra_extensions"] = [*sphinx.get("extra_extensions", []), "sphinx.ext.imgmath"]
            # The EPUB's metadata: without them, Sphinx writes "Project name not set".
            settings.update(project=words["title"], epub_title=words["title"])
            settings.update(epub_author=words["author"], epub_publisher=words["author"])
    if hidden:
        settings["hide_solutions"] = True
        extensions = sphinx.get("extra_extensions", [])
        sphinx["extra_extensions"] = [*extensions, "posenc_book.sphinx.hidden_solutions"]
    settings["extensions"] = sphinx_extensions(sphinx.get("extra_extensions", []))
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
    note = f"# Generated by posenc_book.build from the root {{}} for the {lang} edition: do not edit.\n"
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


# What `make book` prints: one line per build as it ends (its name, its seconds, where its output is),
# a line now and then while builds run, and a summary; each build's own output goes to its log,
# ``_build/logs/<build>.log``. A copy of the lines goes to ``_build/logs/build.txt`` (``TRANSCRIPT``).
LOGS = "logs"
TRANSCRIPT = "build.txt"
TAIL_LINES = 40  # of a failed build's log, leaving out Sphinx's progress ("copying images... [ 50%]")
PROGRESS_LINE = re.compile(r"\[\s*\d+%\]")
# Jupyter Book runs Sphinx in its own process, which never turns Sphinx's colours off: the logs lose them.
COLOUR = re.compile(r"\x1b\[[0-9;]*m")
PROGRESS_SECONDS = 30  # a line every 30 s while builds run, every minute after the first three
_transcript: list[TextIO] = []


def say(text: str, error: bool = False) -> None:
    """Print a line of the build's report (to stderr if ``error``), and copy it to the transcript."""
    print(text, file=sys.stderr if error else sys.stdout, flush=True)
    for transcript in _transcript:
        transcript.write(text + "\n")
        transcript.flush()


def shown(path: Path, folder: bool = False) -> str:
    """``path`` as a person types it: relative to the repository where it is inside it."""
    text = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    return text + "/" if folder else text


def duration(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60:02d} s"


def report(name: str, seconds: float, what: str) -> None:
    say(f"{name:<9}{seconds:6.0f} s  {what}")


def jupyter_book(lang: str, folder: Path, options: list[str]) -> list[str]:
    """The command that builds ``book/<lang>`` with the configuration that ``write_edition_files``
    wrote into ``folder``; ``options`` adds the build's own (its builder)."""
    return [
        str(JUPYTER_BOOK),
        "build",
        str(ROOT / "book" / lang),
        "--config",
        str(folder / "_config.yml"),
        "--toc",
        str(folder / "_toc.yml"),
        "--path-output",
        str(folder),
        "--warningiserror",
        "--nitpick",
        "--keep-going",
        *options,
    ]


def run_builds(
    builds: dict[str, tuple[list[str], str]], logs: Path, progress: float = PROGRESS_SECONDS
) -> list[str]:
    """Run the commands of ``builds`` (name -> (command, what it makes)) at once; return the failed.

    Each command's output goes to ``<logs>/<name>.log``. A line is printed as each one ends: its name,
    its seconds and what it made, or FAILED and its log; every ``progress`` seconds (twice as
    long after the first six such lines), the names of those still running. Then, for each that
    failed, the last ``TAIL_LINES`` lines of its log (not counting Sphinx's progress lines). The logs
    are plain text, without Sphinx's colours.
    """
    logs.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    running = {}
    for name, (command, _) in builds.items():
        log = (logs / f"{name}.log").open("w", encoding="utf-8")
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=ROOT
        )
        running[name] = (process, log)
    failed, next_line, reported = [], progress, 0
    while running:
        for name, (process, log) in list(running.items()):
            if process.poll() is None:
                continue
            log.close()
            del running[name]
            path = logs / f"{name}.log"
            path.write_text(
                COLOUR.sub("", path.read_text(encoding="utf-8", errors="replace")), encoding="utf-8"
            )
            if process.returncode:
                failed.append(name)
                what = f"FAILED (exit {process.returncode}), see {shown(logs / f'{name}.log')}"
            else:
                what = builds[name][1]
            report(name, time.monotonic() - start, what)
        elapsed = time.monotonic() - start
        if running and elapsed >= next_line:
            say(f"{duration(elapsed):>17}  still building: {', '.join(running)}")
            reported += 1
            next_line += progress if reported < 6 else 2 * progress
        time.sleep(0.1)
    for name in failed:
        log = logs / f"{name}.log"
        text = log.read_text(encoding="utf-8", errors="replace")
        tail = [line for line in text.splitlines() if not PROGRESS_LINE.search(line)][-TAIL_LINES:]
        lines = f"{len(tail)} lines" if len(tail) != 1 else "line"
        say(f"--- {name} failed; the last {lines} of its log, {shown(log)}: ---", error=True)
        for line in tail:
            say(line, error=True)
        say(f"--- end of {shown(log)} ---", error=True)
    return failed


def build(langs: list[str], hidden: bool = False, build_dir: Path = BUILD) -> int:
    """Build the editions ``langs`` into ``<build_dir>/html``; ``hidden`` leaves every solution out.

    Each edition's PDF and EPUB, if `make pdf` and `make epub` have built them, are copied into its
    ``downloads/``, where its landing page links them."""
    config, toc = load_yaml("_config.yml"), load_yaml("_toc.yml")
    check_editions(config, langs)
    site, handouts, logs = build_dir / "html", build_dir / "handouts", build_dir / LOGS
    start = time.monotonic()
    logs.mkdir(parents=True, exist_ok=True)
    with (logs / "handouts.log").open("w", encoding="utf-8") as log:
        with redirect_stdout(log), redirect_stderr(log):  # nbformat's warnings, if any
            build_handouts(langs, handouts)
    report("handouts", time.monotonic() - start, shown(handouts, folder=True))
    folders = {lang: write_edition_files(config, toc, lang, build_dir, hidden) for lang in langs}
    builds = {
        f"html-{lang}": (jupyter_book(lang, folder, []), shown(site / lang, folder=True))
        for lang, folder in folders.items()
    }
    if run_builds(builds, logs):
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
    index = [sys.executable, "-m", "pagefind_bin", "--site", str(site)]
    return 1 if run_builds({"search": (index, shown(site / "pagefind", folder=True))}, logs) else 0


def book_path(build_dir: Path, lang: str, book_format: str) -> Path:
    """Where `make pdf` and `make epub` put an edition: ``_build/pdf/posenc-ko.pdf``, ..."""
    return build_dir / book_format / f"posenc-{lang}.{book_format}"


def build_books(langs: list[str], formats: list[str], build_dir: Path = BUILD) -> int:
    """Build the PDF and/or EPUB of the editions ``langs`` into ``<build_dir>/pdf`` and ``/epub``."""
    config, toc = load_yaml("_config.yml"), load_yaml("_toc.yml")
    check_editions(config, langs)
    folders = {
        f"{book_format}-{lang}": write_edition_files(config, toc, lang, build_dir, book_format=book_format)
        for book_format in formats
        for lang in langs
    }
    for folder in folders.values():
        # Each book is built afresh: the EPUB packs every file of its output folder, LaTeX reads its
        # .aux files again, and the doctrees that Sphinx keeps would skip book_formats.py's changes.
        shutil.rmtree(folder / "_build", ignore_errors=True)
    builds = {}
    for name, folder in folders.items():
        book_format, lang = name.split("-")
        command = jupyter_book(lang, folder, BOOK_FORMATS[book_format])
        builds[name] = (command, shown(book_path(build_dir, lang, book_format)))
    failed = run_builds(builds, build_dir / LOGS)
    for name, folder in folders.items():
        book_format, lang = name.split("-")
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
    say(message, error=True)
    return ["html"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("langs", nargs="*", help="editions to build (default: every edition of _config.yml)")
    parser.add_argument(
        "--solutions",
        choices=["shown", "hidden"],
        default="shown",
        help="hidden: leave every solution out of the site (make book SOLUTIONS=hidden)",
    )
    parser.add_argument(
        "--formats",
        nargs="+",
        choices=["html", *BOOK_FORMATS],
        help="html: the site; pdf, epub: the books to take away (make pdf, make epub). Default: the site,"
        " and first the PDF and EPUB where TeX is installed, since the site links them",
    )
    arguments = parser.parse_args(argv)
    every = list(editions(load_yaml("_config.yml")))
    langs = arguments.langs or every
    hidden = arguments.solutions == "hidden"
    (BUILD / LOGS).mkdir(parents=True, exist_ok=True)
    with (BUILD / LOGS / TRANSCRIPT).open("w", encoding="utf-8") as transcript:
        _transcript.append(transcript)
        try:
            return build_all(langs, every, hidden, arguments.formats or default_formats(hidden))
        finally:
            _transcript.remove(transcript)


def build_all(langs: list[str], every: list[str], hidden: bool, formats: list[str]) -> int:
    """The books, then the site, of ``langs``; then the summary: what to open, or why it failed."""
    start = time.monotonic()
    books = [book_format for book_format in formats if book_format != "html"]
    failed = bool(books) and build_books(langs, books)
    if not failed and "html" in formats:
        failed = build(langs, hidden=hidden)
    took = duration(time.monotonic() - start)
    if failed:
        say(f"Failed after {took}; the log of each build is in {shown(BUILD / LOGS, folder=True)}", True)
        return 1
    if "html" not in formats:
        say(f"Built in {took}: " + ", ".join(shown(BUILD / book, folder=True) for book in books))
    else:
        page = BUILD / "html" / (langs[0] if langs != every and len(langs) == 1 else "") / "index.html"
        say(
            f"Built in {took}. Open {shown(page)}, or run `make serve` to read it (with its search) at"
            " http://127.0.0.1:8000"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
