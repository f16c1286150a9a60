"""Rotary position embedding (RoPE) of Su et al. (2021), in NumPy.

Pair ``i`` of a query or key vector at position ``p`` is turned by the angle
``p * theta_i``. The score of a rotated query at ``m`` and a rotated key at
``n`` then depends on the positions only through ``n - m``: the rotation
``T(k)`` of the last chapter, applied to ``q`` and ``k`` themselves.
"""

from __future__ import annotations

import importlib
import numbers
import sys
from typing import TYPE_CHECKING, Literal, overload

import numpy as np

from posenc._checks import POSITION_LIMIT, check_base, check_int, check_offset, check_real
from posenc.encoding import _angle_addition, _check_frequency_array, cos_sin_table
from posenc.encoding import frequencies as _base_frequencies

if TYPE_CHECKING:  # the types of the annotations, for checkers only (.importlinter ignores this block)
    import torch
    from numpy.typing import ArrayLike


#: The two ways of pairing a head's features, for type checkers (``layout=``); :data:`LAYOUTS` holds them.
Layout = Literal["interleaved", "half"]

__all__ = [
    "LAYOUTS",
    "apply_rope",
    "check_positions_shape",
    "rope_decay_bound",
    "rope_frequencies",
]

LAYOUTS = ("interleaved", "half")
"""The pairings of a vector's components, the values of every ``layout`` argument: ``"interleaved"``
pairs (0, 1), (2, 3), ...; ``"half"`` pairs component ``i`` with ``i + dim/2``, as Llama checkpoints do."""


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


def check_rotary_dim(rotary_dim, dim: int) -> int:
    """Return ``rotary_dim`` (``dim`` if None) if it is an even integer with ``2 <= rotary_dim <= dim``."""
    if rotary_dim is None:
        return dim
    rotary_dim = check_dim("rotary_dim", rotary_dim)
    if rotary_dim > dim:
        raise ValueError(f"rotary_dim must be <= dim = {dim} (the features of one head), got {rotary_dim}")
    return rotary_dim


def check_positions_shape(shape: tuple, x_shape: tuple, seq_dim: int = -2) -> None:
    """Check that positions of ``shape`` fit ``x`` of ``x_shape``: ``(seq_len,)`` or ``(batch, seq_len)``.

    Two-dimensional positions follow Hugging Face's ``position_ids``: one row per sequence of the batch
    (or one row, ``(1, seq_len)``, for every sequence), for ``x`` whose first axis is the batch.

    Parameters
    ----------
    shape : tuple of int
        The shape of the positions.
    x_shape : tuple of int
        The shape of the queries or keys, ``(..., seq_len, dim)`` with the sequence on axis ``seq_dim``.
    seq_dim : int, default -2
        The axis of ``x`` that holds the sequence: -2 for ``(batch, heads, seq_len, dim)``, 1 (or -3)
        for ``(batch, seq_len, heads, dim)``.

    Raises
    ------
    ValueError
        If the positions do not fit, with both shapes in the message.

    Examples
    --------
    >>> from posenc.rope import check_positions_shape
    >>> check_positions_shape((5,), (4, 5, 8))  # one position per row: fits, returns None
    >>> check_positions_shape((2, 5), (2, 4, 5, 8))  # one row of positions per sequence of the batch
    >>> check_positions_shape((2, 5), (2, 5, 4, 8), seq_dim=1)  # (batch, seq_len, heads, dim)
    >>> check_positions_shape((4,), (2, 4, 5, 8))
    Traceback (most recent call last):
        ...
    ValueError: positions must have shape (seq_len,) = (5,); ... got positions of shape (4,) ...
    """
    seq_dim = check_seq_dim(seq_dim, len(x_shape))
    seq_len = x_shape[seq_dim]
    if len(shape) == 1 and shape[0] == seq_len:
        return
    if len(shape) == 2 and seq_dim > 0 and shape[0] in (1, x_shape[0]) and shape[1] == seq_len:
        return
    # The two-dimensional form exists only where x has a batch axis before its sequence axis.
    batched = (
        f"; or (batch, seq_len) = ({x_shape[0]}, {seq_len}) or (1, {seq_len}), one row per sequence of the "
        "batch (x's first axis)"
        if seq_dim > 0
        else ""
    )
    raise ValueError(
        f"positions must have shape (seq_len,) = ({seq_len},){batched}; got positions of shape "
        f"{tuple(shape)} for x of shape {tuple(x_shape)} with the sequence on axis {seq_dim}"
    )


