"""The rotation that shifts a sinusoidal encoding by ``k`` positions."""

from __future__ import annotations

import numpy as np

from posenc._checks import check_real
from posenc.encoding import frequencies

__all__ = ["rotation_matrix"]


def rotation_matrix(k: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """Block-diagonal matrix ``T(Δ)`` with ``PE[pos + Δ] = T(Δ) @ PE[pos]``, for the offset ``Δ = k``.

    Parameters
    ----------
    k : float
        The offset Δ, in positions (the book's letter; ``k`` names a key there); may be
        negative or fractional, must be finite.
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, default 10000.0
        Finite number > 1, see :func:`posenc.frequencies`.

    Returns
    -------
    numpy.ndarray
        Float64 array of shape ``(d_model, d_model)``. Block ``i`` (rows and
        columns ``2i, 2i + 1``) is ``[[cos Δω_i, sin Δω_i], [-sin Δω_i, cos Δω_i]]``;
        every other entry is zero. It does not depend on ``pos``.

    Examples
    --------
    >>> rotation_matrix(0, 4)
    array([[ 1.,  0.,  0.,  0.],
           [-0.,  1.,  0.,  0.],
           [ 0.,  0.,  1.,  0.],
           [ 0.,  0., -0.,  1.]])
    """
    k = check_real("k", k)
    angles = k * frequencies(d_model, base)
    cos, sin = np.cos(angles), np.sin(angles)
    blocks = np.stack([np.stack([cos, sin], -1), np.stack([-sin, cos], -1)], -2)

    matrix = np.zeros((d_model, d_model))
    for i, block in enumerate(blocks):
        matrix[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = block
    return matrix
