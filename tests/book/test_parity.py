"""The English, Indonesian and Korean editions stay at parity.

Prose is written natively in each language; everything else must match:
files, table of contents, code, outputs, and the skeleton of every page.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import replace
from pathlib import Path

import nbformat
import posenc_book.handouts.checks as checks
import posenc_book.handouts.strip as strip
import pytest
import yaml
from book_files import BOOK, ENGLISH_ONLY, ROOT
from course_kit import assessment, capstone, code_blocks, glance, neutral, page, plans
from IPython.core.inputtransformer2 import TransformerManager
from posenc_book.toc import files_of

from posenc.words import LANGUAGES

LANGS = LANGUAGES  # the editions, named once (posenc.words)
LABEL = re.compile(r"^\((?P<label>[\w-]+)\)=\s*$", re.M)
OPTION_LABEL = re.compile(r"^:label:\s*(?P<label>[\w-]+)\s*$", re.M)
# A cross-reference: a role ({ref}`text <label>`) or a Markdown link to a label, [*text*](#label), whose text
# may hold markup (italics for a foreign word, code).
REFERENCE = re.compile(r"\{(?:ref|numref|prf:ref)\}`(?:[^`<]*<)?(?P<label>[\w-]+)>?`|\]\(#(?P<link>[\w-]+)\)")
DIRECTIVE = re.compile(r"^(?::{3,}|`{3,})\{(?P<name>exercise|solution-start|solution-end|prf:\w+)\}", re.M)
FENCE = re.compile(r"^(`{3,}|~{3,})")


# The pages of each edition that link the English-only pages (book_files.ENGLISH_ONLY).
ENGLISH_ONLY_LINKERS = ("index.md", "instructor.md")


def edition_files(lang):
    return sorted(path.name for path in (BOOK / lang).iterdir() if path.suffix in {".md", ".ipynb"})


def shared_files(lang):
    """The files every edition has: all of ``book/<lang>``, less the English-only pages."""
    return [name for name in edition_files(lang) if name not in ENGLISH_ONLY]


def headings(markdown: str) -> list[int]:
    """Heading levels in order, ignoring lines inside fenced code."""
    levels, in_code = [], False
    for line in markdown.splitlines():
        if line.startswith("```python") or line.startswith("```bash") or line.strip() == "```":
            in_code = not in_code if not line.startswith("```{") else in_code
        if not in_code and (match := re.match(r"^(#{1,6}) ", line)):
            levels.append(len(match.group(1)))
    return levels


def skeleton(markdown: str) -> dict:
    """What must be the same in every language, for one piece of Markdown."""
    return {
        "headings": headings(markdown),
        "display equations": markdown.count("$$") // 2
        + len(re.findall(r"\\begin\{(align|equation)", markdown)),
        "directives": [match.group("name") for match in DIRECTIVE.finditer(markdown)],
        "labels": [
            neutral(m.group("label")) for m in (*LABEL.finditer(markdown), *OPTION_LABEL.finditer(markdown))
        ],
        "references": sorted(neutral(m["label"] or m["link"]) for m in REFERENCE.finditer(markdown)),
    }


def notebook_skeleton(notebook) -> list:
    cells = []
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cells.append(("markdown", skeleton(cell.source)))
        else:
            figure = cell.metadata.get("mystnb", {}).get("figure", {})
            cells.append(("code", neutral(figure.get("name", "")), bool(figure.get("caption"))))
    return cells


def shared_outputs(cell) -> list:
    """stdout and text/plain of a code cell, the outputs every edition shares."""
    shown = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            if shown and shown[-1][:2] == ("stream", output.name):
                shown[-1] = ("stream", output.name, shown[-1][2] + output.text)  # one print, two chunks
            else:
                shown.append(("stream", output.name, output.text))
        elif "data" in output:
            shown.append((output.output_type, output.data.get("text/plain"), sorted(output.data)))
    return shown


def load(lang, name):
    return nbformat.read(BOOK / lang / name, as_version=4)


NOTEBOOK_NAMES = [name for name in shared_files("en") if name.endswith(".ipynb")]
PAGE_NAMES = [name for name in shared_files("en") if name.endswith(".md")]


def test_same_files_in_every_edition():
    files = {lang: edition_files(lang) for lang in LANGS}
    assert files["en"], "book/en is empty"
    assert set(ENGLISH_ONLY) <= set(files["en"]), "an English-only page is gone: update ENGLISH_ONLY"
    shared = [name for name in files["en"] if name not in ENGLISH_ONLY]
    assert files["id"] == shared and files["ko"] == shared, files


def test_other_editions_link_the_english_only_pages():
    """The id and ko index and instructor pages link each English-only page, at its address on the site
    (``../en/api.html``: the editions are sibling folders), and the English pages link it by its label."""
    for name, label in ENGLISH_ONLY.items():
        page = Path(name).stem
        for linker in ENGLISH_ONLY_LINKERS:
            english = (BOOK / "en" / linker).read_text(encoding="utf-8")
            linked = f"{label}-en>`" in english or f"`{label}-en`" in english
            assert linked, f"en/{linker} does not link {name}"
            for lang in ("id", "ko"):
                text = (BOOK / lang / linker).read_text(encoding="utf-8")
                assert f'<a href="../en/{page}.html">' in text, f"{lang}/{linker} does not link en/{name}"


def test_toc_has_one_part_per_language_with_the_same_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    parts = toc["parts"]
    assert len(parts) == len(LANGS)
    listed = []
    for lang, part in zip(LANGS, parts, strict=True):
        files = files_of(part["chapters"])
        assert all(file.startswith(f"book/{lang}/") for file in files), (lang, files)
        listed.append([file.removeprefix(f"book/{lang}/") for file in files])
        on_disk = {Path(name).stem for name in edition_files(lang)}
        assert set(listed[-1]) == on_disk, f"book/{lang}: not every file is in _toc.yml"
    english_only = {Path(name).stem for name in ENGLISH_ONLY}
    assert [file for file in listed[0] if file not in english_only] == listed[1] == listed[2]


def code_without_comments(source: str) -> list[tuple[int, str]]:
    """The tokens of a code cell without its comments and blank lines: what the three editions share.

    IPython's transformer first turns magics (``%pip``) into Python, which ``tokenize`` reads.
    """
    python = TransformerManager().transform_cell(source)
    skipped = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING}
    tokens = tokenize.generate_tokens(io.StringIO(python).readline)
    return [(token.type, token.string) for token in tokens if token.type not in skipped]


def numbers(text: str) -> list[str]:
    """The numbers of a printed output, sorted: a translation may move them, never change them.

    A thousands separator is the edition's (en and ko print 2,048; id prints 2\u202f048, a narrow
    no-break space, since its point would read as a decimal one): it is dropped before the numbers are read.
    """
    text = re.sub(r"(?<=\d)[,\u202f](?=\d{3}(?!\d))", "", text)
    return sorted(re.findall(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text))


@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_code_is_identical_except_the_language_cell_and_comments(name):
    editions = {lang: load(lang, name) for lang in LANGS}
    code = {lang: [c for c in nb.cells if c.cell_type == "code"] for lang, nb in editions.items()}
    assert len(code["id"]) == len(code["en"]) == len(code["ko"])
    for lang in LANGS:
        tagged = [c for c in code[lang] if "lang" in c.metadata.get("tags", [])]
        assert len(tagged) == 1, f"{lang}/{name}: exactly one code cell must be tagged 'lang'"
        assert re.search(rf'^LANG = "{lang}"', tagged[0].source, re.M), tagged[0].source
    for index, cells in enumerate(zip(*code.values(), strict=True), start=1):
        sources = [code_without_comments(cell.source) for cell in cells]
        if "lang" in cells[0].metadata.get("tags", []):
            assert all("lang" in cell.metadata.get("tags", []) for cell in cells), f"cell {index}"
            # The same cell but for its comments and the value of LANG.
            sources = [
                [token for token in tokens if token[1] != f'"{lang}"']
                for lang, tokens in zip(LANGS, sources, strict=True)
            ]
        assert sources[0] == sources[1] == sources[2], f"{name}: code cell {index} differs between editions"


def test_numbers_are_read_with_or_without_a_thousands_separator():
    assert numbers("2**11 = 2,048; 131,072 rows") == numbers("2**11 = 2048; 131072 baris")
    assert numbers("[1, 024]") != numbers("[1024]")
    assert numbers("0.25") != numbers("0,25")


def test_comments_alone_may_differ():
    english = 'x = f(1)  # the first\n\n# why\nprint(_("distance:"), x)\n'
    korean = 'x = f(1)  # 첫째\n# 까닭\nprint(_("distance:"), x)\n'
    assert code_without_comments(english) == code_without_comments(korean)
    assert code_without_comments(english) != code_without_comments(korean.replace("f(1)", "f(2)"))
    assert code_without_comments(english) != code_without_comments(korean.replace("distance", "jarak"))


@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_outputs_carry_the_same_numbers(name):
    # The words of an output are the edition's (translator); its numbers, kinds and order are shared.
    code = [[c for c in load(lang, name).cells if c.cell_type == "code"] for lang in LANGS]
    for index, cells in enumerate(zip(*code, strict=True), start=1):
        outputs = [shared_outputs(cell) for cell in cells]
        kinds = [
            [output[:2] if output[0] == "stream" else (output[0], output[2]) for output in shown]
            for shown in outputs
        ]
        assert kinds[0] == kinds[1] == kinds[2], f"{name}: code cell {index} prints other kinds of output"
        texts = [
            [numbers(output[2] if output[0] == "stream" else output[1] or "") for output in shown]
            for shown in outputs
        ]
        assert texts[0] == texts[1] == texts[2], f"{name}: code cell {index} prints other numbers"


@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_notebook_skeletons_match(name):
    skeletons = {lang: notebook_skeleton(load(lang, name)) for lang in LANGS}
    for lang in ("id", "ko"):
        assert skeletons[lang] == skeletons["en"], f"{lang}/{name} differs from en/{name}"


@pytest.mark.parametrize("name", PAGE_NAMES)
def test_page_skeletons_match(name):
    skeletons = {lang: skeleton((BOOK / lang / name).read_text(encoding="utf-8")) for lang in LANGS}
    # The English pages refer to the English-only pages by label; the others link them by address.
    references = skeletons["en"]["references"]
    skeletons["en"]["references"] = [label for label in references if label not in ENGLISH_ONLY.values()]
    for lang in ("id", "ko"):
        assert skeletons[lang] == skeletons["en"], f"{lang}/{name} differs from en/{name}"


def test_labels_carry_their_edition_suffix():
    for lang in LANGS:
        for path in (BOOK / lang).iterdir():
            text = path.read_text(encoding="utf-8")
            for match in (*LABEL.finditer(text), *OPTION_LABEL.finditer(text)):
                assert match.group("label").endswith(f"-{lang}"), f"{path.name}: {match.group('label')}"


def test_skeleton_sees_what_it_compares():
    markdown = (
        "(intro-en)=\n# Title\n## Part\n```python\n# not a heading\n```\n$$x$$\n"
        ":::{exercise}\n:label: ex-1-en\n:::\n```{solution-start} ex-1-en\n```\nSee {ref}`intro-en`,"
        " [*the* exercise](#ex-1-en).\n"
    )
    shape = skeleton(markdown)
    assert shape == {
        "headings": [1, 2],
        "display equations": 1,
        "directives": ["exercise", "solution-start"],
        "labels": ["intro", "ex-1"],
        "references": ["ex-1", "intro"],
    }
    assert skeleton(markdown.replace("## Part\n", "")) != shape


def kit_structure(lang: str) -> dict:
    """What the instructor pages must say alike in every edition: numbers, labels, points, times."""
    kit = assessment(lang)
    return {
        "objectives": [chapter.objectives for chapter in kit.chapters.values()],
        "rubrics": [(chapter.rubric, chapter.total) for chapter in kit.chapters.values()],
        "questions": [chapter.questions for chapter in kit.chapters.values()],
        "map": kit.map,
        "times": glance(lang),
        # The sessions' names are words ("Before", "Sebelum"); their chapters and minutes must match.
        "plans": [([replace(row, name="") for row in rows], totals) for rows, totals in plans(lang).values()],
        "capstone rubric": capstone(lang)[1:],
        "code": [code_blocks(page(lang, name)) for name in ("instructor", "assessment", "syllabi")],
    }


def test_instructor_pages_rubrics_questions_and_plans_match():
    """The course kit: the same objectives, rubric points, questions, map, plans and code in every edition.
    (The handouts are compared cell by cell in test_handouts.py.)"""
    english = kit_structure("en")
    assert english["rubrics"] and english["plans"] and english["code"][2]
    for lang in ("id", "ko"):
        ours = kit_structure(lang)
        for part, value in english.items():
            assert ours[part] == value, f"{lang}: the {part} differ from the English edition's"


@pytest.mark.parametrize("lang", ["id", "ko"])
@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_handout_matches_the_english_one_but_for_the_words(lang, name):
    english = strip.make_handout(load("en", name), "en")
    other = strip.make_handout(load(lang, name), lang)

    def skeleton(handout):
        """Each cell's type and tags, and the id of each cell the handout added (the same in each edition)."""
        added = {strip.ANSWER_TAG, strip.CHECK_TAG}
        return [
            (cell.cell_type, tags, cell.id if added & set(tags) else None)
            for cell in handout.cells
            if (tags := cell.metadata.get("tags", [])) is not None
        ]

    assert skeleton(other) == skeleton(english)
    for ours, theirs in zip(english.cells, other.cells, strict=True):
        if ours.cell_type != "code" or "lang" in ours.metadata.get("tags", []):
            continue
        if strip.CHECK_TAG in ours.metadata.get("tags", []):
            # The same check; only its comment, claims and verdicts are in the edition's language.
            def code(cell):
                return cell.source.split("\n", 1)[1].split("\n_claims = [")[0]

            assert code(theirs) == code(ours)
            assert theirs.source == strip.check_source(checks.CHECKS[ours.id.removesuffix("-check")], lang)
        else:
            assert code_without_comments(theirs.source) == code_without_comments(ours.source)
