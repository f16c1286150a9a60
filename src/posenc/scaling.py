"""Context extension for RoPE as rewrites of the frequencies ``theta_i``.

A model trained on ``L`` positions has seen, in pair ``i``, angles up to
``L * theta_i``. To read ``s * L`` positions, each recipe below lowers some of
the frequencies so that the angles stay in (or near) the trained range. Pass
the result to :func:`posenc.apply_rope` or :class:`posenc.nn.RotaryEmbedding`
as ``frequencies``.
"""

from __future__ import annotations

import math

import numpy as np

from posenc._checks import check_base, check_int, check_real
from posenc.encoding import frequencies as _base_frequencies
from posenc.rope import check_dim

__all__ = ["SCALING_METHODS", "scaled_frequencies", "yarn_attention_factor"]

SCALING_METHODS = ("linear", "ntk", "yarn")


def _check_factor(factor) -> float:
    factor = check_real("factor", factor)
    if factor <= 1:
        raise ValueError(f"factor must be > 1 (the context is extended s times), got {factor}")
    return factor


def scaled_frequencies(
    dim: int,
    factor: float,
    *,
    method: str,
    base: float = 10000.0,
    original_max_position: int | None = None,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
) -> np.ndarray:
    """RoPE frequencies rewritten to extend the context ``factor`` times.

    Parameters
    ----------
    dim : int
        Head dimension; a positive even integer (>= 4 for ``"ntk"``).
    factor : float
        The extension ``s > 1``: the model was trained on ``L`` positions and
        should read ``s * L``.
    method : {"linear", "ntk", "yarn"}
        ``"linear"``: position interpolation (Chen et al., 2023),
        ``theta'_i = theta_i / s``.
        ``"ntk"``: NTK-aware scaling, a larger base,
        ``theta'_i = (base * s ** (dim / (dim - 2))) ** (-2 i / dim)``.
        ``"yarn"``: YaRN's "NTK-by-parts" (Peng et al., 2023), see Notes.
    base : float, default 10000.0
        Finite number > 0; the original ``theta_i = base ** (-2 i / dim)``.
    original_max_position : int, optional
        The trained context ``L`` (>= 1); required by ``"yarn"``, ignored by the others.
    beta_fast, beta_slow : float, default 32.0 and 1.0
        YaRN's ramp: pairs that turn more than ``beta_fast`` times within ``L``
        positions keep their frequency, pairs that turn fewer than
        ``beta_slow`` times are interpolated. ``beta_fast > beta_slow``.

    Returns
    -------
    numpy.ndarray
        Float64 array of ``theta'_i`` for ``i = 0 ... dim/2 - 1``.

    Notes
    -----
    YaRN counts the turns of pair ``i`` within the trained context,
    ``r_i = L * theta_i / (2 pi)``, and blends with
    ``gamma_i = clip((r_i - beta_slow) / (beta_fast - beta_slow), 0, 1)``:

        theta'_i = (1 - gamma_i) * theta_i / s + gamma_i * theta_i.

    Fast pairs (``gamma = 1``) are unchanged, slow ones (``gamma = 0``) are
    divided by ``s`` as in position interpolation. This is the paper's ramp
    over ``r``; its reference code ramps linearly over the index ``i``
    between the (rounded) indices where ``r_i`` crosses ``beta_fast`` and
    ``beta_slow``, which gives slightly different values in between. YaRN
    also scales the logits, see :func:`yarn_attention_factor`.

    Examples
    --------
    >>> scaled_frequencies(4, 2.0, method="linear")
    array([0.5  , 0.005])
    >>> scaled_frequencies(4, 2.0, method="ntk")
    array([1.   , 0.005])
    """
    dim = check_dim("dim", dim)
    factor = _check_factor(factor)
    if not isinstance(method, str) or method not in SCALING_METHODS:
        raise ValueError(f"method must be one of {SCALING_METHODS}, got {method!r}")
    base = check_base(base)
    theta = _base_frequencies(dim, base)
    if method == "linear":
        return theta / factor
    if method == "ntk":
        if dim < 4:
            raise ValueError(
                f"dim must be >= 4 for method 'ntk' (its exponent is dim / (dim - 2)), got {dim}"
            )
        scaled_base = base * factor ** (dim / (dim - 2))
        return scaled_base ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)

    if original_max_position is None:
        raise ValueError("method 'yarn' needs original_max_position, the trained context length L")
    length = check_int("original_max_position", original_max_position, minimum=1)
    beta_fast = check_real("beta_fast", beta_fast)
    beta_slow = check_real("beta_slow", beta_slow)
    if beta_fast <= beta_slow:
        raise ValueError(f"beta_fast must be > beta_slow, got beta_fast={beta_fast}, beta_slow={beta_slow}")
    turns = length * theta / (2 * math.pi)
    gamma = np.clip((turns - beta_slow) / (beta_fast - beta_slow), 0.0, 1.0)
    return (1 - gamma) * theta / factor + gamma * theta


def yarn_attention_factor(factor: float) -> float:
    """YaRN's scale ``0.1 ln(s) + 1`` for queries and keys.

    Parameters
    ----------
    factor : float
        The context extension ``s > 1``.

    Returns
    -------
    float
        The factor by which YaRN multiplies both the rotated queries and keys
        (in the reference code: the cos and sin tables); the attention logits
        are therefore multiplied by its square, ``(0.1 ln(s) + 1) ** 2``. It
        counters the flatter softmax over a longer context.

    Examples
    --------
    >>> round(yarn_attention_factor(16.0), 4)
    1.2773
    """
    return 0.1 * math.log(_check_factor(factor)) + 1.0
