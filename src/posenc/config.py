"""Read a checkpoint's RoPE from its configuration, as Hugging Face transformers does.

:func:`posenc.rope_parameters` takes a ``config.json`` (a path, the dict it holds, or a transformers config
object) and returns the frequencies and the attention factor that transformers' ``ROPE_INIT_FUNCTIONS``
compute for it, in float64, with the rotary dimension and the pairing of the architecture. It reads
the field names of transformers 5 (``rope_parameters``) and the older ones (``rope_theta`` and
``rope_scaling``, with ``type`` or ``rope_type``) and follows ``standardize_rope_params``: a top-level
``original_max_position_embeddings`` (Phi-3) wins over the one in the block, which defaults to
``max_position_embeddings``.

One function per ``rope_type`` sits behind one registry, :data:`posenc.config.ROPE_TYPES`, as in
``transformers.modeling_rope_utils``; each lists the fields it reads, and a field that none of them
reads is an error that names it (a field silently left out is how a hand-written mapping goes wrong:
without gpt-oss's ``truncate: false`` its frequencies are off by up to 76 %).

transformers is never imported: a config object is read through its ``to_dict()``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import NamedTuple

import numpy as np

from posenc._checks import check_int, check_real
from posenc.rope import Layout, check_dim, rope_frequencies
from posenc.scaling import _check_pair_factors, longrope_attention_factor, scaled_frequencies
from posenc.scaling import yarn_attention_factor as _yarn_attention_factor

__all__ = ["ROPE_TYPES", "RopeParameters", "rope_parameters"]

# The architectures (transformers 5.23's model_type) whose attention pairs features (2i, 2i + 1): a
# rotate_half on x[..., 0::2] and x[..., 1::2] (GLM, Ernie 4.5, Helium, Cohere), rotate_every_two (GPT-J),
# complex numbers (Llama 4), or DeepSeek's apply_rotary_pos_emb_interleave, which the MLA models use unless
# their rope_interleave is false. Every other one rotates with rotate_half, pairs (i, i + rotary_dim / 2).
_INTERLEAVED = {
    "gptj", "codegen", "cohere", "cohere2", "glm", "glm4", "ernie4_5", "ernie4_5_moe", "helium",
    "llama4", "llama4_text", "deepseek_v2", "deepseek_v3", "deepseek_v32", "deepseek_v4", "kimi_k2",
    "mistral4", "glm4_moe_lite", "longcat_flash", "axk1", "youtu",
}  # fmt: skip

_COMMON_FIELDS = {"rope_type", "type", "rope_theta", "partial_rotary_factor"}


class RopeParameters(NamedTuple):
    """What :func:`posenc.rope_parameters` reads from a configuration.

    Examples
    --------
    >>> from posenc import rope_parameters
    >>> p = rope_parameters({"hidden_size": 64, "num_attention_heads": 4, "rope_theta": 100.0})
    >>> p.rotary_dim, p.layout, p.frequencies
    (16, 'half', array([1.        , 0.56234133, 0.31622777, 0.17782794, 0.1       ,
           0.05623413, 0.03162278, 0.01778279]))
    """

    frequencies: np.ndarray
    """Float64 array of the ``rotary_dim // 2`` frequencies (transformers' ``inv_freq``)."""
    attention_factor: float
    """The factor of the cos and sin tables (transformers' ``attention_scaling``)."""
    rotary_dim: int
    """The rotated features of a head: ``int(head_dim * partial_rotary_factor)``."""
    head_dim: int
    """The features of a head (for DeepSeek: ``qk_rope_head_dim``, its rotated part)."""
    partial_rotary_factor: float
    """The rotated fraction of a head, 1.0 when the config has none."""
    rope_type: str
    """One of :data:`posenc.config.ROPE_TYPES`."""
    layout: Layout
    """``"half"`` or ``"interleaved"``: how the architecture pairs the features."""
    max_position_embeddings: int | None
    """The config's ``max_position_embeddings``."""
    original_max_position_embeddings: int | None
    """The trained context ``L`` of ``llama3``, ``yarn`` and ``longrope``; None for the others."""


