"""The methods that :mod:`posenc.bench` times ``posenc`` against: the formulas as usually published.

The sinusoidal table as it is usually written, in float64 NumPy (:func:`numpy_formula`) and in float32
PyTorch (:func:`torch_formula`), next to posenc's own (:func:`posenc_float32`) and the memory floor of
filling a table (:func:`fill_floor`); RoPE and its cos/sin tables as GPT-NeoX and Llama publish them
(:func:`published_rope`, :func:`published_tables`); and the float64 references that every error is
measured against (:func:`reference_rope`, :func:`reference_tables`). The PyTorch ones import torch when
they are called, so importing this module does not.
"""

from __future__ import annotations

import math

import numpy as np

from posenc.encoding import frequencies, sinusoidal_encoding


def numpy_formula(num_positions, d_model):
    """The formula as usually written: every angle in float64, then sin and cos.

    Parameters
    ----------
    num_positions : int
        Rows of the table.
    d_model : int
        Columns of the table, even.

    Returns
    -------
    numpy.ndarray
        Float64, shape ``(num_positions, d_model)``.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc import sinusoidal_encoding
    >>> from posenc.bench.baselines import numpy_formula
    >>> table = numpy_formula(128, 16)
    >>> table.dtype, table.shape
    (dtype('float64'), (128, 16))
    >>> bool(np.abs(table - sinusoidal_encoding(128, 16)).max() < 1e-12)
    True
    """
    table = np.zeros((num_positions, d_model))
    position = np.arange(num_positions)[:, np.newaxis]
    div_term = np.exp(np.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
    table[:, 0::2] = np.sin(position * div_term)
    table[:, 1::2] = np.cos(position * div_term)
    return table


def torch_formula(num_positions, d_model):
    """The same formula in float32 PyTorch, as most tutorials write it.

    Parameters
    ----------
    num_positions : int
        Rows of the table.
    d_model : int
        Columns of the table, even.

    Returns
    -------
    numpy.ndarray
        Float32, shape ``(num_positions, d_model)``.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc.bench.baselines import numpy_formula, torch_formula
    >>> table = torch_formula(128, 16)
    >>> table.dtype
    dtype('float32')
    >>> float(np.abs(table - numpy_formula(128, 16)).max()) < 1e-5  # float32 angles
    True
    """
    import torch

    table = torch.zeros(num_positions, d_model)
    position = torch.arange(num_positions, dtype=torch.float).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float) * -(math.log(10000.0) / d_model))
    table[:, 0::2] = torch.sin(position * div_term)
    table[:, 1::2] = torch.cos(position * div_term)
    return table.numpy()


def fill_floor(num_positions, d_model):
    """Allocate and fill a float32 array of the same size: the memory floor.

    Parameters
    ----------
    num_positions : int
        Rows of the table.
    d_model : int
        Columns of the table, even.

    Returns
    -------
    numpy.ndarray
        Float32, every entry 0.5, shape ``(num_positions, d_model)``.

    Examples
    --------
    >>> from posenc.bench.baselines import fill_floor
    >>> fill_floor(2, 3)
    array([[0.5, 0.5, 0.5],
           [0.5, 0.5, 0.5]], dtype=float32)
    """
    table = np.empty((num_positions, d_model), np.float32)
    table.fill(0.5)
    return table


def posenc_float32(num_positions, d_model):
    """:func:`posenc.sinusoidal_encoding` in float32: the method the benchmark times against the others.

    Parameters
    ----------
    num_positions : int
        Rows of the table.
    d_model : int
        Columns of the table, even.

    Returns
    -------
    numpy.ndarray
        Float32, shape ``(num_positions, d_model)``.

    Examples
    --------
    >>> from posenc.bench.baselines import posenc_float32
    >>> table = posenc_float32(3, 4)
    >>> table.dtype, table.shape
    (dtype('float32'), (3, 4))
    >>> table[2].round(3)  # sin 2, cos 2, sin 0.02, cos 0.02
    array([ 0.909, -0.416,  0.02 ,  1.   ], dtype=float32)
    """
    return sinusoidal_encoding(num_positions, d_model, dtype=np.float32)


