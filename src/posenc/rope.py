"""Rotary position embedding (RoPE) of Su et al. (2021), in NumPy.

Pair ``i`` of a query or key vector at position ``p`` is turned by the angle
``p * theta_i``. The score of a rotated query at ``m`` and a rotated key at
``n`` then depends on the positions only through ``n - m``: the rotation
``T(k)`` of the last chapter, applied to ``q`` and ``k`` themselves.
"""

from __future__ import annotations

import numpy as np

from posenc._checks import check_base, check_int
from posenc.encoding import _angle_addition, _check_frequency_array, cos_sin_table
from posenc.encoding import frequencies as _base_frequencies

__all__ = ["LAYOUTS", "apply_rope", "rope_decay_bound", "rope_frequencies"]

LAYOUTS = ("interleaved", "half")


def check_dim(name: str, value) -> int:
    """Return ``value`` if it is a positive even integer (rotations act on pairs)."""
    value = check_int(name, value, minimum=1)
    if value % 2:
        raise ValueError(f"{name} must be even (dimensions are rotated in pairs), got {value}")
    return value


def check_layout(layout) -> str:
    """Return ``layout`` if it is one of :data:`LAYOUTS`."""
    if not isinstance(layout, str) or layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    return layout


def rope_frequencies(dim: int, base: float = 10000.0, frequencies=None) -> np.ndarray:
    """The ``dim // 2`` rotation frequencies of RoPE, checked.

    Parameters
    ----------
    dim : int
        Head dimension; a positive even integer.
    base : float, default 10000.0
        Finite number > 0; ``theta_i = base ** (-2 i / dim)``.
    frequencies : array_like, optional
        Frequencies to use instead, e.g. from :func:`posenc.scaled_frequencies`;
        one-dimensional, of length ``dim // 2``, finite and > 0. When given,
        ``base`` is not used.

    Returns
    -------
    numpy.ndarray
        Float64 array of length ``dim // 2``.

    Examples
    --------
    >>> rope_frequencies(4)
    array([1.  , 0.01])
    """
    dim = check_dim("dim", dim)
    base = check_base(base)
    if frequencies is None:
        return _base_frequencies(dim, base)
    theta = _check_frequency_array(frequencies)
    if theta.size != dim // 2:
        raise ValueError(f"frequencies must have length dim // 2 = {dim // 2}, got {theta.size}")
    if not (theta > 0).all():
        raise ValueError(f"frequencies must be finite and > 0, got minimum {theta.min()!r}")
    return theta.copy()


