"""Context extension for RoPE as rewrites of the frequencies ``theta_i``.

A model trained on ``L`` positions has seen, in pair ``i``, angles up to
``L * theta_i``. To read ``s * L`` positions, each recipe below lowers some of
the frequencies so that the angles stay in (or near) the trained range. Pass
the result to :func:`posenc.apply_rope` or :class:`posenc.nn.RotaryEmbedding`
as ``frequencies``.

The methods are the ``rope_type`` values of real ``config.json`` files, and
each one equals the corresponding ``_compute_*_parameters`` function of
Hugging Face transformers (``transformers.modeling_rope_utils``), which
``tests/posenc/test_scaling.py`` runs; posenc computes in float64, transformers in
float32.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

import numpy as np

from posenc._checks import check_base, check_int, check_real
from posenc.encoding import frequencies as _base_frequencies
from posenc.rope import check_dim

if TYPE_CHECKING:  # the types of the annotations, for checkers only
    from numpy.typing import ArrayLike

__all__ = [
    "DYNAMIC_RULES",
    "SCALING_METHODS",
    "YARN_RAMPS",
    "longrope_attention_factor",
    "scaled_frequencies",
    "yarn_attention_factor",
]

SCALING_METHODS = ("linear", "ntk", "dynamic", "yarn", "llama3", "longrope")
"""The context-extension methods of :func:`posenc.scaled_frequencies`, named as transformers' rope_type."""

DYNAMIC_RULES = ("hf", "yarn")
"""The two rules of dynamic scaling: transformers' slope ``s * n / L - (s - 1)`` and YaRN's ``n / L``."""

YARN_RAMPS = ("code", "paper")
"""The two readings of YaRN's ramp: the reference code's (``"code"``, as transformers) and the paper's."""


def _check_factor(factor) -> float:
    factor = check_real("factor", factor)
    # 1 is allowed, as transformers' validator allows it (real configs carry `factor: 1.0`): no extension.
    if factor < 1:
        raise ValueError(f"factor must be >= 1 (the context is extended s times), got {factor}")
    return factor


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _check_positive(name: str, value) -> float:
    value = check_real(name, value)
    if value <= 0:
        raise ValueError(f"{name} must be > 0, got {value}")
    return value


def _needs(method: str, name: str, value, meaning: str):
    if value is None:
        raise ValueError(f"method {method!r} needs {name}, {meaning}")
    return value


def _check_pair_factors(name: str, value, half: int) -> np.ndarray:
    """Return LongRoPE's per-pair factors as a float64 array of length ``half``, all finite and > 0."""
    if isinstance(value, (str, bytes)) or not np.iterable(value):
        raise TypeError(f"{name} must be a sequence of dim // 2 = {half} real numbers, got {value!r}")
    values = list(value)
    if any(isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) for v in values):
        raise TypeError(f"{name} must hold real numbers only, got {value!r}")
    if len(values) != half:
        raise ValueError(f"{name} must have length dim // 2 = {half}, got {len(values)}")
    factors = np.asarray(values, dtype=np.float64)
    if not (np.isfinite(factors) & (factors > 0)).all():
        raise ValueError(f"{name} must be finite and > 0, got minimum {factors.min()!r}")
    return factors