class _Block:
    """One rope_parameters block, with the values every rope_type needs; the fields are read by name."""

    def __init__(
        self, fields: dict, head_dim: int, rotary_dim: int, base: float, max_positions, original, where: str
    ):
        self.fields, self.head_dim, self.rotary_dim, self.base = fields, head_dim, rotary_dim, base
        self.max_positions, self.original, self.where = max_positions, original, where

    def required(self, name: str):
        value = self.fields.get(name)
        if value is None:
            raise ValueError(
                f"rope_type {self.fields['rope_type']!r} needs {self.where}[{name!r}], which is missing"
            )
        return value

    def real(self, name: str, default=None, *, positive: bool = True):
        """The field as a float, ``default`` if absent or null."""
        value = self.fields.get(name)
        if value is None:
            return default
        value = check_real(f"{self.where}[{name!r}]", value)
        if positive and value <= 0:
            raise ValueError(f"{self.where}[{name!r}] must be > 0, got {value}")
        return value

    def needs_max_positions(self, why: str) -> int:
        if self.max_positions is None:
            raise ValueError(f"rope_type {self.fields['rope_type']!r} needs max_position_embeddings ({why})")
        return self.max_positions


def _default(block: _Block, seq_len):
    return rope_frequencies(block.rotary_dim, block.base), 1.0


def _linear(block: _Block, seq_len):
    factor = check_real(f"{block.where}['factor']", block.required("factor"))
    if factor <= 0:
        raise ValueError(f"{block.where}['factor'] must be > 0, got {factor}")
    return rope_frequencies(block.rotary_dim, block.base) / factor, 1.0


def _dynamic(block: _Block, seq_len):
    factor = check_real(f"{block.where}['factor']", block.required("factor"))
    length = block.needs_max_positions("dynamic NTK scales from it")
    # transformers: seq_len defaults to, and is at least, max_position_embeddings (the base then is unscaled).
    # Factor 1 is no shortcut: transformers' rule s * n / L - (s - 1) is then n / L, which still grows.
    seq_len = max(seq_len or length, length)
    if seq_len == length:
        return rope_frequencies(block.rotary_dim, block.base), 1.0
    frequencies = scaled_frequencies(
        block.rotary_dim,
        factor,
        method="dynamic",
        base=block.base,
        original_max_position=length,
        seq_len=seq_len,
    )
    return frequencies, 1.0


def _yarn(block: _Block, seq_len):
    original = block.original
    factor = block.real("factor")
    if factor is None:  # DeepSeek-V3's rule when the block has none: the ratio of the two lengths
        factor = block.needs_max_positions("yarn without a factor") / original
    attention = block.real("attention_factor")
    if attention is None and factor <= 1:
        attention = 1.0  # transformers' get_mscale: no extension, no scale
    elif attention is None:
        mscale, mscale_all_dim = block.real("mscale"), block.real("mscale_all_dim")
        if mscale and mscale_all_dim:  # transformers ignores either one alone
            attention = _yarn_attention_factor(factor, mscale=mscale, mscale_all_dim=mscale_all_dim)
        else:
            attention = _yarn_attention_factor(factor)
    truncate = block.fields.get("truncate", True)
    if not isinstance(truncate, (bool, np.bool_)):
        raise TypeError(f"{block.where}['truncate'] must be true or false, got {truncate!r}")
    if factor == 1:
        return rope_frequencies(block.rotary_dim, block.base), float(attention)
    if factor < 1:
        raise ValueError(f"{block.where}['factor'] must be >= 1 for rope_type 'yarn', got {factor}")
    frequencies = scaled_frequencies(
        block.rotary_dim,
        factor,
        method="yarn",
        base=block.base,
        original_max_position=original,
        # transformers: `or` -- a null (or zero) beta is the default.
        beta_fast=block.real("beta_fast") or 32.0,
        beta_slow=block.real("beta_slow") or 1.0,
        truncate=bool(truncate),
    )
    return frequencies, float(attention)


