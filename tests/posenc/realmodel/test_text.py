"""posenc.realmodel.text: chapter 10's fixed text is the stored one, byte for byte."""

from __future__ import annotations

import pytest

from posenc.realmodel import load_text, text


def test_the_text_is_volume_one_of_persuasion():
    words = load_text()
    assert words.startswith("Persuasion\n\n\nby\n\nJane Austen\n\n(1818)\n")
    assert words.endswith("he was off.\n\n(End of volume one.)\n")
    assert words.count("\nChapter ") == 12 and words.isascii() and "\r" not in words


def test_a_changed_file_is_refused(monkeypatch):
    monkeypatch.setattr(text, "TEXT_SHA256", "0" * 64)
    with pytest.raises(ValueError, match=r"must have SHA-256 0{64} .* restore the file"):
        load_text()
