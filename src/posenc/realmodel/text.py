"""The fixed English text that chapter 10 reads: volume one of Jane Austen's *Persuasion* (1817).

The text is in the public domain everywhere (Austen died in 1817). It is the Project Gutenberg
transcription as the R package janeaustenr 1.0.0 stores it (Debian's ``r-cran-janeaustenr`` 1.0.0-1,
MIT for the package; the novel itself has no owner), chapters 1-12 up to "(End of volume one.)",
ASCII, one line break per line of the transcription. It ships inside posenc
(``posenc/realmodel/data/persuasion.txt``), so that the measurements do not change when the book's
prose does, and ``TEXT_SHA256`` pins it: SmolLM2's tokenizer makes 53,281 tokens of it, more than
four times the model's trained context.
"""

from __future__ import annotations

import hashlib
from importlib import resources

__all__ = ["TEXT_FILE", "TEXT_SHA256", "load_text"]

TEXT_FILE = "persuasion.txt"
"""The text's file name in ``posenc/realmodel/data``."""

TEXT_SHA256 = "19e6d10cdd36f1955d5c0ea959650f3663d9ab35adab7f221f1cbe34f5ce5f59"
"""SHA-256 of the file's UTF-8 bytes: a changed text would change every stored perplexity."""


def load_text() -> str:
    """Volume one of *Persuasion*, exactly as stored (its SHA-256 is checked).

    Returns
    -------
    str
        215,526 characters, ending in ``"(End of volume one.)\\n"``.

    Raises
    ------
    ValueError
        If the file's bytes are not those of ``TEXT_SHA256`` (an edited or re-encoded copy).

    Examples
    --------
    >>> from posenc.realmodel import load_text
    >>> text = load_text()
    >>> text[:10], len(text)
    ('Persuasion', 215526)
    """
    data = resources.files("posenc.realmodel").joinpath("data", TEXT_FILE).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != TEXT_SHA256:
        raise ValueError(
            f"posenc/realmodel/data/{TEXT_FILE} must have SHA-256 {TEXT_SHA256} (the text the results "
            f"were measured on), got {digest}: restore the file"
        )
    return data.decode("utf-8")
