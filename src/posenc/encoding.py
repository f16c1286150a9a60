"""The sinusoidal positional encoding of Vaswani et al. (2017).

Row ``pos`` of the table holds, for every frequency ``omega_i``, the pair
``sin(pos * omega_i), cos(pos * omega_i)`` in columns ``2i`` and ``2i + 1``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from posenc._checks import check_base, check_d_model, check_float_dtype, check_int, check_offset

if TYPE_CHECKING:  # the types of the annotations, for checkers only
    from numpy.typing import ArrayLike, DTypeLike


__all__ = ["cos_sin_table", "frequencies", "sinusoidal_encoding"]


def frequencies(d_model: int, base: float = 10000.0) -> np.ndarray:
    """Angular frequencies of the sinusoidal encoding.

    Parameters
    ----------
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, default 10000.0
        Finite number > 1 that sets the slowest frequency.

    Returns
    -------
    numpy.ndarray
        Float64 array of length ``d_model // 2`` with
        ``omega_i = base ** (-2 i / d_model)`` for ``i = 0 ... d_model/2 - 1``.
        The wavelengths ``2 pi / omega_i`` run from ``2 pi`` (i = 0) towards
        ``base * 2 pi``.

    Examples
    --------
    >>> frequencies(4)
    array([1.  , 0.01])
    """
    d_model = check_d_model(d_model)
    base = check_base(base)
    return base ** (-np.arange(0, d_model, 2, dtype=np.float64) / d_model)


def sinusoidal_encoding(
    num_positions: int,
    d_model: int,
    *,
    base: float = 10000.0,
    dtype: DTypeLike = np.float64,
) -> np.ndarray:
    """Table of sinusoidal positional encodings.

    Parameters
    ----------
    num_positions : int
        Number of positions (rows), ``pos = 0 ... num_positions - 1``; >= 0.
    d_model : int
        Width of each encoding; a positive even integer.
    base : float, default 10000.0
        Finite number > 1, see :func:`frequencies`.
    dtype : numpy floating dtype, default numpy.float64
        Type of the returned table.

    Returns
    -------
    numpy.ndarray
        Array of shape ``(num_positions, d_model)``; column ``2i`` is
        ``sin(pos * omega_i)`` and column ``2i + 1`` is ``cos(pos * omega_i)``.

    Notes
    -----
    Evaluating ``sin`` and ``cos`` of every angle is slow, and evaluating them
    in float32 is inaccurate: the angle ``pos * omega`` itself is rounded to
    about 7 digits, an error of ~4e-3 by position 65,536. Instead, write
    ``pos = q * block + r`` and use the angle-addition identity (the rotation
    proved in the last chapter). With complex numbers the pair
    ``(sin t, cos t)`` is ``1j * exp(-1j * t)``, so

        pair(pos) = [1j * exp(-1j * q * block * omega)] * exp(-1j * r * omega).

    Only about ``2 * sqrt(num_positions)`` rows of exponentials are evaluated,
    in float64; every row of the table is one complex product, rounded once
    into ``dtype``. In float32 the error stays below 1e-7 up to 10^6 positions.

    Examples
    --------
    >>> sinusoidal_encoding(2, 4)
    array([[0.        , 1.        , 0.        , 1.        ],
           [0.84147098, 0.54030231, 0.00999983, 0.99995   ]])
    """
    num_positions = check_int("num_positions", num_positions)
    omega = frequencies(d_model, base)
    dtype = check_float_dtype(dtype)

    # The complex type whose (real, imag) halves have the requested precision;
    # float16 has no complex partner and is rounded from complex64 at the end.
    complex_dtype = np.result_type(dtype, np.complex64)
    pairs = np.empty((num_positions, omega.size), complex_dtype)
    _angle_addition(omega, offset=0, sinusoid=True, out=pairs)
    table = pairs.view(np.finfo(complex_dtype).dtype)
    return table.astype(dtype, copy=False)


def cos_sin_table(
    num_positions: int, frequencies: ArrayLike, *, offset: int = 0, dtype: DTypeLike = np.float64
) -> tuple[np.ndarray, np.ndarray]:
    """Accurate ``cos`` and ``sin`` of ``pos * frequencies`` for consecutive positions.

    Parameters
    ----------
    num_positions : int
        Number of positions (rows), ``pos = offset ... offset + num_positions - 1``; >= 0.
    frequencies : array_like
        One-dimensional array of finite angular frequencies (radians per position).
    offset : int, default 0
        First position; an integer >= 0, with ``offset + num_positions <= 2**53``
        (above, float64 angles no longer tell consecutive positions apart).
    dtype : numpy floating dtype, default numpy.float64
        Type of the returned tables.

    Returns
    -------
    cos, sin : numpy.ndarray
        Two C-contiguous arrays of shape ``(num_positions, len(frequencies))``:
        ``cos[t, i] = cos((offset + t) * frequencies[i])``, and likewise ``sin``.

    Notes
    -----
    The same angle addition as :func:`sinusoidal_encoding`: every angle is split
    as ``(offset + q * block) + r``, the two factors are evaluated in float64 and
    each entry is one complex product rounded once into ``dtype``. In float32 the
    error stays at float32 rounding (below 1e-7) up to 10^6 positions, where a
    float32 angle ``pos * omega`` is already off by about 0.03 radians.

    Examples
    --------
    >>> cos, sin = cos_sin_table(2, [1.0, 0.5], offset=1)
    >>> cos
    array([[ 0.54030231,  0.87758256],
           [-0.41614684,  0.54030231]])
    """
    num_positions = check_int("num_positions", num_positions)
    offset = check_offset(offset, num_positions)
    omega = _check_frequency_array(frequencies)
    dtype = check_float_dtype(dtype)
    cos = np.empty((num_positions, omega.size), dtype)
    sin = np.empty_like(cos)
    _angle_addition(omega, offset=offset, sinusoid=False, out=(cos, sin))
    return cos, sin


def _check_frequency_array(frequencies) -> np.ndarray:
    """Return ``frequencies`` as a one-dimensional float64 array of finite numbers."""
    try:
        omega = np.asarray(frequencies, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"frequencies must be an array of real numbers, got {frequencies!r}") from error
    if omega.ndim != 1:
        raise ValueError(f"frequencies must be one-dimensional, got shape {omega.shape}")
    if not np.isfinite(omega).all():
        raise ValueError("frequencies must be finite")
    return omega


def _angle_addition(omega, *, offset, sinusoid, out):
    """Fill ``out`` with the unit complex numbers of the angles ``pos * omega``.

    Row ``t`` of ``out`` is position ``pos = offset + t``. ``out`` is either one
    complex array of shape ``(num_positions, omega.size)`` or a pair ``(real,
    imag)`` of real arrays of that shape; each entry is rounded once into it.
    With ``sinusoid=False`` the numbers are ``exp(1j * pos * omega) = cos + 1j
    sin``, whose product with a pair ``x_2i + 1j x_2i+1`` is the RoPE rotation;
    with ``sinusoid=True`` they are ``1j * exp(-1j * pos * omega) = sin + 1j
    cos``, whose float view is a row of :func:`sinusoidal_encoding`. See its
    Notes for why this is accurate. Returns ``out``.
    """
    split = isinstance(out, tuple)
    num_positions = (out[0] if split else out).shape[0]
    # Spelled as before the refactor, so sinusoidal_encoding's bits do not move.
    sign, phase = (-1j, 1j) if sinusoid else (1j, 1)
    block = max(1, math.isqrt(num_positions))
    num_blocks = -(-num_positions // block)
    fine = np.exp(sign * np.outer(np.arange(block), omega))
    coarse = phase * np.exp(sign * np.outer(offset + np.arange(num_blocks) * block, omega))

    # One block of rows at a time: the float64 product stays in cache.
    product = np.empty_like(fine) if split else None
    for q in range(num_blocks):
        start = q * block
        stop = min(start + block, num_positions)
        if split:
            chunk = np.multiply(coarse[q], fine[: stop - start], out=product[: stop - start])
            np.copyto(out[0][start:stop], chunk.real, casting="same_kind")
            np.copyto(out[1][start:stop], chunk.imag, casting="same_kind")
        else:
            np.multiply(coarse[q], fine[: stop - start], out=out[start:stop], casting="same_kind")
    return out
