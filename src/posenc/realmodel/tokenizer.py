"""The model's tokenizer, built by transformers from the GGUF file itself (no download from the Hub)."""

from __future__ import annotations

from pathlib import Path

from posenc.realmodel.files import model_path

__all__ = ["load_tokenizer"]


def load_tokenizer(path: str | Path | None = None):
    """transformers' fast tokenizer for a GGUF file, from the vocabulary and merges the file stores.

    ``AutoTokenizer.from_pretrained(folder, gguf_file=name)`` reads the file alone; with
    ``local_files_only=True`` it never asks the Hub, even where ``HF_HUB_OFFLINE`` is not set.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        The GGUF file; default :func:`~posenc.realmodel.model_path`.

    Returns
    -------
    transformers.PreTrainedTokenizerBase

    Examples
    --------
    >>> from posenc.realmodel import load_tokenizer
    >>> tokenizer = load_tokenizer()
    >>> tokenizer("The capital of France is").input_ids
    [504, 3575, 282, 4649, 314]
    """
    # Imported here: transformers takes seconds to import, and only the tokenizer needs it.
    from transformers import AutoTokenizer

    path = model_path() if path is None else Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"path must be a GGUF file, got {str(path)!r} (no such file)")
    return AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name, local_files_only=True)