def _longrope(block: _Block, seq_len):
    original = block.original
    half = block.rotary_dim // 2
    short = _check_pair_factors(f"{block.where}['short_factor']", block.required("short_factor"), half)
    long = _check_pair_factors(f"{block.where}['long_factor']", block.required("long_factor"), half)
    factor = block.real("factor")
    if factor is None:  # Phi-3: the ratio of the two lengths
        factor = block.needs_max_positions("longrope without a factor") / original
    attention = block.real("attention_factor")
    if attention is None:
        attention = longrope_attention_factor(factor, original) if factor > 1 else 1.0
    # transformers: the long factors only for a sequence longer than the trained one; none means short.
    factors = long if seq_len is not None and seq_len > original else short
    return rope_frequencies(block.rotary_dim, block.base) / factors, float(attention)


def _llama3(block: _Block, seq_len):
    frequencies = scaled_frequencies(
        block.rotary_dim,
        check_real(f"{block.where}['factor']", block.required("factor")),
        method="llama3",
        base=block.base,
        original_max_position=block.original,
        low_freq_factor=block.required("low_freq_factor"),
        high_freq_factor=block.required("high_freq_factor"),
    )
    return frequencies, 1.0


def _proportional(block: _Block, seq_len):
    # transformers' proportional RoPE (Gemma 4's global layers): the head's first
    # int(head_dim * partial_rotary_factor) // 2 pairs at the frequencies of the whole head, base ** (-2i /
    # head_dim), and the rest at 0 (not rotated), so the tables have the head's size; divided by factor.
    angles = block.rotary_dim // 2
    frequencies = np.zeros(block.head_dim // 2)
    frequencies[:angles] = rope_frequencies(block.head_dim, block.base)[:angles]
    return frequencies / block.real("factor", 1.0), 1.0


_Function = Callable[[_Block, "int | None"], "tuple[np.ndarray, float]"]

ROPE_TYPES: dict[str, tuple[_Function, frozenset]] = {
    "default": (_default, frozenset()),
    "linear": (_linear, frozenset({"factor"})),
    "dynamic": (_dynamic, frozenset({"factor"})),
    "yarn": (
        _yarn,
        frozenset(
            {
                "factor",
                "original_max_position_embeddings",
                "attention_factor",
                "beta_fast",
                "beta_slow",
                "mscale",
                "mscale_all_dim",
                "truncate",
            }
        ),
    ),
    "longrope": (
        _longrope,
        frozenset(
            {"factor", "original_max_position_embeddings", "attention_factor", "short_factor", "long_factor"}
        ),
    ),
    "proportional": (_proportional, frozenset({"factor"})),
    "llama3": (
        _llama3,
        frozenset({"factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"}),
    ),
}
"""Each ``rope_type`` of transformers' ``ROPE_INIT_FUNCTIONS`` (and ``"default"``): the function that
computes its frequencies and attention factor, and the fields of the block it reads.

:meta hide-value:
"""

# The rope_types whose block carries the trained context (transformers' standardize_rope_params).
_TRAINED_CONTEXT = ("llama3", "yarn", "longrope")


def read_config(config) -> dict:
    """The configuration as a dict: from a path to config.json (or its folder), a mapping, or an object."""
    if isinstance(config, (str, os.PathLike)):
        path = os.fspath(config)
        if os.path.isdir(path):
            path = os.path.join(path, "config.json")
        if not os.path.isfile(path):
            raise FileNotFoundError(
                f"config: no such file {path!r} (a config.json or the folder that holds it)"
            )
        with open(path, encoding="utf-8") as handle:
            loaded = json.load(handle)
        if not isinstance(loaded, dict):
            raise ValueError(f"config: {path!r} must hold a JSON object, got {type(loaded).__name__}")
        return loaded
    if isinstance(config, Mapping):
        return dict(config)
    to_dict = getattr(config, "to_dict", None)  # a transformers config object, read without importing it
    if callable(to_dict):
        loaded = to_dict()
        if isinstance(loaded, Mapping):
            return dict(loaded)
    raise TypeError(
        "config must be a path to config.json, a dict or a transformers config object (with to_dict()), "
        f"got {type(config).__name__}"
    )


def _block(config: dict, layer_type) -> tuple[dict, str]:
    """The one rope block of ``config`` (per ``layer_type`` when the config has one per layer type)."""
    block = config.get("rope_parameters")
    where = "rope_parameters"
    if block is None:
        block, where = config.get("rope_scaling"), "rope_scaling"
    block = dict(block or {})
    nested = bool(block) and all(isinstance(value, Mapping) or value is None for value in block.values())
    if "rope_local_base_freq" in config and not nested:
        # Gemma 3's older form: the block is the global layers', the sliding ones use the plain base.
        block = {
            "full_attention": block,
            "sliding_attention": {"rope_type": "default", "rope_theta": config["rope_local_base_freq"]},
        }
        nested = True
    if nested:
        if layer_type not in block or block[layer_type] is None:
            names = tuple(name for name, value in block.items() if value is not None)
            raise ValueError(
                f"layer_type must be one of {names} (the config has one {where} per layer type), "
                f"got {layer_type!r}"
            )
        return dict(block[layer_type]), f"{where}[{layer_type!r}]"
    if layer_type is not None:
        raise ValueError(
            f"layer_type must be None: the config has one {where} for every layer, got {layer_type!r}"
        )
    return block, where


def _per_layer(config: dict, layer_type) -> dict:
    """The config with the overrides of transformers' ``per_layer_config`` for the layers of ``layer_type``.

    Gemma 4 gives its full-attention layers a head of ``global_head_dim`` (512) where the others have
    ``head_dim`` (256): ``per_layer_config`` maps those layers' indices (in ``layer_types``) to
    ``{"head_dim": 512}``.
    """
    overrides = config.get("per_layer_config")
    types = config.get("layer_types") or []
    if not overrides or layer_type is None:
        return config
    chosen = [
        dict(value)
        for key, value in overrides.items()
        if int(key) < len(types) and types[int(key)] == layer_type
    ]
    if not chosen:
        return config
    if any(other != chosen[0] for other in chosen):
        raise ValueError(
            f"per_layer_config gives the {layer_type!r} layers different overrides ({chosen[0]} and others): "
            "one RoPE per layer type cannot follow them"
        )
    return {**config, **chosen[0]}


def _first(config: dict, *names):
    for name in names:
        if config.get(name) is not None:
            return config[name]
    return None


def _text_config(config: dict) -> dict:
    """A multimodal config's ``text_config`` when the top level has no RoPE fields, else ``config``."""
    has_rope = any(config.get(name) is not None for name in ("rope_parameters", "rope_scaling", "rope_theta"))
    text = config.get("text_config")
    return dict(text) if not has_rope and isinstance(text, Mapping) else config


def _rope_type(block: dict, where: str):
    """The block's rope_type (set into it) and its function; an unknown type or field is an error."""
    rope_type = block.get("rope_type", block.get("type", "default"))
    if rope_type not in ROPE_TYPES:
        raise ValueError(f"{where}['rope_type'] must be one of {tuple(ROPE_TYPES)}, got {rope_type!r}")
    block["rope_type"] = rope_type
    function, fields = ROPE_TYPES[rope_type]
    unknown = sorted(set(block) - fields - _COMMON_FIELDS)
    if unknown:
        raise ValueError(
            f"{where} has the field {unknown[0]!r}, which rope_type {rope_type!r} does not read "
            f"(it reads {sorted(fields | _COMMON_FIELDS)}); a misspelt or unsupported field would be ignored"
        )
    return rope_type, function


def _dimensions(config: dict, block: dict) -> tuple[int, float, int]:
    """``head_dim``, ``partial_rotary_factor`` and ``rotary_dim``, as transformers reads them."""
    partial = _first(block, "partial_rotary_factor")
    if partial is None:
        partial = _first(config, "partial_rotary_factor", "rotary_pct")
    partial = check_real("partial_rotary_factor", 1.0 if partial is None else partial)
    if not 0 < partial <= 1:
        raise ValueError(f"partial_rotary_factor must be in (0, 1], got {partial}")
    head_dim = _first(config, "qk_rope_head_dim", "head_dim")
    if head_dim is None:
        if config.get("hidden_size") is None or config.get("num_attention_heads") is None:
            raise ValueError("config needs head_dim, or hidden_size and num_attention_heads")
        head_dim = check_int("hidden_size", config["hidden_size"], minimum=1) // check_int(
            "num_attention_heads", config["num_attention_heads"], minimum=1
        )
    head_dim = check_int("head_dim", head_dim, minimum=1)
    rotary_dim = check_dim("rotary_dim (int(head_dim * partial_rotary_factor))", int(head_dim * partial))
    return head_dim, partial, rotary_dim


