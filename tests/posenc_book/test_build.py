"""Tests of posenc_book.build: each edition's configuration is derived from the root _config.yml, and
`make book` prints one line per build, a summary, and a failed build's last lines."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import posenc_book.build as build
import pytest
import yaml
from book_files import ROOT
from posenc_book.paths import TEMPLATES

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))


def test_config_names_the_three_editions_and_their_words():
    editions = build.editions(CONFIG)
    assert list(editions) == ["en", "id", "ko"]
    for words in editions.values():
        assert set(words) == {"name", "title", "author"}
    # The editions are the parts of _toc.yml, in the same order.
    assert [part["chapters"][0]["file"].split("/")[1] for part in TOC["parts"]] == list(editions)


@pytest.mark.parametrize("lang", ["en", "id", "ko"])
def test_edition_config(lang):
    edition = build.edition_config(CONFIG, lang)
    words = CONFIG["sphinx"]["config"]["editions"][lang]
    assert edition["sphinx"]["config"]["language"] == lang
    assert (edition["title"], edition["author"]) == (words["title"], words["author"])
    assert edition["repository"]["path_to_book"] == f"book/{lang}"
    settings = edition["sphinx"]["config"]
    for path in [*settings["templates_path"], *settings["html_static_path"], settings["html_favicon"]]:
        assert Path(path).is_absolute() and Path(path).exists(), path
    assert settings["templates_path"] == [str(TEMPLATES)]
    assert "local_extensions" not in edition["sphinx"]  # none: every extension loads by module name
    # posenc_book's extensions load by module name, from the installed package.
    own = [name for name in edition["sphinx"]["extra_extensions"] if name.startswith("posenc_book.")]
    assert "posenc_book.sphinx.langswitch" in own
    assert all(importlib.util.find_spec(name) for name in own), own
    # The root configuration itself is left as it was.
    assert CONFIG["sphinx"]["config"]["language"] == "en"
    assert CONFIG["repository"]["path_to_book"] == ""


def test_unknown_edition_is_an_error():
    with pytest.raises(SystemExit, match=r"unknown edition\(s\) \['fr'\]"):
        build.build(["fr"])


def test_landing_page_links_every_edition():
    html = (ROOT / "book" / "index.html").read_text(encoding="utf-8")
    for lang in build.editions(CONFIG):
        assert f'href="{lang}/index.html" hreflang="{lang}"' in html


# What `make book` prints (posenc_book.build's run_builds and build_all), tried on commands that take a
# second: one line per build, progress while they run, the logs, the summary, a failure's last lines.
BUILD_LINE = re.compile(r"^(?P<name>[\w-]+) +(?P<seconds>\d+) s  (?P<what>.+)$")


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_each_build_is_one_line_and_its_output_goes_to_its_log(tmp_path, capsys):
    builds = {
        "html-en": (python("import time; print('Sphinx says a lot'); time.sleep(3)"), "_build/html/en/"),
        "pdf-ko": (python("print('LaTeX says more')"), "_build/pdf/posenc-ko.pdf"),
    }
    assert build.run_builds(builds, tmp_path / "logs", progress=1) == []
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    # A line as each build ends, the quicker first: its name, its seconds, what it made.
    done = [match.group("name", "what") for line in lines if (match := BUILD_LINE.match(line))]
    assert done == [("pdf-ko", "_build/pdf/posenc-ko.pdf"), ("html-en", "_build/html/en/")]
    # Meanwhile, a line a second (here) with the builds still running.
    progress = [line for line in lines if not BUILD_LINE.match(line)]
    assert 2 <= len(progress) <= 4, lines
    assert all(re.fullmatch(r" +\d s  still building: [\w, -]*html-en[\w, -]*", line) for line in progress)
    assert "Sphinx" not in out and "LaTeX" not in out
    assert (tmp_path / "logs" / "html-en.log").read_text(encoding="utf-8") == "Sphinx says a lot\n"
    assert (tmp_path / "logs" / "pdf-ko.log").read_text(encoding="utf-8") == "LaTeX says more\n"


def test_a_failed_build_prints_the_end_of_its_log(tmp_path, capsys):
    builds = {
        "epub-id": (
            python(
                "import sys\nfor n in range(100): print('line', n)\n"
                "print('copying images... [ 50%] one.png')\n"
                "print('\\x1b[91mWARNING: red\\x1b[39;49;00m')\nsys.exit(2)"
            ),
            "x.epub",
        ),
        "html-id": (python("pass"), "_build/html/id/"),
    }
    assert build.run_builds(builds, tmp_path, progress=60) == ["epub-id"]
    out, err = capsys.readouterr()
    log = tmp_path / "epub-id.log"
    assert re.search(rf"^epub-id +\d s  FAILED \(exit 2\), see {re.escape(str(log))}$", out, re.M)
    assert re.search(r"^html-id +\d s  _build/html/id/$", out, re.M)
    tail = err.splitlines()
    assert tail[0] == f"--- epub-id failed; the last 40 lines of its log, {log}: ---"
    # Its last 40 lines, without Sphinx's progress lines, and a log without Sphinx's colours.
    assert tail[1:-1] == [f"line {n}" for n in range(61, 100)] + ["WARNING: red"]
    assert tail[-1] == f"--- end of {log} ---"
    assert log.read_text(encoding="utf-8").endswith("[ 50%] one.png\nWARNING: red\n")


def fake_build(kind: str, fails: str = "") -> Callable[..., int]:
    """``build_books`` or ``build`` as run_builds runs them, each build a command of a second or less."""

    def run(langs, *formats, hidden=False, build_dir=None):
        names = [
            f"{book_format}-{lang}" for book_format in (formats[0] if formats else [kind]) for lang in langs
        ]
        builds = {
            name: (python(f"import sys; print('{name}'); sys.exit({int(name == fails)})"), name)
            for name in names
        }
        return 1 if build.run_builds(builds, build.BUILD / "logs") else 0

    return run


@pytest.fixture
def fake_builds(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "BUILD", tmp_path)
    monkeypatch.setattr(build, "build_books", fake_build("books"))
    monkeypatch.setattr(build, "build", fake_build("html"))
    return tmp_path


def test_make_book_says_what_it_built_and_where_to_open_it(fake_builds, capsys):
    assert build.main(["--formats", "pdf", "epub", "html"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    names = [f"{kind}-{lang}" for kind in ("pdf", "epub", "html") for lang in ("en", "id", "ko")]
    assert sorted(BUILD_LINE.match(line)["name"] for line in lines[:-1]) == sorted(names)
    assert re.fullmatch(
        rf"Built in \d+ s\. Open {re.escape(str(fake_builds / 'html' / 'index.html'))}, or run `make serve`"
        r" to read it \(with its search\) at http://127\.0\.0\.1:8000",
        lines[-1],
    )
    assert err == ""
    # The same lines, for the tests to count (test_make_book_prints_60_lines_or_fewer); a log per build.
    assert (fake_builds / "logs" / "build.txt").read_text(encoding="utf-8") == out
    assert sorted(path.stem for path in (fake_builds / "logs").glob("*.log")) == sorted(names)
    # One edition: its own landing page is the one to open.
    build.main(["ko", "--formats", "html"])
    summary = capsys.readouterr().out.splitlines()[-1]
    assert re.match(rf"Built in \d+ s\. Open {re.escape(str(fake_builds))}/html/ko/index\.html, ", summary)


def test_a_failed_make_book_ends_with_the_failure_and_exits_non_zero(fake_builds, monkeypatch, capsys):
    monkeypatch.setattr(build, "build_books", fake_build("books", fails="pdf-id"))
    assert build.main(["--formats", "pdf", "html"]) == 1
    out, err = capsys.readouterr()
    log = fake_builds / "logs" / "pdf-id.log"
    assert re.search(rf"^pdf-id +\d s  FAILED \(exit 1\), see {re.escape(str(log))}$", out, re.M)
    assert "html-" not in out  # the site is not built after a failed book
    assert err.splitlines()[:-1] == [
        f"--- pdf-id failed; the last line of its log, {log}: ---",
        "pdf-id",
        f"--- end of {log} ---",
    ]
    assert re.fullmatch(
        rf"Failed after \d+ s; the log of each build is in {re.escape(str(fake_builds))}/logs/",
        err.splitlines()[-1],
    )
    assert (fake_builds / "logs" / "build.txt").read_text(encoding="utf-8") == out + err


@pytest.mark.needs_build
def test_make_book_prints_60_lines_or_fewer():
    """The real `make book` that `make test` runs first (test: lint book): what build.py printed,
    copied to _build/logs/build.txt, and the commands make echoes (the install step's too)."""
    transcript = ROOT / "_build" / "logs" / "build.txt"
    if not transcript.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{transcript} is missing: `make test` runs `make book` first")
        pytest.skip(f"no {transcript}: run `make book` (as `make test` does)")
    lines = transcript.read_text(encoding="utf-8").splitlines()
    if not lines or not lines[-1].startswith("Built in ") or "Open _build/html/index.html" not in lines[-1]:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{transcript} is not the output of a successful `make book`:\n" + "\n".join(lines))
        pytest.skip(f"the last build was not a successful `make book`: {lines[-1:]}")
    names = {match["name"] for line in lines if (match := BUILD_LINE.match(line))}
    assert {"handouts", "html-en", "html-id", "html-ko", "search"} <= names, lines
    echoed = subprocess.run(
        ["make", "--dry-run", "--always-make", "book"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert len(echoed) + len(lines) <= 60, "\n".join(echoed + lines)
