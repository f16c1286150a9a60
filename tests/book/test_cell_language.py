"""Each edition speaks its own language in the cells too: printed outputs and code comments.

A printed line or a comment counts as English when it holds one of a few English function words that
neither Indonesian nor Korean prose uses (``the``, ``of``, ``between`` ...) or an English word the
chapters print (``distance``, ``solved``), and no Hangul. Words both languages borrow (``model``,
``token``, ``label``, ``seed``) and the names of the book's variants (``learned``) are not on the list.
Numbers, symbols, identifiers (``torch.Size``, ``rope_theta``) and notation count as no language.

The bound: at most 2 % of the printed lines and of the comments of an Indonesian or Korean edition may
count as English. Some English is right there: a quoted config key or an error message that the reader
will meet in English from a library (transformers' own warning, numpy's ``ValueError``), which the
chapter quotes as it is. 2 % is about one such line a chapter.

The English edition is measured the same way, as the rule's control: most of its lines count as English.
"""

from __future__ import annotations

import io
import re
import sys
import tokenize
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/, when run as a script
from book_files import BOOK
from IPython.core.inputtransformer2 import TransformerManager
from notebook_hygiene import printed_lines as output_lines

from posenc.words import LANGUAGES

BOUND = 0.02
ENGLISH = frozenset(
    "the of and is are was were with between for from each every than which after before this that these "
    "those not its into only same when where has have but does at by to below above largest smallest "
    "longest fastest slowest highest difference distance position positions error threshold "
    "failed solved mixed wavelength first measured accuracy predicted right length step steps "
    "trained slopes rotated numbers training neighbours differ equal scaled turns full ahead behind "
    "pair pairs".split()
)
HANGUL = re.compile("[\uac00-\ud7a3]")
# A word: letters alone, not part of a name (max_seq_length, x.to, positions=, apply_rope(...), x[:4], x == 1)
# nor a quoted string (a key such as "learned" in printed code), nor a hyphenated name (pi-fastest).
WORD = re.compile(r"(?<![\w.\"'-])[A-Za-z]+(?![\w.(\[=\"'-])(?!\s*=)")


def is_english(line: str) -> bool:
    if HANGUL.search(line):
        return False
    return any(word.lower() in ENGLISH for word in WORD.findall(line))


def comments(source: str) -> list[str]:
    python = TransformerManager().transform_cell(source)
    tokens = tokenize.generate_tokens(io.StringIO(python).readline)
    return [token.string.lstrip("#").strip() for token in tokens if token.type == tokenize.COMMENT]


def printed_lines(cell) -> list[str]:
    """The lines a reader sees as text: streams and text/plain results (an HTML or image result is not).

    A cell that prints a library function's source (``inspect.getsource``) shows a file as it is: code,
    not the edition's words, and not counted.
    """
    if "getsource(" in cell.source:
        return []
    lines = [line for output in cell.get("outputs", []) for line in output_lines(output)]
    return [line for line in lines if WORD.search(line) or HANGUL.search(line)]


def measure(lang: str) -> dict[str, tuple[int, int]]:
    """(English, all) for the printed lines and the comments of an edition's notebooks."""
    counts = {"printed lines": [0, 0], "comments": [0, 0]}
    for path in sorted((BOOK / lang).glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            for kind, texts in (("printed lines", printed_lines(cell)), ("comments", comments(cell.source))):
                counts[kind][0] += sum(map(is_english, texts))
                counts[kind][1] += len(texts)
    return {kind: (english, total) for kind, (english, total) in counts.items()}


def test_the_rule_tells_english_from_indonesian_and_korean():
    assert is_english("distance between the summaries: 0.25")
    assert not is_english("jarak antara kedua ringkasan: 0.25")
    assert not is_english("두 요약 사이의 거리(distance): 0.25")
    assert not is_english("torch.Size([2, 16, 64]) rope_theta=10000.0")
    assert not is_english("inv_freq setelah .to(torch.bfloat16): max_seq_length, positions=None")


def test_the_english_edition_is_english_by_this_rule():
    english, total = measure("en")["printed lines"]
    assert english > 0.5 * total, (english, total)


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
@pytest.mark.parametrize("kind", ["printed lines", "comments"])
def test_printed_words_and_comments_are_in_the_editions_language(lang, kind):
    english, total = measure(lang)[kind]
    assert total > 0
    print(f"{lang} {kind}: {english} of {total} count as English ({english / total:.1%})")
    assert english <= BOUND * total, f"{lang}: {english} of {total} {kind} are English (bound {BOUND:.0%})"


if __name__ == "__main__":
    # Per notebook: `.venv/bin/python tests/book/test_cell_language.py [NAME_PART]` prints every English
    # line and comment of the Indonesian and Korean editions, and the counts.
    part = sys.argv[1] if len(sys.argv) > 1 else ""
    for lang in ("id", "ko"):
        for path in sorted((BOOK / lang).glob(f"*{part}*.ipynb" if part else "*.ipynb")):
            found = [
                (kind, text)
                for cell in nbformat.read(path, as_version=4).cells
                if cell.cell_type == "code"
                for kind, texts in (("out", printed_lines(cell)), ("#", comments(cell.source)))
                for text in texts
                if is_english(text)
            ]
            print(f"== {lang}/{path.name}: {len(found)} English")
            for kind, text in found:
                print(f"  {kind} {text}")
