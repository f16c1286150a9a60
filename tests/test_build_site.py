"""Tests of .ci/build_site.py: each edition's configuration is derived from the root _config.yml."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from book_files import ROOT, ci_script

build_site = ci_script("build_site")
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))


def test_config_names_the_three_editions_and_their_words():
    editions = build_site.editions(CONFIG)
    assert list(editions) == ["en", "id", "ko"]
    for words in editions.values():
        assert set(words) == {"name", "title", "author"}
    # The editions are the parts of _toc.yml, in the same order.
    assert [part["chapters"][0]["file"].split("/")[1] for part in TOC["parts"]] == list(editions)


@pytest.mark.parametrize("lang", ["en", "id", "ko"])
def test_edition_config(lang):
    edition = build_site.edition_config(CONFIG, lang)
    words = CONFIG["sphinx"]["config"]["editions"][lang]
    assert edition["sphinx"]["config"]["language"] == lang
    assert (edition["title"], edition["author"]) == (words["title"], words["author"])
    assert edition["repository"]["path_to_book"] == f"book/{lang}"
    settings = edition["sphinx"]["config"]
    for path in [*settings["templates_path"], *settings["html_static_path"], settings["html_favicon"]]:
        assert Path(path).is_absolute() and Path(path).exists(), path
    for path in edition["sphinx"]["local_extensions"].values():
        assert Path(path).is_absolute() and Path(path).is_dir(), path
    # The root configuration itself is left as it was.
    assert CONFIG["sphinx"]["config"]["language"] == "en"
    assert CONFIG["repository"]["path_to_book"] == ""


def test_unknown_edition_is_an_error():
    with pytest.raises(SystemExit, match=r"unknown edition\(s\) \['fr'\]"):
        build_site.build(["fr"])


def test_landing_page_links_every_edition():
    html = (ROOT / "book" / "index.html").read_text(encoding="utf-8")
    for lang in build_site.editions(CONFIG):
        assert f'href="{lang}/index.html" hreflang="{lang}"' in html