def apply_rope(
    x,
    *,
    offset: int = 0,
    base: float = 10000.0,
    layout: str = "interleaved",
    frequencies=None,
) -> np.ndarray:
    """Rotate every pair of dimensions of ``x`` by its position's angle.

    Parameters
    ----------
    x : array_like
        Floating-point array of shape ``(..., seq_len, dim)`` with ``dim`` even,
        e.g. ``(batch, heads, seq_len, head_dim)``. Row ``t`` along axis -2 is
        at position ``offset + t``.
    offset : int, default 0
        Position of the first row, an integer >= 0: with a KV cache, the new
        token's position is the number of cached tokens.
    base : float, default 10000.0
        Finite number > 0; ``theta_i = base ** (-2 i / dim)``.
    layout : {"interleaved", "half"}, default "interleaved"
        Which dimensions form pair ``i``: ``(2i, 2i + 1)`` as in RoFormer, or
        ``(i, i + dim/2)`` as in GPT-NeoX and Llama (``rotate_half``).
    frequencies : array_like, optional
        ``dim // 2`` finite frequencies > 0 to use instead of ``base``, e.g. from
        :func:`posenc.scaled_frequencies`.

    Returns
    -------
    numpy.ndarray
        New array of ``x``'s shape and dtype. For pair ``(a, b)`` at position
        ``p``: ``a' = a cos(p theta_i) - b sin(p theta_i)`` and
        ``b' = a sin(p theta_i) + b cos(p theta_i)``.

    Notes
    -----
    The cos/sin table comes from the angle addition of
    :func:`posenc.sinusoidal_encoding`, so in float32 the result stays at
    float32 rounding up to position 10^6, where float32 angles
    ``p * theta_i`` are already off by about 0.03 radians. The work is done in
    at least float32 and rounded once into ``x``'s dtype.

    Examples
    --------
    >>> apply_rope([[1.0, 0.0], [1.0, 0.0]])
    array([[1.        , 0.        ],
           [0.54030231, 0.84147098]])
    """
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        raise TypeError(f"x must be a floating-point array, got dtype {x.dtype}")
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., seq_len, dim), got shape {x.shape}")
    seq_len, dim = x.shape[-2:]
    check_dim("x.shape[-1] (dim)", dim)
    offset = check_int("offset", offset)
    layout = check_layout(layout)
    theta = rope_frequencies(dim, base, frequencies)

    # float16 has no complex partner: work in complex64 and round at the end.
    complex_dtype = np.result_type(x.dtype, np.complex64)
    work_dtype = np.finfo(complex_dtype).dtype
    rotation = np.empty((seq_len, theta.size), complex_dtype)
    _angle_addition(theta, offset=offset, sinusoid=False, out=rotation)
    if layout == "interleaved":
        # Pair (x_2i, x_2i+1) read as the complex number x_2i + 1j x_2i+1: one
        # complex product by cos + 1j sin is exactly the rotation above.
        pairs = np.ascontiguousarray(x, dtype=work_dtype).view(complex_dtype)
        rotated = (pairs * rotation).view(work_dtype)
    else:
        half = dim // 2
        first, second = x[..., :half].astype(work_dtype), x[..., half:].astype(work_dtype)
        cos, sin = rotation.real, rotation.imag
        rotated = np.concatenate((first * cos - second * sin, first * sin + second * cos), axis=-1)
    return rotated.astype(x.dtype, copy=False)


def rope_decay_bound(max_distance: int, dim: int, *, base: float = 10000.0, frequencies=None) -> np.ndarray:
    """RoFormer's long-term decay: the relative bound on the RoPE score at each distance.

    Parameters
    ----------
    max_distance : int
        Largest relative distance ``r = m - n``, >= 0.
    dim : int
        Head dimension; a positive even integer.
    base : float, default 10000.0
        Finite number > 0; ``theta_i = base ** (-2 i / dim)``.
    frequencies : array_like, optional
        ``dim // 2`` finite frequencies > 0 to use instead of ``base``.

    Returns
    -------
    numpy.ndarray
        Float64 array of length ``max_distance + 1``: for ``r = 0 ... max_distance``,
        ``(1 / (dim/2)) * sum_{j=1}^{dim/2} |S_j|`` with
        ``S_j = sum_{k=0}^{j-1} exp(1j * r * theta_k)``.

    Notes
    -----
    Su et al. (2021, section 3.4.3) write the score of a rotated query at
    ``m`` and key at ``n`` as ``Re sum_i h_i exp(1j (m - n) theta_i)`` over the
    pairs, and sum by parts (Abel): it is at most
    ``max_i |h_{i+1} - h_i| * sum_j |S_j|``. The mean of ``|S_j|`` is returned;
    it starts at ``(dim/2 + 1) / 2`` for ``r = 0`` and, with oscillations,
    decays as the distance grows.

    Examples
    --------
    >>> rope_decay_bound(2, 4)
    array([1.5       , 1.37996871, 1.04868986])
    """
    max_distance = check_int("max_distance", max_distance)
    theta = rope_frequencies(dim, base, frequencies)
    cos, sin = cos_sin_table(max_distance + 1, theta)
    partial_sums = np.cumsum(cos + 1j * sin, axis=1)  # S_1 ... S_{dim/2} for every distance
    return np.abs(partial_sums).mean(axis=1)
