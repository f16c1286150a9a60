"""The GGUF file's weights, dequantized by ``gguf``, in posenc's :class:`~posenc.serving.TinyDecoder`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from gguf import GGUFReader, dequantize

from posenc.realmodel.files import model_path
from posenc.realmodel.layout import from_gguf_rows
from posenc.realmodel.metadata import GGUFConfig, read_config
from posenc.serving import TinyDecoder

__all__ = ["load_decoder", "load_state_dict"]

# GGUF tensor names -> LlamaForCausalLM's (as transformers' GGUF loader maps them); {i} is the layer.
_GLOBAL_NAMES = {
    "token_embd.weight": "model.embed_tokens.weight",
    "output_norm.weight": "model.norm.weight",
    "output.weight": "lm_head.weight",
}
_LAYER_NAMES = {
    "attn_norm.weight": "input_layernorm.weight",
    "attn_q.weight": "self_attn.q_proj.weight",
    "attn_k.weight": "self_attn.k_proj.weight",
    "attn_v.weight": "self_attn.v_proj.weight",
    "attn_output.weight": "self_attn.o_proj.weight",
    "ffn_norm.weight": "post_attention_layernorm.weight",
    "ffn_gate.weight": "mlp.gate_proj.weight",
    "ffn_up.weight": "mlp.up_proj.weight",
    "ffn_down.weight": "mlp.down_proj.weight",
}


def _hf_name(name: str) -> str:
    if name in _GLOBAL_NAMES:
        return _GLOBAL_NAMES[name]
    block, layer, rest = name.split(".", 2) if name.startswith("blk.") else ("", "", name)
    if block != "blk" or rest not in _LAYER_NAMES:
        raise ValueError(f"the GGUF file holds a tensor posenc does not know: {name!r}")
    return f"model.layers.{layer}.{_LAYER_NAMES[rest]}"


def load_state_dict(
    path: str | Path | None = None, *, reader: GGUFReader | None = None
) -> dict[str, torch.Tensor]:
    """Every weight of a Llama GGUF file as float32 tensors under LlamaForCausalLM's names.

    ``gguf.dequantize`` turns the Q4_1 and Q8_0 blocks into float32 (posenc does not decode the
    formats itself), and the rows of ``attn_q`` and ``attn_k`` go back to Hugging Face's order
    (:func:`~posenc.realmodel.from_gguf_rows`), the ``rotate_half`` layout that TinyDecoder uses.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        The GGUF file; default :func:`~posenc.realmodel.model_path`.
    reader : gguf.GGUFReader, optional
        The file already opened (then ``path`` is not read).

    Returns
    -------
    dict of str to torch.Tensor
        With tied embeddings (no ``output.weight`` in the file), ``lm_head.weight`` is the same
        tensor as ``model.embed_tokens.weight``.

    Examples
    --------
    >>> from posenc.realmodel import load_state_dict
    >>> weights = load_state_dict()
    >>> weights["model.layers.0.self_attn.k_proj.weight"].shape  # 3 key/value heads of 64 features
    torch.Size([192, 576])
    >>> weights["lm_head.weight"] is weights["model.embed_tokens.weight"]
    True
    """
    if reader is None:
        reader = GGUFReader(model_path() if path is None else path)
    config = read_config(reader=reader)
    weights = {}
    for tensor in reader.tensors:
        # dequantize returns the matrix in (rows = outputs, columns = inputs), nn.Linear's order; an
        # unquantized (F32) tensor comes back as a read-only view of the memory-mapped file: copied.
        values = np.array(dequantize(tensor.data, tensor.tensor_type), dtype=np.float32)
        if tensor.name.endswith("attn_q.weight"):
            values = from_gguf_rows(values, config.num_heads)
        elif tensor.name.endswith("attn_k.weight"):
            values = from_gguf_rows(values, config.num_kv_heads)
        weights[_hf_name(tensor.name)] = torch.from_numpy(np.ascontiguousarray(values))
    if config.tie_embeddings:
        weights["lm_head.weight"] = weights["model.embed_tokens.weight"]
    return weights


def load_decoder(
    path: str | Path | None = None,
    *,
    max_seq_length: int | None = None,
    frequencies=None,
    dtype: torch.dtype = torch.float32,
) -> TinyDecoder:
    """posenc's decoder with the weights of a Llama GGUF file (default: chapter 10's SmolLM2-135M).

    Parameters
    ----------
    path : str or pathlib.Path, optional
        The GGUF file; default :func:`~posenc.realmodel.model_path`.
    max_seq_length : int, optional
        Positions the rotary tables hold, >= 1; default twice the trained context, 16,384 for SmolLM2
        (the chapter reads past the context it was trained on).
    frequencies : array_like, optional
        ``head_dim // 2`` frequencies instead of the file's base (PI, NTK, YaRN...): see
        :func:`posenc.scaled_frequencies` and :meth:`~posenc.serving.TinyDecoder.set_frequencies`.
    dtype : torch.dtype, default torch.float32
        ``torch.float32`` or ``torch.float64``.

    Returns
    -------
    TinyDecoder
        In evaluation mode; ``model.gguf_config`` holds the :class:`GGUFConfig` it was built from.

    Examples
    --------
    >>> import torch
    >>> from posenc.realmodel import load_decoder, load_tokenizer
    >>> model, tokenizer = load_decoder(), load_tokenizer()
    >>> ids = tokenizer("The capital of France is", return_tensors="pt").input_ids
    >>> with torch.no_grad():
    ...     tokenizer.decode(model(ids)[0, -1].argmax())
    ' Paris'
    """
    reader = GGUFReader(model_path() if path is None else path)
    config: GGUFConfig = read_config(reader=reader)
    if config.rope_dim != config.head_dim:
        raise ValueError(
            f"partial RoPE (rope_dim {config.rope_dim} < head_dim {config.head_dim}) is not supported"
        )
    length = 2 * config.context_length if max_seq_length is None else max_seq_length
    model = TinyDecoder(
        config.vocab_size,
        config.hidden_size,
        config.num_heads,
        config.num_layers,
        seed=None,  # no draws: every weight is loaded below
        max_seq_length=length,
        base=config.rope_base,
        frequencies=frequencies,
        ffn_dim=config.intermediate_size,
        eps=config.rms_norm_eps,
        num_kv_heads=config.num_kv_heads,
        tie_embeddings=config.tie_embeddings,
        fused_attention=True,  # 16,384 tokens: minutes, not a quarter of an hour, on two cores
        dtype=dtype,
    )
    model.load_state_dict(load_state_dict(reader=reader), strict=True)
    model.gguf_config = config
    return model.eval()