def scaled_frequencies(
    dim: int,
    factor: float,
    *,
    method: str,
    base: float = 10000.0,
    original_max_position: int | None = None,
    seq_len: int | None = None,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    ramp: str = "code",
    truncate: bool = True,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    short_factor: ArrayLike | None = None,
    long_factor: ArrayLike | None = None,
    dynamic_rule: str = "hf",
) -> np.ndarray:
    """RoPE frequencies rewritten to extend the context ``factor`` times.

    Parameters
    ----------
    dim : int
        Head dimension (or the rotated part of it); a positive even integer
        (>= 4 for ``"ntk"`` and ``"dynamic"``).
    factor : float
        The extension ``s >= 1``: the model was trained on ``L`` positions and
        should read ``s * L``. ``s = 1`` (as in some real configs) returns the
        unscaled frequencies for every method but ``"dynamic"``, whose rule
        still grows the base beyond ``L`` (as in transformers) and
        ``"longrope"``, which does not use ``s``. ``"longrope"`` checks it but does not use it
        (its factors are per pair); it enters :func:`longrope_attention_factor`.
    method : {"linear", "ntk", "dynamic", "yarn", "llama3", "longrope"}
        The ``rope_type`` of a Hugging Face config, see Notes.
    base : float, default 10000.0
        Finite number > 1 (``rope_theta``); the original
        ``theta_i = base ** (-2 i / dim)``.
    original_max_position : int, optional
        The trained context ``L`` (>= 1; >= 2 for ``"longrope"``), HF's
        ``original_max_position_embeddings`` (for ``"dynamic"``: HF's
        ``max_position_embeddings``). Required by ``"dynamic"``, ``"yarn"``,
        ``"llama3"`` and ``"longrope"``.
    seq_len : int, optional
        The length of the current sequence (>= 1), required by ``"dynamic"``
        and ``"longrope"``, whose frequencies depend on it.
    beta_fast, beta_slow : float, default 32.0 and 1.0
        YaRN's ramp: pairs that turn more than ``beta_fast`` times within ``L``
        positions keep their frequency, pairs that turn fewer than
        ``beta_slow`` times are interpolated. ``0 < beta_slow < beta_fast``.
    ramp : {"code", "paper"}, default "code"
        YaRN's ramp between the two: ``"code"`` is linear in the pair index
        ``i`` (YaRN's reference code, Hugging Face and vLLM), ``"paper"`` is
        linear in the turns ``r_i`` (the paper's eq. 18-20). The default is
        ``"code"`` because it is what every published YaRN checkpoint was
        fine-tuned with; the two differ in the blended pairs (by up to 0.37 in
        ``theta'_i / theta_i``).
    truncate : bool, default True
        ``ramp="code"`` only: round the ramp's ends outwards to whole pair
        indices (``floor``/``ceil``), as the reference code and HF's default
        ``truncate=True`` do; ``False`` keeps the fractional ends (HF's
        ``truncate: false``, used by gpt-oss).
    low_freq_factor, high_freq_factor : float, default 1.0 and 4.0
        ``"llama3"``: pairs whose wavelength ``2 pi / theta_i`` is below
        ``L / high_freq_factor`` keep their frequency, those above
        ``L / low_freq_factor`` are divided by ``s``. Llama 3.1 uses 1 and 4;
        Llama 4 uses 1 and 1 (no band between). ``0 < low_freq_factor <= high_freq_factor``.
    short_factor, long_factor : sequence of float, optional
        ``"longrope"``: ``dim // 2`` finite numbers > 0 that divide
        ``theta_i``, the short ones for ``seq_len <= L`` and the long ones
        beyond (Phi-3's ``config.json``). Both are required.
    dynamic_rule : {"hf", "yarn"}, default "hf"
        ``"dynamic"``: how the current length sets the effective ``s``, see
        Notes. ``"hf"`` is transformers' (and every ``rope_type: dynamic``
        config's) rule, in which ``factor`` is a slope; ``"yarn"`` is the YaRN
        paper's Dynamic Scaling (section 3.3), ``max(1, seq_len / L)``, which
        does not use ``factor`` (YaRN's reference code uses it for
        Dynamic-YaRN, not for its dynamic NTK class).

    Returns
    -------
    numpy.ndarray
        Float64 array of ``theta'_i`` for ``i = 0 ... dim/2 - 1``.

    Raises
    ------
    TypeError, ValueError
        For a bad argument, naming it and the rule. Arguments that the chosen
        method does not use are ignored and not checked, so one call can pass
        the same keywords to every method.

    Notes
    -----
    ``"linear"``: position interpolation (Chen et al., 2023),
    ``theta'_i = theta_i / s``.

    ``"ntk"``: NTK-aware scaling, a larger base,
    ``theta'_i = (base * s ** (dim / (dim - 2))) ** (-2 i / dim)``.

    ``"dynamic"``: dynamic NTK, the same with ``s`` replaced by an effective
    ``s`` that grows with the current length; for ``seq_len <= L`` the
    frequencies are the unscaled ``theta_i``. Two rules go by this name:

    - ``dynamic_rule="hf"``: ``s * seq_len / L - (s - 1)``, emozilla's rule
      that transformers implements. It is 1 at ``seq_len = L`` and grows by
      ``s`` with every further ``L`` positions: ``factor`` is a slope, and at
      ``4 L`` with ``s = 4`` the effective ``s`` is 13.
    - ``dynamic_rule="yarn"``: ``max(1, seq_len / L)``, the YaRN paper's
      Dynamic Scaling (section 3.3): the extension ratio itself, 4 at
      ``4 L``. The value ``"yarn"`` names the paper's rule. YaRN's reference
      code uses it for Dynamic-YaRN and dynamic part-NTK, while its own
      dynamic NTK class uses the ``"hf"`` rule.

    The frequencies change with the sequence length. YaRN (section 3.3)
    therefore caches keys before the rotation; transformers' cache holds them
    rotated, so earlier keys keep the frequencies they were rotated with.

    ``"yarn"``: YaRN's "NTK-by-parts" (Peng et al., 2023). It counts the turns
    of pair ``i`` within the trained context, ``r_i = L * theta_i / (2 pi)``,
    and blends

        theta'_i = (1 - gamma_i) * theta_i / s + gamma_i * theta_i.

    Fast pairs (``gamma = 1``) are unchanged, slow ones (``gamma = 0``) are
    divided by ``s`` as in position interpolation. With ``ramp="paper"``,
    ``gamma_i = clip((r_i - beta_slow) / (beta_fast - beta_slow), 0, 1)``.
    With ``ramp="code"``, the index where ``r_i`` equals ``beta``,
    ``dim * ln(L / (2 pi beta)) / (2 ln(base))``, is computed for both betas,
    rounded outwards (``truncate``) and clipped to ``[0, dim - 1]`` (HF's
    bound, the full ``dim``), and ``gamma`` falls linearly in ``i`` from 1 at
    the first to 0 at the second (HF adds 0.001 to the second if they are
    equal). YaRN also scales the logits, see :func:`yarn_attention_factor`.

    The code ramp inherits one quirk from the reference code and transformers,
    kept here for parity. When the index where ``r_i = beta_fast`` lies
    beyond ``dim - 1`` (``L > 2 pi beta_fast base ** (2 (dim - 1) / dim)``:
    the slowest pair then turns more than ``beta_fast * base`` times, for
    example 35,077 times with ``dim`` 128, base 500 and ``L = 10**8``), the
    clipped ends cross (``low > dim - 1 = high``), the ramp's slope changes
    sign, and every pair is divided by ``s``: the opposite of "fast pairs are
    unchanged". No published checkpoint is near this (with base 10,000 and
    ``dim`` 128 it needs ``L`` above about ``1.7 * 10**10``); ``ramp="paper"``
    keeps every pair there.

    ``"llama3"``: Llama 3.1's scaling, with wavelengths ``lambda_i = 2 pi /
    theta_i``: ``theta_i`` where ``lambda_i < L / high_freq_factor``,
    ``theta_i / s`` where ``lambda_i > L / low_freq_factor``, and in between
    the blend above with ``gamma_i = (L / lambda_i - low_freq_factor) /
    (high_freq_factor - low_freq_factor)``. Since ``L / lambda_i = r_i``, this
    is the paper ramp of ``"yarn"`` with ``beta_slow = low_freq_factor`` and
    ``beta_fast = high_freq_factor``, equal to float64 rounding.

    ``"longrope"``: LongRoPE (Ding et al., 2024) as in Phi-3,
    ``theta'_i = theta_i / f_i`` with ``f = long_factor`` if
    ``seq_len > L`` and ``short_factor`` otherwise. Its attention factor is
    :func:`longrope_attention_factor`.

    Examples
    --------
    >>> scaled_frequencies(4, 2.0, method="linear")
    array([0.5  , 0.005])
    >>> scaled_frequencies(4, 2.0, method="ntk")
    array([1.   , 0.005])
    >>> scaled_frequencies(4, 2.0, method="dynamic", original_max_position=100, seq_len=100)
    array([1.  , 0.01])
    >>> scaled_frequencies(4, 2.0, method="dynamic", original_max_position=100, seq_len=125)
    array([1.        , 0.00666667])

    The two dynamic rules at four times the trained length with ``s = 4``:
    the effective ``s`` is 13 (transformers) or 4 (YaRN). With ``dim = 4``
    the base grows by ``s ** 2``, which divides the slow pair's frequency by ``s``.

    >>> for rule in DYNAMIC_RULES:
    ...     slow = scaled_frequencies(
    ...         4, 4.0, method="dynamic", original_max_position=100, seq_len=400, dynamic_rule=rule
    ...     )[1]
    ...     print(rule, round(float(0.01 / slow), 6))
    hf 13.0
    yarn 4.0

    Llama 3.1 8B (``rope_theta`` 500,000, head dimension 128): the fast pairs
    are kept, the slow ones divided by 8.

    >>> theta = 500000.0 ** (-np.arange(0, 128, 2) / 128)
    >>> llama3 = scaled_frequencies(128, 8.0, method="llama3", base=500000.0, original_max_position=8192)
    >>> ratio = llama3 / theta
    >>> print(ratio[:2].round(3), ratio[-2:].round(3))
    [1. 1.] [0.125 0.125]

    The two YaRN ramps agree at both ends and differ in between:

    >>> code = scaled_frequencies(128, 8.0, method="yarn", original_max_position=4096)
    >>> paper = scaled_frequencies(128, 8.0, method="yarn", original_max_position=4096, ramp="paper")
    >>> theta = 10000.0 ** (-np.arange(0, 128, 2) / 128)
    >>> print(round(float(np.abs(code / theta - paper / theta).max()), 3))
    0.321
    """
    dim = check_dim("dim", dim)
    factor = _check_factor(factor)
    if not isinstance(method, str) or method not in SCALING_METHODS:
        raise ValueError(f"method must be one of {SCALING_METHODS}, got {method!r}")
    base = check_base(base)
    theta = _base_frequencies(dim, base)
    if method == "linear":
        return theta / factor  # exactly theta for factor 1
    if method in ("ntk", "dynamic"):
        if dim < 4:
            raise ValueError(
                f"dim must be >= 4 for method {method!r} (its exponent is dim / (dim - 2)), got {dim}"
            )
        if method == "dynamic":
            length = _trained_length(method, original_max_position)
            seq_len = check_int(
                "seq_len", _needs(method, "seq_len", seq_len, "the current length"), minimum=1
            )
            factor = _dynamic_factor(dynamic_rule, factor, seq_len, length)
            if factor == 1:
                # HF clamps seq_len to L, which makes the new base exactly the old one.
                return theta
        scaled_base = base * factor ** (dim / (dim - 2))
        return scaled_base ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)

    length = _trained_length(method, original_max_position, minimum=2 if method == "longrope" else 1)
    if method == "yarn":
        gamma = _yarn_ramp(dim, base, theta, length, beta_fast, beta_slow, ramp, truncate)
        # The arguments are checked first; factor 1 then returns theta itself, not the blend's rounding of it.
        return theta if factor == 1 else (1 - gamma) * theta / factor + gamma * theta
    if method == "llama3":
        scaled = _llama3(theta, factor, length, low_freq_factor, high_freq_factor)
        return theta if factor == 1 else scaled

    half = dim // 2
    short = _check_pair_factors(
        "short_factor", _needs(method, "short_factor", short_factor, "one per pair"), half
    )
    long = _check_pair_factors(
        "long_factor", _needs(method, "long_factor", long_factor, "one per pair"), half
    )
    seq_len = check_int("seq_len", _needs(method, "seq_len", seq_len, "the current length"), minimum=1)
    # HF: the long factors as soon as the sequence is longer than the trained context.
    return theta / (long if seq_len > length else short)


