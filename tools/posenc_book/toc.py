"""The table of contents of one edition of the book, derived from the root _toc.yml.

_toc.yml has one part per language, each starting with the edition's index page, whose numbered sections
are the chapters. An edition's table keeps only the part of its language, with its index page as the
root. `posenc_book.build` writes it, with paths relative to ``book/<lang>``, for each edition's build;
this script prints it (paths from the repository root) for a reader who wants to see it:

    python -m posenc_book toc ko
"""

from __future__ import annotations

import sys

import yaml

from posenc_book.paths import ROOT


def files_of(entries: list[dict]) -> list[str]:
    """Every file of ``entries`` and of their sections, in reading order."""
    return [f for entry in entries for f in [entry["file"], *files_of(entry.get("sections", []))]]


def toc_for_language(toc: dict, lang: str) -> dict:
    """The part of ``toc`` whose files are all under ``book/<lang>/``, rooted at its index page.

    The index's numbered chapters become the first part, the other pages (glossary, ...) a second.
    """
    prefix = f"book/{lang}/"
    for part in toc.get("parts", []):
        files = files_of(part.get("chapters", []))
        if files and all(file.startswith(prefix) for file in files):
            index, *others = part["chapters"]
            edition = {"format": toc["format"], "root": index["file"]}
            parts = []
            if index.get("sections"):
                parts.append(
                    {"caption": part["caption"], **index.get("options", {}), "chapters": index["sections"]}
                )
            if others:
                parts.append({"chapters": others})
            if parts:
                edition["parts"] = parts
            return edition
    known = sorted(
        {f.split("/")[1] for part in toc.get("parts", []) for f in files_of(part.get("chapters", []))}
    )
    raise SystemExit(f"no part of _toc.yml lists only book/{lang}/ files; editions found: {known}")


def edition_toc(toc: dict, lang: str) -> dict:
    """:func:`toc_for_language` with every path relative to ``book/<lang>``, the edition's source folder."""
    prefix = f"book/{lang}/"

    def relative(entries: list[dict]) -> list[dict]:
        return [
            {**entry, "file": entry["file"].removeprefix(prefix)}
            | ({"sections": relative(entry["sections"])} if "sections" in entry else {})
            for entry in entries
        ]

    edition = toc_for_language(toc, lang)
    edition["root"] = edition["root"].removeprefix(prefix)
    for part in edition.get("parts", []):
        part["chapters"] = relative(part["chapters"])
    return edition


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        raise SystemExit("usage: python -m posenc_book toc LANG   (en, id or ko)")
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    edition = toc_for_language(toc, argv[0])
    print(f"# The {argv[0]} edition's part of _toc.yml (python -m posenc_book toc).")
    print(yaml.safe_dump(edition, sort_keys=False, allow_unicode=True), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