def check_seq_dim(seq_dim, ndim: int) -> int:
    """Return ``seq_dim`` as a non-negative axis of an ``ndim``-dimensional ``x``, before its last axis."""
    if isinstance(seq_dim, bool) or not isinstance(seq_dim, numbers.Integral):
        raise TypeError(f"seq_dim must be an integer (an axis of x), got {seq_dim!r}")
    seq_dim = int(seq_dim)
    if not (-ndim <= seq_dim <= -2 or 0 <= seq_dim <= ndim - 2):
        raise ValueError(
            f"seq_dim must name an axis of x before its last (the features), in -{ndim} ... -2 or "
            f"0 ... {ndim - 2} for x with {ndim} axes; got {seq_dim}"
        )
    return seq_dim % ndim


def rows_shape(positions_ndim: int, x_ndim: int, seq_dim: int, seq_len: int, pairs: int, batch: int) -> tuple:
    """The shape that makes the per-row ``(seq_len, pairs)`` or ``(batch, seq_len, pairs)`` tables broadcast
    against ``x`` with its sequence on axis ``seq_dim`` (non-negative): ones on every other axis."""
    shape = [1] * x_ndim
    shape[seq_dim], shape[-1] = seq_len, pairs
    if positions_ndim == 2:
        shape[0] = batch
    return tuple(shape)


def check_position_array(positions, x_shape: tuple, seq_dim: int = -2) -> np.ndarray:
    """Return ``positions`` as an int64 array of integers in ``0 ... 2**53 - 1`` that fits ``x``."""
    try:
        array = np.asarray(positions)
    except ValueError as error:  # NumPy's "inhomogeneous shape" names no argument
        raise ValueError(
            "positions must be a rectangular array of integers, (seq_len,) or (batch, seq_len): one row "
            f"of the same length per sequence, got rows of different lengths ({error})"
        ) from None
    if array.size == 0 and array.dtype == np.float64:
        # np.asarray([]) is float64: an empty list (an empty sequence) holds no position of any type.
        array = array.astype(np.int64)
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"positions must be an array of integers, got dtype {array.dtype}")
    check_positions_shape(array.shape, x_shape, seq_dim)
    if array.size and array.min() < 0:
        raise ValueError(f"positions must be >= 0, got minimum {array.min()}")
    if array.size and array.max() >= POSITION_LIMIT:
        raise ValueError(
            "positions must be < 2**53 (float64 angles hold every integer position below 2**53 exactly; "
            f"above it two positions get one rotation), got maximum {array.max()}"
        )
    return array.astype(np.int64, copy=False)


def _rotation_at(positions: np.ndarray, theta: np.ndarray, complex_dtype, scale: float = 1.0) -> np.ndarray:
    """``exp(1j * p * theta)`` for every position ``p``, shape ``positions.shape + theta.shape``.

    Each distinct position is evaluated once, in float64 (the angle ``p * theta_i`` rounded once, then
    ``exp``), and rounded once into ``complex_dtype``: as accurate as the angle addition of
    :func:`posenc.cos_sin_table`, and a padded or packed batch repeats few positions.
    """
    unique, inverse = np.unique(positions, return_inverse=True)
    table = np.exp(1j * np.multiply.outer(unique.astype(np.float64), theta))
    table = (table * scale if scale != 1 else table).astype(complex_dtype)
    return table[inverse.reshape(positions.shape)]