def _dynamic_factor(rule, factor: float, seq_len: int, length: int) -> float:
    """The effective ``s`` of dynamic scaling at ``seq_len`` (1 up to the trained length ``length``)."""
    if not isinstance(rule, str) or rule not in DYNAMIC_RULES:
        raise ValueError(f"dynamic_rule must be one of {DYNAMIC_RULES}, got {rule!r}")
    if seq_len <= length:
        return 1.0
    if rule == "yarn":
        return seq_len / length
    return factor * seq_len / length - (factor - 1)


def _trained_length(method: str, original_max_position, *, minimum: int = 1) -> int:
    value = _needs(method, "original_max_position", original_max_position, "the trained context length L")
    return check_int("original_max_position", value, minimum=minimum)


def _yarn_ramp(dim, base, theta, length, beta_fast, beta_slow, ramp, truncate) -> np.ndarray:
    """YaRN's ``gamma_i``: 1 where pair ``i`` keeps its frequency, 0 where it is interpolated."""
    if not isinstance(ramp, str) or ramp not in YARN_RAMPS:
        raise ValueError(f"ramp must be one of {YARN_RAMPS}, got {ramp!r}")
    beta_fast = check_real("beta_fast", beta_fast)
    beta_slow = check_real("beta_slow", beta_slow)
    if not 0 < beta_slow < beta_fast:
        raise ValueError(
            f"beta_fast and beta_slow must satisfy 0 < beta_slow < beta_fast (they count turns), "
            f"got beta_fast={beta_fast}, beta_slow={beta_slow}"
        )
    if ramp == "paper":
        turns = length * theta / (2 * math.pi)
        return np.clip((turns - beta_slow) / (beta_fast - beta_slow), 0.0, 1.0)

    if not isinstance(truncate, (bool, np.bool_)):
        raise TypeError(f"truncate must be True or False, got {truncate!r} of type {type(truncate).__name__}")

    def correction_dim(turns: float) -> float:
        # The (fractional) pair index i at which r_i = turns; HF's find_correction_dim.
        return dim * math.log(length / (turns * 2 * math.pi)) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    # HF (and the reference code) clip to dim - 1, not dim // 2 - 1; the ramp is clipped anyway.
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001  # as HF and the reference code: no division by zero
    return 1 - np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)


