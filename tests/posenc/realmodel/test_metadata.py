"""posenc.realmodel.metadata on bad files; SmolLM2's own metadata is checked against transformers' config
with the model (test_against_transformers.py, slow: reading the file's 49,152 tokens takes seconds)."""

from __future__ import annotations

import pytest

from posenc.realmodel import read_config


def test_a_file_that_is_not_gguf_is_refused(tmp_path):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"not a gguf file at all" * 10)
    with pytest.raises(ValueError):
        read_config(path)
