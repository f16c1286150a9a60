"""Figure captions typeset their math, and alt text stays plain text (issue 32).

A caption (``mystnb.figure.caption`` in a code cell's metadata) is MyST Markdown, so ``$…$`` in it is
typeset like the body's math. The site review found pseudo-TeX in 17 of 40 captions per edition
("2π/ω_i", "d_model", "(1/(d/2)) Σ_j |S_j|") next to body text that typesets the same symbols. Alt text
is read aloud or shown instead of the image: there TeX would be noise, so it stays plain.
"""

from __future__ import annotations

import re

import nbformat
import pytest
from book_files import BOOK

from posenc.words import LANGUAGES

# What only pseudo-TeX writes: Greek letters and operators as characters, subscripts with "_",
# superscripts with "^(", a centred dot between symbols.
PSEUDO_TEX = re.compile(r"[πωθλΣ∑]|[^\W_]_[^\W_]|\^\(|\S\s?·\s?\S")
# Math and code spans are where TeX and identifiers belong.
SPANS = re.compile(r"\$[^$]+\$|`[^`]+`")
NOTEBOOKS = sorted(path.name for path in (BOOK / "en").glob("0*.ipynb"))


def pseudo_tex(caption: str) -> list[str]:
    """The stretches of ``caption`` outside its math and code spans that look like TeX written as text."""
    return [match.group(0) for match in PSEUDO_TEX.finditer(SPANS.sub(" ", caption))]


def figures(lang: str, name: str) -> list[tuple[int, dict]]:
    notebook = nbformat.read(BOOK / lang / name, as_version=4)
    return [
        (index, cell.metadata["mystnb"])
        for index, cell in enumerate(notebook.cells)
        if "caption" in cell.metadata.get("mystnb", {}).get("figure", {})
    ]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_captions_write_math_as_math(lang):
    found = {
        f"{name} cell {index}": pseudo_tex(meta["figure"]["caption"])
        for name in NOTEBOOKS
        for index, meta in figures(lang, name)
    }
    assert len(found) >= 20, "the captions were not found"
    assert not {where: hits for where, hits in found.items() if hits}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_alt_text_stays_plain(lang):
    for name in NOTEBOOKS:
        for index, meta in figures(lang, name):
            alt = meta.get("image", {}).get("alt", "")
            assert "$" not in alt and "\\" not in alt, f"{name} cell {index}: {alt}"


def test_pseudo_tex_is_seen():
    assert pseudo_tex("Wavelength 2π/ω_i for d_model = 512") == ["π", "ω", "d_m"]
    for text in ("(1/(d/2)) Σ_j |S_j|", "period 2^(b+1)", "PE(p)·PE(p + k)"):
        assert pseudo_tex(text), text
    assert not pseudo_tex(r"Wavelength $2\pi/\omega_i$ for $d_{\text{model}} = 512$ and `max_distance` = 128")
    assert not pseudo_tex("a scatter of dots, 1/2, 1/16 and 1/256; the context of 131,072 positions")


SOLUTION_MARKER = re.compile(r"\{solution-(start|end)\}")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_captioned_figure_inside_a_solution(lang):
    # A caption makes a LaTeX float, and a solution is a box: the PDF build stops with "Not in outer par
    # mode" (chapter 5's spectrum did). A figure in a solution keeps its alt text and goes without caption.
    found = []
    for name in NOTEBOOKS:
        inside = False
        for index, cell in enumerate(nbformat.read(BOOK / lang / name, as_version=4).cells):
            if cell.cell_type == "markdown":
                for marker in SOLUTION_MARKER.finditer(cell.source):
                    inside = marker.group(1) == "start"
            elif inside and "figure" in cell.metadata.get("mystnb", {}):
                found.append(f"{name} cell {index}")
    assert found == []