def _trained_context(config: dict, block: dict, rope_type: str, max_positions) -> int | None:
    """``original_max_position_embeddings`` for llama3, yarn and longrope (standardize_rope_params)."""
    if rope_type not in _TRAINED_CONTEXT:
        return None
    # The top level wins (Phi-3 keeps it there), then the block, then max_position_embeddings.
    original = _first(config, "original_max_position_embeddings")
    if original is None:
        original = _first(block, "original_max_position_embeddings")
    if original is None:
        original = max_positions
    if original is None:
        raise ValueError(f"rope_type {rope_type!r} needs original_max_position_embeddings")
    return check_int("original_max_position_embeddings", original, minimum=2)


def rope_parameters(
    config: str | os.PathLike | Mapping | object, seq_len: int | None = None, *, layer_type: str | None = None
) -> RopeParameters:
    """The RoPE of a checkpoint, read from its configuration as transformers reads it.

    Parameters
    ----------
    config : str, os.PathLike, dict or transformers config object
        A path to ``config.json`` (or to the folder that holds it), the dict it holds, or a
        ``transformers`` config object (read through ``to_dict()``; posenc does not import
        transformers). A multimodal config's ``text_config`` is read when the top level has no RoPE.
    seq_len : int, optional
        The length of the current sequence (>= 1), for the types whose frequencies depend on it:
        ``"dynamic"`` (default and minimum: ``max_position_embeddings``) and ``"longrope"`` (the long
        factors when ``seq_len > original_max_position_embeddings``; without it, the short ones, as
        transformers at initialisation). The other types ignore it.
    layer_type : str, optional
        For a config with one block per layer type (Gemma 3: ``"full_attention"`` and
        ``"sliding_attention"``), the one to read.

    Returns
    -------
    RopeParameters
        A named tuple: ``frequencies`` (float64), ``attention_factor``, ``rotary_dim``, ``head_dim``,
        ``partial_rotary_factor``, ``rope_type``, ``layout``, ``max_position_embeddings`` and
        ``original_max_position_embeddings``.

    Raises
    ------
    TypeError, ValueError
        For a field of the wrong kind or out of range, a field that the block's ``rope_type`` does not
        read, an unknown ``rope_type``, or a missing field that it needs; the message names the field.
    FileNotFoundError
        For a path without a config.json.

    Notes
    -----
    The fields, as transformers 5.23 reads them:

    - ``rope_parameters`` (or, before transformers 5, ``rope_scaling``): ``rope_type`` (or ``type``;
      default ``"default"``), ``rope_theta`` (or the top-level ``rope_theta``, default 10000),
      ``partial_rotary_factor`` (or the top-level one, or GPT-NeoX's ``rotary_pct``; default 1), and
      the fields of :data:`posenc.config.ROPE_TYPES`;
    - ``head_dim``, else ``hidden_size // num_attention_heads``; DeepSeek's ``qk_rope_head_dim`` first;
    - ``original_max_position_embeddings`` of ``llama3``, ``yarn``, ``longrope``: the top-level one if
      the config has it (Phi-3), else the block's, else ``max_position_embeddings``;
    - ``yarn``: ``factor`` (if null, ``max_position_embeddings / original_max_position_embeddings``),
      ``beta_fast`` and ``beta_slow`` (null: 32 and 1), ``truncate`` (default true),
      ``attention_factor``, else ``mscale`` and ``mscale_all_dim`` when both are non-zero (one alone
      is ignored, as transformers does), else ``0.1 ln(factor) + 1``;
    - ``longrope``: ``short_factor``, ``long_factor``, ``factor`` (if absent, the ratio of the two
      lengths), ``attention_factor`` (else ``sqrt(1 + ln(factor) / ln(L))``, 1 for ``factor <= 1``);
    - ``proportional`` (Gemma 4): the first ``int(head_dim * partial_rotary_factor) // 2`` pairs at
      ``base ** (-2i / head_dim)``, the others at frequency 0 (unrotated), all divided by ``factor``
      (default 1); ``rotary_dim`` is then the whole ``head_dim``.

    Where transformers differs on purpose: it computes in float32, posenc in float64 (the frequencies
    differ by float32 rounding, at most about 3e-7 relative on real configs, see
    ``tests/posenc/test_config.py``). transformers' dynamic and LongRoPE modules change their
    frequencies with the sequence at run time; here ``seq_len`` says which, and
    :meth:`posenc.nn.RotaryEmbedding.from_config` follows the length.

    Examples
    --------
    Llama 3.1 8B's ``config.json`` (its RoPE fields):

    >>> from posenc import rope_parameters
    >>> llama = {
    ...     "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
    ...     "max_position_embeddings": 131072, "rope_theta": 500000.0,
    ...     "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
    ...                      "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    ... }
    >>> p = rope_parameters(llama)
    >>> p.rope_type, p.rotary_dim, p.layout, p.attention_factor
    ('llama3', 128, 'half', 1.0)
    >>> print(p.frequencies[[0, -1]])
    [1.00000000e+00 3.06892599e-07]

    Qwen2.5 with YaRN: the attention factor multiplies the cos and sin tables.

    >>> qwen = {"hidden_size": 3584, "num_attention_heads": 28, "rope_theta": 1e6,
    ...         "max_position_embeddings": 32768,
    ...         "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"}}
    >>> round(rope_parameters(qwen).attention_factor, 6)
    1.138629

    A field that the type does not read is an error, not a silent default:

    >>> rope_parameters({**qwen, "rope_scaling": {"type": "yarn", "factor": 4.0, "beta": 32}})
    Traceback (most recent call last):
        ...
    ValueError: rope_scaling has the field 'beta', which rope_type 'yarn' does not read ...
    """
    config = _per_layer(_text_config(read_config(config)), layer_type)
    if seq_len is not None:
        seq_len = check_int("seq_len", seq_len, minimum=1)
    block, where = _block(config, layer_type)
    rope_type, function = _rope_type(block, where)
    base = _first(block, "rope_theta")
    if base is None:
        base = _first(config, "rope_theta", "rotary_emb_base")
    base = check_real(f"{where}['rope_theta']", 10000.0 if base is None else base)
    head_dim, partial, rotary_dim = _dimensions(config, block)
    max_positions = config.get("max_position_embeddings")
    if max_positions is not None:
        max_positions = check_int("max_position_embeddings", max_positions, minimum=1)
    original = _trained_context(config, block, rope_type, max_positions)
    frequencies, attention = function(
        _Block(block, head_dim, rotary_dim, base, max_positions, original, where), seq_len
    )
    if rope_type == "proportional":
        rotary_dim = head_dim  # every pair of the head, the last ones at frequency 0
    interleaved = config.get("model_type") in _INTERLEAVED and config.get("rope_interleave", True)
    return RopeParameters(
        frequencies=np.asarray(frequencies, dtype=np.float64),
        attention_factor=float(attention),
        rotary_dim=rotary_dim,
        head_dim=head_dim,
        partial_rotary_factor=partial,
        rope_type=rope_type,
        layout="interleaved" if interleaved else "half",
        max_position_embeddings=max_positions,
        original_max_position_embeddings=original,
    )