def _llama3(theta, factor, length, low_freq_factor, high_freq_factor) -> np.ndarray:
    """Llama 3.1's ``rope_type="llama3"``, in the order of Meta's and HF's code."""
    low_freq_factor = _check_positive("low_freq_factor", low_freq_factor)
    high_freq_factor = _check_positive("high_freq_factor", high_freq_factor)
    if not low_freq_factor <= high_freq_factor:
        raise ValueError(
            "low_freq_factor must be <= high_freq_factor, "
            f"got low_freq_factor={low_freq_factor}, high_freq_factor={high_freq_factor}"
        )
    wavelength = 2 * math.pi / theta
    slow = wavelength > length / low_freq_factor
    if low_freq_factor == high_freq_factor:
        # Llama 4's (1, 1): no band between, each pair slow (divided) or fast (kept).
        return np.where(slow, theta / factor, theta)
    fast = wavelength < length / high_freq_factor
    smooth = (length / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
    blended = (1 - smooth) * theta / factor + smooth * theta
    return np.where(slow, theta / factor, np.where(fast, theta, blended))


def yarn_attention_factor(
    factor: float, *, mscale: float | None = None, mscale_all_dim: float | None = None
) -> float:
    """YaRN's scale ``0.1 ln(s) + 1`` for queries and keys.

    Parameters
    ----------
    factor : float
        The context extension ``s >= 1``; ``s = 1`` gives 1.0, as HF's
        ``get_mscale`` does.
    mscale, mscale_all_dim : float, optional
        DeepSeek's split of the factor (``rope_parameters`` of DeepSeek-V2/V3):
        given together, both finite and > 0, the result is
        ``(0.1 mscale ln(s) + 1) / (0.1 mscale_all_dim ln(s) + 1)``, as HF's
        ``get_mscale`` quotient. 0 counts as not given, as in HF
        (``if mscale and mscale_all_dim``): both 0 (or None) give the default
        ``0.1 ln(s) + 1``. Giving only one of them (the other None or 0) is an
        error, where HF silently ignores the one given: a config that sets one
        most likely meant the quotient.

    Returns
    -------
    float
        The factor by which YaRN multiplies both the rotated queries and keys
        (in the reference code and in HF: the cos and sin tables); the
        attention logits are therefore multiplied by its square,
        ``(0.1 ln(s) + 1) ** 2``. It counters the flatter softmax over a
        longer context. With ``mscale = mscale_all_dim`` (DeepSeek-V3: both
        1.0) the tables get 1.0, and the model multiplies its softmax scale by
        ``(0.1 mscale_all_dim ln(s) + 1) ** 2`` instead.

    Examples
    --------
    >>> round(yarn_attention_factor(16.0), 4)
    1.2773
    >>> yarn_attention_factor(40.0, mscale=1.0, mscale_all_dim=1.0)
    1.0
    >>> round(yarn_attention_factor(40.0, mscale=0.707, mscale_all_dim=1.0), 4)
    0.921
    """
    factor = _check_factor(factor)
    # HF's `if mscale and mscale_all_dim`: a zero is the same as no value (configs write 0 for "unset").
    given = [value is not None and not (_is_real(value) and value == 0) for value in (mscale, mscale_all_dim)]
    if given[0] != given[1]:
        raise ValueError(
            "mscale and mscale_all_dim go together: give both (non-zero) or neither, "
            f"got mscale={mscale!r}, mscale_all_dim={mscale_all_dim!r}"
        )
    if not given[0]:
        return 0.1 * math.log(factor) + 1.0
    mscale = _check_positive("mscale", mscale)
    mscale_all_dim = _check_positive("mscale_all_dim", mscale_all_dim)
    return (0.1 * mscale * math.log(factor) + 1.0) / (0.1 * mscale_all_dim * math.log(factor) + 1.0)


def longrope_attention_factor(factor: float, original_max_position: int) -> float:
    """LongRoPE's scale ``sqrt(1 + ln(s) / ln(L))`` for the cos and sin tables.

    Parameters
    ----------
    factor : float
        The context extension ``s >= 1`` (``s = 1`` gives 1.0, as in HF); in a Phi-3 config, where it is not
        given, HF takes ``max_position_embeddings / original_max_position_embeddings``.
    original_max_position : int
        The trained context ``L``, >= 2.

    Returns
    -------
    float
        The factor by which HF multiplies the cos and sin tables of
        ``rope_type="longrope"`` (so the logits by its square), for short and
        long sequences alike. A config's own ``attention_factor``, when it has
        one, replaces this value.

    Examples
    --------
    >>> round(longrope_attention_factor(131072 / 4096, 4096), 4)
    1.1902
    """
    factor = _check_factor(factor)
    length = check_int("original_max_position", original_max_position, minimum=2)
    return math.sqrt(1 + math.log(factor) / math.log(length))
