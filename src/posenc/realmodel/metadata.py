"""The model's shape and RoPE settings, read from the GGUF file's metadata with ``gguf.GGUFReader``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gguf import GGUFReader

from posenc.realmodel.files import model_path

__all__ = ["GGUFConfig", "read_config"]


@dataclass(frozen=True)
class GGUFConfig:
    """What a Llama-architecture GGUF file says about its model, with Hugging Face's names in the notes.

    Attributes
    ----------
    name : str
        ``general.name``.
    license : str
        ``general.license``, e.g. ``"apache-2.0"``.
    vocab_size : int
        Token ids (``vocab_size``).
    hidden_size : int
        Width of the residual stream (``hidden_size``; GGUF ``embedding_length``).
    intermediate_size : int
        Width of the SwiGLU layer (``intermediate_size``; GGUF ``feed_forward_length``).
    num_layers : int
        Decoder layers (``num_hidden_layers``; GGUF ``block_count``).
    num_heads : int
        Query heads (``num_attention_heads``).
    num_kv_heads : int
        Key/value heads (``num_key_value_heads``).
    head_dim : int
        ``hidden_size // num_heads``.
    rope_dim : int
        Features of each head that RoPE rotates (GGUF ``rope.dimension_count``).
    rope_base : float
        RoPE base (``rope_theta``; GGUF ``rope.freq_base``).
    context_length : int
        The context the model was trained for (``max_position_embeddings``).
    rms_norm_eps : float
        RMSNorm's epsilon (``rms_norm_eps``).
    tie_embeddings : bool
        True when the file stores no ``output.weight``: the token embeddings are the output layer
        (``tie_word_embeddings``).

    Examples
    --------
    :func:`read_config` reads one from a file; its fields are in Hugging Face's order of a Llama config.

    >>> import dataclasses
    >>> from posenc.realmodel import GGUFConfig
    >>> [field.name for field in dataclasses.fields(GGUFConfig)][6:11]
    ['num_heads', 'num_kv_heads', 'head_dim', 'rope_dim', 'rope_base']
    """

    name: str
    license: str
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    rope_dim: int
    rope_base: float
    context_length: int
    rms_norm_eps: float
    tie_embeddings: bool


def _field(reader: GGUFReader, key: str):
    field = reader.get_field(key)
    if field is None:
        raise ValueError(f"the GGUF file has no metadata {key!r}")
    return field.contents()


def read_config(path: str | Path | None = None, *, reader: GGUFReader | None = None) -> GGUFConfig:
    """Read the model's configuration from the GGUF metadata of ``path``.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        A GGUF file of the ``llama`` architecture; default :func:`~posenc.realmodel.model_path`.
    reader : gguf.GGUFReader, optional
        The file already opened (then ``path`` is not read): the loader reads metadata and tensors
        through one reader.

    Returns
    -------
    GGUFConfig

    Examples
    --------
    >>> from posenc.realmodel import read_config
    >>> config = read_config()
    >>> config.num_heads, config.num_kv_heads, config.head_dim, config.rope_base, config.context_length
    (9, 3, 64, 100000.0, 8192)
    """
    if reader is None:
        reader = GGUFReader(model_path() if path is None else path)
    arch = _field(reader, "general.architecture")
    if arch != "llama":
        raise ValueError(f"the GGUF file's general.architecture must be 'llama', got {arch!r}")
    hidden, heads = (
        int(_field(reader, "llama.embedding_length")),
        int(_field(reader, "llama.attention.head_count")),
    )
    names = {tensor.name for tensor in reader.tensors}
    vocab = reader.get_field("llama.vocab_size")
    return GGUFConfig(
        name=str(_field(reader, "general.name")),
        license=str(_field(reader, "general.license")),
        vocab_size=int(vocab.contents()) if vocab else len(_field(reader, "tokenizer.ggml.tokens")),
        hidden_size=hidden,
        intermediate_size=int(_field(reader, "llama.feed_forward_length")),
        num_layers=int(_field(reader, "llama.block_count")),
        num_heads=heads,
        num_kv_heads=int(_field(reader, "llama.attention.head_count_kv")),
        head_dim=hidden // heads,
        rope_dim=int(_field(reader, "llama.rope.dimension_count")),
        rope_base=float(_field(reader, "llama.rope.freq_base")),
        context_length=int(_field(reader, "llama.context_length")),
        rms_norm_eps=float(_field(reader, "llama.attention.layer_norm_rms_epsilon")),
        tie_embeddings="output.weight" not in names,
    )