def rope_frequencies(dim: int, base: float = 10000.0, frequencies: ArrayLike | None = None) -> np.ndarray:
    """The ``dim // 2`` rotation frequencies of RoPE, checked.

    Parameters
    ----------
    dim : int
        Head dimension; a positive even integer.
    base : float, default 10000.0
        Finite number > 1; ``theta_i = base ** (-2 i / dim)``.
    frequencies : array_like, optional
        Frequencies to use instead, e.g. from :func:`posenc.scaled_frequencies`;
        one-dimensional, of length ``dim // 2``, finite and >= 0 (a pair at
        frequency 0 is not rotated: transformers' ``"proportional"`` RoPE
        leaves a head's last pairs so). When given, ``base`` is not used.

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
    if not (theta >= 0).all():
        raise ValueError(f"frequencies must be finite and >= 0, got minimum {float(theta.min())}")
    return theta.copy()


# A torch tensor comes back a torch tensor (posenc.nn.apply_rope), anything else a NumPy array.
@overload
def apply_rope(
    x: torch.Tensor,
    *,
    offset: int = 0,
    positions: ArrayLike | None = None,
    base: float = 10000.0,
    layout: Layout = "interleaved",
    frequencies: ArrayLike | None = None,
    rotary_dim: int | None = None,
    seq_dim: int = -2,
    attention_factor: float = 1.0,
) -> torch.Tensor: ...


@overload
def apply_rope(
    x: ArrayLike,
    *,
    offset: int = 0,
    positions: ArrayLike | None = None,
    base: float = 10000.0,
    layout: Layout = "interleaved",
    frequencies: ArrayLike | None = None,
    rotary_dim: int | None = None,
    seq_dim: int = -2,
    attention_factor: float = 1.0,
) -> np.ndarray: ...


def apply_rope(
    x: ArrayLike | torch.Tensor,
    *,
    offset: int = 0,
    positions: ArrayLike | None = None,
    base: float = 10000.0,
    layout: Layout = "interleaved",
    frequencies: ArrayLike | None = None,
    rotary_dim: int | None = None,
    seq_dim: int = -2,
    attention_factor: float = 1.0,
) -> np.ndarray | torch.Tensor:
    """Rotate every pair of dimensions of ``x`` by its position's angle.

    Parameters
    ----------
    x : array_like
        Floating-point array of shape ``(..., seq_len, dim)`` with ``dim`` even,
        e.g. ``(batch, heads, seq_len, head_dim)``. Row ``t`` along axis -2 (or
        ``seq_dim``) is at position ``offset + t``, or ``positions[t]``. A
        ``(batch, seq_len, heads, dim)`` array needs ``seq_dim=1``: with the
        default it is rotated along the heads, and where ``heads == seq_len``
        no shape check can tell.
    offset : int, default 0
        Position of the first row, an integer >= 0, for one sequence whose
        rows are consecutive positions (one unpadded sequence and a cache
        that never evicts: the new token's position is the cache length).
        ``offset + seq_len <= 2**53``, see Notes.
    positions : array_like of int, optional
        The position of every row instead, integers in ``0 ... 2**53 - 1``: shape
        ``(seq_len,)``, the same for every sequence, or ``(batch, seq_len)``
        for ``x`` of shape ``(batch, heads, seq_len, dim)``, one row per
        sequence, as Hugging Face's ``position_ids``. A token's position is
        its index in its own sequence: a left-padded batch starts each row
        where its padding ends, packed documents restart at 0. ``offset``
        must then be 0.
    base : float, default 10000.0
        Finite number > 1; ``theta_i = base ** (-2 i / dim)``.
    layout : {"interleaved", "half"}, default "interleaved"
        Which dimensions form pair ``i``: ``(2i, 2i + 1)`` as in RoFormer, or
        ``(i, i + dim/2)`` as in GPT-NeoX and Llama (``rotate_half``).
    frequencies : array_like, optional
        ``dim // 2`` finite frequencies > 0 to use instead of ``base``, e.g. from
        :func:`posenc.scaled_frequencies`; ``rotary_dim // 2`` of them with
        ``rotary_dim``.
    rotary_dim : int, optional
        Rotate only the first ``rotary_dim`` features of each head (even,
        ``<= dim``) and pass the others through unchanged, as GPT-NeoX and
        GPT-J do and Hugging Face's ``partial_rotary_factor``
        (``rotary_dim = int(dim * partial_rotary_factor)``). The frequencies
        are then those of a head of size ``rotary_dim``,
        ``base ** (-2 i / rotary_dim)``, and the layout applies within the
        rotated part. Default: all ``dim`` features.
    seq_dim : int, default -2
        The axis of ``x`` that holds the sequence: -2 for ``(batch, heads,
        seq_len, dim)``, 1 for ``(batch, seq_len, heads, dim)`` (flash-attn,
        torchtune; Hugging Face's ``unsqueeze_dim=2``). Two-dimensional
        ``positions`` then need the batch on axis 0.
    attention_factor : float, default 1.0
        Multiplies the result (Hugging Face multiplies the cos and sin tables
        by it): YaRN's and LongRoPE's scale, see :func:`posenc.rope_parameters`.

    Returns
    -------
    numpy.ndarray or torch.Tensor
        New array of ``x``'s shape and dtype; for a ``torch.Tensor`` ``x``, a
        tensor of its dtype, on its device, that gradients flow through
        (:func:`posenc.nn.apply_rope`: torch is imported only then). For pair ``(a, b)`` at position
        ``p``: ``a' = a cos(p theta_i) - b sin(p theta_i)`` and
        ``b' = a sin(p theta_i) + b cos(p theta_i)``.

    Notes
    -----
    The cos/sin table comes from the angle addition of
    :func:`posenc.sinusoidal_encoding`, so in float32 the result stays at
    float32 rounding up to position 10^6, where float32 angles
    ``p * theta_i`` are already off by about 0.03 radians. The work is done in
    at least float32 and rounded once into ``x``'s dtype. With ``positions``
    each distinct position's ``exp(1j p theta_i)`` is evaluated in float64
    and rounded once: the same accuracy, and equal to the ``offset`` result
    to float64 rounding (not bit for bit).

    Positions must stay below 2**53, where float64 stops telling consecutive
    integers apart (2**53 + 1 would be rotated as 2**53): a larger offset or
    position is a ValueError, not a silent collision. Below it the float64
    angle's own rounding grows with ``p * theta_i``: for ``theta_i = 0.01``,
    2e-13 rad at position 10^6 and 2e-4 rad at 10^15.

    Examples
    --------
    >>> apply_rope([[1.0, 0.0], [1.0, 0.0]])
    array([[1.        , 0.        ],
           [0.54030231, 0.84147098]])

    Two sequences, the first left-padded by one token: its two tokens are at
    positions 0 and 1 of their own sequence (the padded row's position does
    not matter).

    >>> x = np.ones((2, 1, 3, 2))
    >>> apply_rope(x, positions=[[0, 0, 1], [0, 1, 2]])[:, 0].round(3)
    array([[[ 1.   ,  1.   ],
            [ 1.   ,  1.   ],
            [-0.301,  1.382]],
    <BLANKLINE>
           [[ 1.   ,  1.   ],
            [-0.301,  1.382],
            [-1.325,  0.493]]])

    Only the first two of four features rotated:

    >>> apply_rope([[0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 5.0, 6.0]], rotary_dim=2)
    array([[0.        , 0.        , 0.        , 0.        ],
           [0.54030231, 0.84147098, 5.        , 6.        ]])
    """
    torch = sys.modules.get("torch")  # a torch tensor means torch is loaded: no import here
    if torch is not None and isinstance(x, torch.Tensor):
        # The torch layer, above this module, computes it (.importlinter: the core never imports it).
        functional = importlib.import_module("posenc.nn")
        return functional.apply_rope(
            x,
            offset=offset,
            positions=positions,
            base=base,
            layout=layout,
            frequencies=frequencies,
            rotary_dim=rotary_dim,
            seq_dim=seq_dim,
            attention_factor=attention_factor,
        )
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        raise TypeError(f"x must be a floating-point array, got dtype {x.dtype}")
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., seq_len, dim), got shape {x.shape}")
    dim = x.shape[-1]
    check_dim("x.shape[-1] (dim)", dim)
    seq_dim = check_seq_dim(seq_dim, x.ndim)
    seq_len = x.shape[seq_dim]
    offset = check_offset(offset, seq_len)
    layout = check_layout(layout)
    rotary_dim = check_rotary_dim(rotary_dim, dim)
    theta = rope_frequencies(rotary_dim, base, frequencies)
    attention_factor = check_attention_factor(attention_factor)
    if positions is not None:
        if offset != 0:
            raise ValueError(f"give offset or positions, not both: got offset={offset} and positions")
        positions = check_position_array(positions, x.shape, seq_dim)

    # float16 has no complex partner: work in complex64 and round at the end.
    complex_dtype = np.result_type(x.dtype, np.complex64)
    rotation = rotation_table(theta, seq_len, offset, positions, complex_dtype, attention_factor)
    rotation = rotation.reshape(
        rows_shape(rotation.ndim - 1, x.ndim, seq_dim, seq_len, theta.size, len(rotation))
    )
    if rotary_dim < dim:
        rotated = _rotate(x[..., :rotary_dim], rotation, layout, complex_dtype)
        return np.concatenate((rotated, x[..., rotary_dim:].astype(x.dtype, copy=False)), axis=-1)
    return _rotate(x, rotation, layout, complex_dtype)


def rotation_table(theta, seq_len: int, offset: int, positions, complex_dtype, attention_factor: float = 1.0):
    """``attention_factor * exp(1j p theta_i)`` for the rows' positions: ``(seq_len, pairs)`` for
    ``offset + t``, else ``positions.shape + (pairs,)``, computed in float64, rounded once."""
    if positions is None:
        if attention_factor == 1:
            rotation = np.empty((seq_len, theta.size), complex_dtype)
            _angle_addition(theta, offset=offset, sinusoid=False, out=rotation)
            return rotation
        rotation = np.empty((seq_len, theta.size), np.complex128)
        _angle_addition(theta, offset=offset, sinusoid=False, out=rotation)
        return (rotation * attention_factor).astype(complex_dtype)
    return _rotation_at(positions, theta, complex_dtype, attention_factor)


def check_attention_factor(value) -> float:
    """Return ``value`` as a float if it is a finite number > 0."""
    value = check_real("attention_factor", value)
    if value <= 0:
        raise ValueError(f"attention_factor must be > 0 (it multiplies the cos and sin tables), got {value}")
    return value


def _rotate(x: np.ndarray, rotation: np.ndarray, layout: str, complex_dtype) -> np.ndarray:
    """Turn the pairs of ``x`` (all of its last axis) by the unit complex numbers ``rotation``."""
    work_dtype = np.finfo(complex_dtype).dtype
    dim = x.shape[-1]
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


def rope_decay_bound(
    max_distance: int, dim: int, *, base: float = 10000.0, frequencies: ArrayLike | None = None
) -> np.ndarray:
    """RoFormer's long-term decay: the relative bound on the RoPE score at each distance.

    Parameters
    ----------
    max_distance : int
        Largest relative distance ``r = m - n``, >= 0.
    dim : int
        Head dimension; a positive even integer.
    base : float, default 10000.0
        Finite number > 1; ``theta_i = base ** (-2 i / dim)``.
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