def rotate_half(x):
    """Llama's ``rotate_half``: ``(x1, x2) -> (-x2, x1)`` on the two halves.

    Parameters
    ----------
    x : torch.Tensor
        Shape ``(..., dim)``, ``dim`` even.

    Returns
    -------
    torch.Tensor
        The same shape: ``cat(-x2, x1)``.

    Examples
    --------
    >>> import torch
    >>> from posenc.bench.baselines import rotate_half
    >>> rotate_half(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    tensor([-3., -4.,  1.,  2.])
    """
    import torch

    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def published_rope(x, offset=0, base=10000.0):
    """RoPE as widely published (GPT-NeoX, Llama): float32 angles, cos/sin, ``rotate_half``.

    Parameters
    ----------
    x : torch.Tensor
        Queries or keys of shape ``(..., seq_len, dim)``, float32, in the ``"half"`` layout.
    offset : int, default 0
        Position of the first row.
    base : float, default 10000.0
        RoPE base.

    Returns
    -------
    torch.Tensor
        ``x`` rotated, the same shape.

    Examples
    --------
    >>> import torch
    >>> from posenc.bench.baselines import published_rope, reference_rope
    >>> x = torch.randn(2, 8, 4, generator=torch.Generator().manual_seed(0))
    >>> error = abs(published_rope(x, offset=5).numpy() - reference_rope(x.numpy(), offset=5)).max()
    >>> bool(error < 1e-6)  # float32 angles are exact enough at small positions
    True
    """
    import torch

    dim = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    position = torch.arange(offset, offset + x.shape[-2]).float()
    freqs = torch.outer(position, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return x * emb.cos() + rotate_half(x) * emb.sin()


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    """transformers' ``apply_rotary_pos_emb`` (Llama's, 5.23), transcribed: q and k by given cos and sin.

    posenc does not import transformers; ``tests/posenc/bench/test_baselines.py`` checks that this
    transcription returns what transformers' function returns.

    Parameters
    ----------
    q, k : torch.Tensor
        Queries and keys, ``(..., seq_len, dim)``, in the ``"half"`` layout.
    cos, sin : torch.Tensor
        The tables of transformers' rotary module, ``(batch, seq_len, dim)`` (the halves repeated).
    unsqueeze_dim : int, default 1
        The axis inserted into cos and sin to broadcast over the heads.

    Returns
    -------
    tuple of torch.Tensor
        ``q`` and ``k`` rotated.

    Examples
    --------
    >>> import torch
    >>> from posenc.bench.baselines import apply_rotary_pos_emb
    >>> q = torch.tensor([[[1.0, 0.0]]])  # (1, seq 1, dim 2)
    >>> cos, sin = torch.tensor([[0.0, 0.0]]), torch.tensor([[1.0, 1.0]])  # a quarter turn
    >>> apply_rotary_pos_emb(q, q, cos, sin, unsqueeze_dim=0)[0]
    tensor([[[0., 1.]]])
    """
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


def published_tables(num_positions, dim, dtype=None, base=10000.0):
    """The published cos/sin tables of shape ``(num_positions, dim)``, in float32 or ``dtype``.

    With ``dtype=torch.bfloat16`` every step runs in bfloat16, as when the
    positions and inverse frequencies are cast to the model's type.

    Parameters
    ----------
    num_positions : int
        Rows of the tables.
    dim : int
        Head dimension, even.
    dtype : torch.dtype, optional
        The type every step runs in; default ``torch.float32``.
    base : float, default 10000.0
        RoPE base.

    Returns
    -------
    cos, sin : torch.Tensor
        Shape ``(num_positions, dim)``: each frequency's column twice, as published.

    Examples
    --------
    >>> import torch
    >>> from posenc.bench.baselines import published_tables
    >>> cos, sin = published_tables(6, 4)
    >>> cos.shape, cos.dtype
    (torch.Size([6, 4]), torch.float32)
    >>> torch.equal(cos[:, :2], cos[:, 2:])
    True
    >>> published_tables(6, 4, torch.bfloat16)[0].dtype
    torch.bfloat16
    """
    import torch

    dtype = torch.float32 if dtype is None else dtype
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    position = torch.arange(num_positions).to(dtype)
    freqs = torch.outer(position, inv_freq.to(dtype))
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def reference_rope(x, offset=0, base=10000.0):
    """Half-layout RoPE in float64 NumPy, every angle in float64.

    Parameters
    ----------
    x : array_like
        Queries or keys of shape ``(..., seq_len, dim)``, in the ``"half"`` layout.
    offset : int, default 0
        Position of the first row.
    base : float, default 10000.0
        RoPE base.

    Returns
    -------
    numpy.ndarray
        ``x`` rotated, float64, the same shape.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc.bench.baselines import reference_rope
    >>> reference_rope(np.array([[1.0, 1.0, 0.0, 0.0]]), offset=1).round(3)  # pairs (0, 2) and (1, 3)
    array([[0.54 , 1.   , 0.841, 0.01 ]])
    """
    x = np.asarray(x, dtype=np.float64)
    half = x.shape[-1] // 2
    angle = (offset + np.arange(x.shape[-2]))[:, np.newaxis] * frequencies(x.shape[-1], base)
    cos, sin = np.cos(angle), np.sin(angle)
    first, second = x[..., :half], x[..., half:]
    return np.concatenate((first * cos - second * sin, first * sin + second * cos), axis=-1)


def reference_tables(num_positions, dim, base=10000.0):
    """cos and sin of every angle in float64, shape ``(num_positions, dim // 2)``.

    Parameters
    ----------
    num_positions : int
        Rows of the tables.
    dim : int
        Head dimension, even.
    base : float, default 10000.0
        RoPE base.

    Returns
    -------
    cos, sin : numpy.ndarray
        Float64, shape ``(num_positions, dim // 2)``.

    Examples
    --------
    >>> from posenc.bench.baselines import reference_tables
    >>> cos, sin = reference_tables(3, 4)
    >>> sin.round(4)
    array([[0.    , 0.    ],
           [0.8415, 0.01  ],
           [0.9093, 0.02  ]])
    """
    angle = np.arange(num_positions)[:, np.newaxis] * frequencies(dim, base)
    return np.cos(angle), np.sin(angle)
