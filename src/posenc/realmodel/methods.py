"""The context-extension methods that chapter 10 runs on the real model, one registry of settings.

Each method is a name and a function of the model's RoPE settings and the input's length that returns
the rotation frequencies and the attention factor (the factor on the cos and sin tables). The
frequencies come from :func:`posenc.scaled_frequencies` (its docstring has the formulas) and the factor
from :func:`posenc.yarn_attention_factor`; this module only chooses their arguments, once for the sweep,
the test and the chapter.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from posenc._checks import check_int
from posenc.realmodel.metadata import GGUFConfig
from posenc.rope import rope_frequencies
from posenc.scaling import _check_factor, scaled_frequencies, yarn_attention_factor

__all__ = ["FACTOR", "METHODS", "rope_setting"]

FACTOR = 2.0
"""The extension ``s`` of every method: SmolLM2 was trained on 8,192 positions, the sweep reads 16,384."""


def _none(config: GGUFConfig, factor: float, seq_len: int) -> tuple[np.ndarray, float]:
    return rope_frequencies(config.head_dim, config.rope_base), 1.0


def _scaled(method: str, **options) -> Callable[[GGUFConfig, float, int], tuple[np.ndarray, float]]:
    def setting(config: GGUFConfig, factor: float, seq_len: int) -> tuple[np.ndarray, float]:
        theta = scaled_frequencies(
            config.head_dim,
            factor,
            method=method,
            base=config.rope_base,
            original_max_position=config.context_length,
            seq_len=seq_len if method == "dynamic" else None,
            **options,
        )
        return theta, 1.0

    return setting


def _yarn(config: GGUFConfig, factor: float, seq_len: int) -> tuple[np.ndarray, float]:
    theta, _ = _scaled("yarn")(config, factor, seq_len)
    return theta, yarn_attention_factor(factor)


METHODS: dict[str, Callable[[GGUFConfig, float, int], tuple[np.ndarray, float]]] = {
    "none": _none,
    "linear": _scaled("linear"),
    "ntk": _scaled("ntk"),
    "dynamic_hf": _scaled("dynamic", dynamic_rule="hf"),
    "dynamic_yarn": _scaled("dynamic", dynamic_rule="yarn"),
    "yarn": _yarn,
    "yarn_no_factor": _scaled("yarn"),
    "llama3": _scaled("llama3"),
}
"""Method name -> ``setting(config, factor, seq_len)`` returning ``(frequencies, attention_factor)``.

- ``"none"``: the file's base, unchanged;
- ``"linear"``: position interpolation (PI), every frequency divided by ``s``;
- ``"ntk"``: NTK-aware, the base multiplied by ``s ** (dim / (dim - 2))``;
- ``"dynamic_hf"``, ``"dynamic_yarn"``: NTK with a factor that grows with the input's length, by
  transformers' rule ``s n / L - (s - 1)`` or the YaRN paper's ``n / L`` (section 3.3, 1 within ``L``;
  the reference code uses it for Dynamic-YaRN, its dynamic NTK class transformers' rule);
- ``"yarn"``: YaRN's ramp with its attention factor ``0.1 ln(s) + 1``, as transformers' ``yarn``;
- ``"yarn_no_factor"``: the same frequencies with the attention factor 1;
- ``"llama3"``: Llama 3.1's three bands (low and high frequency factors 1 and 4).
"""


def rope_setting(
    method: str, config: GGUFConfig, seq_len: int, *, factor: float = FACTOR
) -> tuple[np.ndarray, float]:
    """The frequencies and the attention factor of one method, for an input of ``seq_len`` tokens.

    Parameters
    ----------
    method : str
        A key of :data:`~posenc.realmodel.methods.METHODS`.
    config : GGUFConfig
        The model's settings, from :func:`~posenc.realmodel.read_config`.
    seq_len : int
        The input's length, >= 1 (only the dynamic methods use it).
    factor : float, default FACTOR
        The extension ``s >= 1``.

    Returns
    -------
    tuple of (numpy.ndarray, float)
        ``head_dim // 2`` frequencies, for :meth:`~posenc.serving.TinyDecoder.set_frequencies`, and the
        attention factor.

    Examples
    --------
    >>> from posenc.realmodel import read_config, rope_setting
    >>> config = read_config()
    >>> theta, attention = rope_setting("yarn", config, 16384)
    >>> theta.shape, round(attention, 4)
    ((32,), 1.0693)
    >>> bool(rope_setting("dynamic_hf", config, 8192)[0][-1] == rope_setting("none", config, 8192)[0][-1])
    True
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if not isinstance(config, GGUFConfig):
        raise TypeError(f"config must be a posenc.realmodel.GGUFConfig, got {type(config).__name__}")
    seq_len = check_int("seq_len", seq_len, minimum=1)
    return METHODS[method](config, _check_factor(factor), seq_len)
