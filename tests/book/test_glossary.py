"""The glossaries of the three editions define the same terms, and the chapters link the same terms to them.

Each ``glossary.md`` holds one Sphinx ``glossary`` directive, so that every term has a ``#term-…`` anchor that
a chapter's ``{term}`` role links to (issue 32: "a glossary with anchors that chapters link to"). A term of
the Indonesian and Korean glossaries ends with its English name in parentheses ("위치 인코딩 (positional
encoding)"), which keys it to the English entry; a term written the same in every language (RoPE, YaRN,
d_model) is its own key. Through these keys, the terms a chapter links in one edition are compared with
those it links in the others. The build (``-W``, nitpicky) fails on a ``{term}`` whose entry is missing;
these tests say which edition forgot a link.
"""

from __future__ import annotations

import re

import nbformat
import pytest
from book_files import BOOK

from posenc.words import LANGUAGES

LANGS = LANGUAGES
GLOSSARY = re.compile(r"^```\{glossary\}\n(?P<body>.*?)^```$", re.M | re.S)
# The English name at the end of a translated term; it may hold parentheses itself: "... (a (b))".
ENGLISH = re.compile(r"\(((?:[^()]|\([^()]*\))+)\)\s*$")
# An abbreviation after a comma in a translated term's English name, which keys the English entry that
# gives it in parentheses: "멀티헤드 잠재 어텐션 (multi-head latent attention, MLA)" is the entry
# "multi-head latent attention (MLA)" (nested parentheses read badly in the Korean entry, issue 32).
ABBREVIATION = re.compile(r"^(?P<name>.+), (?P<abbr>[A-Z][A-Za-z0-9-]*)$")
# {term}`target` or {term}`shown text <target>`
TERM_ROLE = re.compile(r"\{term\}`(?:[^`<]*<(?P<target>[^`>]+)>|(?P<bare>[^`]+))`")
CHAPTERS = sorted(path.name for path in (BOOK / "en").glob("0*.ipynb"))


def glossary_entries(text: str, lang: str) -> dict[str, str]:
    """The terms of a glossary page, as Sphinx matches them (markup gone, lower case) -> their English key."""
    blocks = GLOSSARY.findall(text)
    assert len(blocks) == 1, f"{lang}: expected one glossary directive, found {len(blocks)}"
    entries = {}
    for line in blocks[0].splitlines():
        # Terms start in column 0; definitions are indented; ":sorted:" is an option.
        if not line.strip() or line[0].isspace() or line.startswith(":"):
            continue
        # Italics mark foreign words (EYD V); a term in italics as a whole has no English name after it:
        # "*multi-head latent attention (MLA)*".
        match = ENGLISH.search(line.strip())
        term = line.strip().replace("*", "")
        key = match.group(1).replace("*", "") if match and lang != "en" else term
        if lang != "en":
            key = ABBREVIATION.sub(r"\g<name> (\g<abbr>)", key)
        assert term.lower() not in entries, f"{lang}: {term!r} defined twice"
        entries[term.lower()] = key
    return entries


def glossary(lang: str) -> dict[str, str]:
    return glossary_entries((BOOK / lang / "glossary.md").read_text(encoding="utf-8"), lang)


def linked_terms(markdown: str, entries: dict[str, str], where: str) -> set[str]:
    """The English keys of the glossary entries that the ``{term}`` roles of ``markdown`` link to."""
    keys = set()
    for match in TERM_ROLE.finditer(markdown):
        target = (match.group("target") or match.group("bare")).strip().replace("*", "").lower()
        assert target in entries, f"{where}: {{term}} to {target!r}, which the glossary does not define"
        keys.add(entries[target])
    return keys


def chapter_markdown(lang: str, name: str) -> str:
    notebook = nbformat.read(BOOK / lang / name, as_version=4)
    return "\n\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")


def test_glossaries_define_the_same_terms():
    english = set(glossary("en").values())
    assert len(english) >= 60
    for lang in LANGS:
        assert sorted(glossary(lang).values()) == sorted(english), lang  # no key twice, none missing


def test_no_definition_list_is_left():
    """A MyST definition list ("term" then ": definition") gives its terms no anchor."""
    for lang in LANGS:
        text = (BOOK / lang / "glossary.md").read_text(encoding="utf-8")
        assert not re.search(r"^: ", text, re.M), lang


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapters_link_the_same_terms(name):
    links = {
        lang: linked_terms(chapter_markdown(lang, name), glossary(lang), f"{lang}/{name}") for lang in LANGS
    }
    assert len(links["en"]) >= 3, f"en/{name} links {sorted(links['en'])}"
    for lang in LANGS:
        assert links[lang] == links["en"], (
            f"{lang}/{name}: links {sorted(links[lang] - links['en'])} that en does not, "
            f"misses {sorted(links['en'] - links[lang])}"
        )


def test_the_parsers_see_what_they_compare():
    page = (
        "# Glosarium\n\n```{glossary}\n:sorted:\n\n*query*\n  Vektor.\n\n"
        "posisi relatif (*relative position*)\n  Selisih.\n\nRoPE\n  Rotasi.\n\n"
        "atensi laten (*latent attention, MLA*)\n  Laten.\n```\n\n| $d$ | lebar |\n"
    )
    entries = glossary_entries(page, "id")
    relative = "posisi relatif (relative position)"
    latent = "atensi laten (latent attention, mla)"
    assert entries == {
        "query": "query",
        relative: "relative position",
        "rope": "RoPE",
        latent: "latent attention (MLA)",
    }
    text = f"A *{{term}}`query`*, the {{term}}`posisi relatif <{relative}>` and {{ref}}`x <y>`."
    assert linked_terms(text, entries, "self-test") == {"query", "relative position"}
    with pytest.raises(AssertionError, match="does not define"):
        linked_terms("{term}`key`", entries, "self-test")
    with pytest.raises(AssertionError, match="found 0"):
        glossary_entries("query\n: Vektor.\n", "id")


@pytest.mark.parametrize("lang", LANGS)
def test_the_three_language_table_names_every_term_once_and_links_it(lang):
    """The glossary's last section: one row per term, English | Bahasa Indonesia | 한국어, sorted by the
    English name; the edition's own column links to its entry."""
    text = (BOOK / lang / "glossary.md").read_text(encoding="utf-8")
    table = text[text.rindex("\n## ") :]
    rows = [line.split(" | ") for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    english = [row[0].removeprefix("| ") for row in rows[1:]]
    keys = sorted(glossary("en").values(), key=str.lower)
    assert [re.sub(r"\{term\}`([^`<]*?)(?: <[^`]*>)?`", r"\1", name) for name in english] == keys
    own = rows[0].index(next(cell for cell in rows[0] if cell.strip("| ") == HEADER[lang]))
    linked = linked_terms("\n".join(row[own] for row in rows[1:]), glossary(lang), lang)
    assert linked == set(keys), "every row's own-language cell links its entry"


HEADER = {"en": "English", "id": "Bahasa Indonesia", "ko": "한국어"}
