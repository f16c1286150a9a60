"""Tests of posenc_book.toc and `make edition`, which build one edition of the book alone."""

from __future__ import annotations

import re
import subprocess
import sys

import posenc_book.build
import posenc_book.toc as toc
import pytest
import yaml
from book_files import ROOT

TOC = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
EDITIONS = sorted({part["chapters"][0]["file"].split("/")[1] for part in TOC["parts"]})


SAMPLE = {
    "format": "jb-book",
    "root": "book/index",
    "parts": [
        {"caption": "English", "chapters": [{"file": "book/en/index"}, {"file": "book/en/glossary"}]},
        {
            "caption": "한국어",
            "chapters": [
                {
                    "file": "book/ko/index",
                    "options": {"numbered": True},
                    "sections": [{"file": "book/ko/01_motivation"}, {"file": "book/ko/02_formula"}],
                },
                {"file": "book/ko/glossary"},
            ],
        },
        {"caption": "Bahasa Indonesia", "chapters": [{"file": "book/id/index"}]},
    ],
}


def test_numbered_chapters_then_other_pages_with_the_index_as_root():
    assert toc.toc_for_language(SAMPLE, "ko") == {
        "format": "jb-book",
        "root": "book/ko/index",
        "parts": [
            {
                "caption": "한국어",
                "numbered": True,
                "chapters": [{"file": "book/ko/01_motivation"}, {"file": "book/ko/02_formula"}],
            },
            {"chapters": [{"file": "book/ko/glossary"}]},
        ],
    }
    assert toc.toc_for_language(SAMPLE, "en") == {
        "format": "jb-book",
        "root": "book/en/index",
        "parts": [{"chapters": [{"file": "book/en/glossary"}]}],
    }
    assert toc.toc_for_language(SAMPLE, "id") == {"format": "jb-book", "root": "book/id/index"}


def test_unknown_language_is_an_error():
    with pytest.raises(SystemExit, match=r"editions found: \['en', 'id', 'ko'\]"):
        toc.toc_for_language(SAMPLE, "fr")


@pytest.mark.parametrize("lang", EDITIONS)
def test_edition_toc_of_the_book_is_valid_and_complete(lang):
    command = [sys.executable, "-m", "posenc_book", "toc", lang]
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    printed = result.stdout
    assert printed.startswith(f"# The {lang} edition's part of _toc.yml")
    edition = yaml.safe_load(printed)
    (part,) = [part for part in TOC["parts"] if part["chapters"][0]["file"] == f"book/{lang}/index"]
    assert edition["format"] == TOC["format"] == "jb-book"
    assert edition["root"] == f"book/{lang}/index"
    files_of = toc.files_of
    listed = [edition["root"]] + [file for p in edition.get("parts", []) for file in files_of(p["chapters"])]
    assert listed == toc.files_of(part["chapters"])


def test_edition_toc_is_relative_to_the_edition_folder():
    edition = toc.edition_toc(SAMPLE, "ko")
    assert edition["root"] == "index"
    assert edition["parts"][0]["chapters"] == [{"file": "01_motivation"}, {"file": "02_formula"}]
    assert edition["parts"][1] == {"chapters": [{"file": "glossary"}]}
    assert SAMPLE["parts"][1]["chapters"][0]["sections"][0] == {"file": "book/ko/01_motivation"}  # untouched


def test_make_edition_builds_one_edition_with_warnings_as_errors():
    commands = subprocess.run(
        ["make", "--dry-run", "--always-make", "edition", "EDITION=ko"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert re.search(r"-m posenc_book build( --\S+ \S+)* ko$", commands, re.MULTILINE), commands
    command = posenc_book.build.jupyter_book("ko", ROOT / "_build" / "editions" / "ko", [])
    assert {"--warningiserror", "--nitpick", "--keep-going"} <= set(command), command
