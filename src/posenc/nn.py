"""PyTorch modules: token embeddings, the sinusoidal positional encoding and RoPE.

This is the only module of :mod:`posenc` that imports torch.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from posenc._checks import check_d_model, check_int
from posenc.encoding import cos_sin_table, sinusoidal_encoding
from posenc.rope import check_dim, check_layout, rope_frequencies

__all__ = ["InputEmbeddings", "PositionalEncoding", "RotaryEmbedding"]


class InputEmbeddings(nn.Module):
    """Token embeddings scaled by ``sqrt(d_model)``.

    Parameters
    ----------
    vocab_size : int
        Number of token ids, >= 1.
    d_model : int
        Width of each embedding; a positive even integer.

    Notes
    -----
    ``nn.Embedding`` starts from N(0, 1) entries, so an embedding has norm
    about ``sqrt(d_model)`` before scaling; scaling follows Vaswani et al.
    (2017), who share these weights with the output layer.
    """

    def __init__(self, vocab_size: int, d_model: int) -> None:
        super().__init__()
        self.vocab_size = check_int("vocab_size", vocab_size, minimum=1)
        self.d_model = check_d_model(d_model)
        self.embedding = nn.Embedding(self.vocab_size, self.d_model)

    def forward(self, token_ids: torch.Tensor) -> torch.Tensor:
        """Embed ``token_ids`` of any shape into ``(*shape, d_model)``."""
        return self.embedding(token_ids) * math.sqrt(self.d_model)


class PositionalEncoding(nn.Module):
    """Add the sinusoidal encoding to a batch of embedded sequences.

    Parameters
    ----------
    d_model : int
        Width of each embedding; a positive even integer.
    max_seq_length : int
        Longest sequence the module accepts, >= 1.

    Notes
    -----
    The table is a registered buffer of shape ``(1, max_seq_length, d_model)``:
    it is saved in ``state_dict`` and follows ``.to(device)`` and
    ``.to(dtype)``, but it is not a parameter and is never trained.
    """

    def __init__(self, d_model: int, max_seq_length: int) -> None:
        super().__init__()
        self.d_model = check_d_model(d_model)
        self.max_seq_length = check_int("max_seq_length", max_seq_length, minimum=1)
        table = sinusoidal_encoding(self.max_seq_length, self.d_model, dtype=np.float32)
        self.register_buffer("pe", torch.from_numpy(table).unsqueeze(0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return ``x + PE`` for ``x`` of shape ``(batch, seq, d_model)``."""
        if x.dim() != 3 or x.size(-1) != self.d_model:
            raise ValueError(f"x must have shape (batch, seq, d_model={self.d_model}), got {tuple(x.shape)}")
        seq_length = x.size(1)
        if seq_length > self.max_seq_length:
            raise ValueError(f"sequence length {seq_length} exceeds max_seq_length {self.max_seq_length}")
        return x + self.pe[:, :seq_length]


class RotaryEmbedding(nn.Module):
    """Rotary position embedding: rotate queries or keys by their positions.

    Parameters
    ----------
    dim : int
        Head dimension; a positive even integer.
    max_seq_length : int
        Number of positions in the tables, >= 1; ``forward`` accepts
        ``offset + seq_len <= max_seq_length``.
    base : float, default 10000.0
        Finite number > 0; ``theta_i = base ** (-2 i / dim)``.
    layout : {"interleaved", "half"}, default "interleaved"
        Pairs ``(2i, 2i + 1)`` (RoFormer) or ``(i, i + dim/2)`` (GPT-NeoX, Llama).
    frequencies : array_like, optional
        ``dim // 2`` finite frequencies > 0 to use instead of ``base``, e.g. from
        :func:`posenc.scaled_frequencies`.

    Notes
    -----
    ``forward`` computes exactly :func:`posenc.apply_rope`. The tables ``cos``
    and ``sin``, of shape ``(max_seq_length, dim // 2)``, come from the accurate
    angle addition of :func:`posenc.cos_sin_table` (float64 factors, rounded
    once to float32). They are buffers registered with ``persistent=False``:
    derived from the arguments, they stay out of ``state_dict`` but follow
    ``.to(device)`` and ``.to(dtype)``. A forward pass only slices them; no
    trigonometry is evaluated per call. Input of a lower precision than the
    tables (bfloat16, float16) is rotated in the tables' precision and only
    the result is rounded back.
    """

    def __init__(
        self,
        dim: int,
        max_seq_length: int,
        *,
        base: float = 10000.0,
        layout: str = "interleaved",
        frequencies=None,
    ) -> None:
        super().__init__()
        self.dim = check_dim("dim", dim)
        self.max_seq_length = check_int("max_seq_length", max_seq_length, minimum=1)
        self.layout = check_layout(layout)
        theta = rope_frequencies(self.dim, base, frequencies)
        cos, sin = cos_sin_table(self.max_seq_length, theta, dtype=np.float32)
        self.register_buffer("cos", torch.from_numpy(cos), persistent=False)
        self.register_buffer("sin", torch.from_numpy(sin), persistent=False)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, max_seq_length={self.max_seq_length}, layout={self.layout!r}"

    def forward(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        """Rotate ``x`` of shape ``(..., seq_len, dim)``; row ``t`` is at position ``offset + t``."""
        if not torch.is_floating_point(x):
            raise TypeError(f"x must be a floating-point tensor, got dtype {x.dtype}")
        if x.dim() < 2 or x.size(-1) != self.dim:
            raise ValueError(f"x must have shape (..., seq_len, dim={self.dim}), got {tuple(x.shape)}")
        offset = check_int("offset", offset)
        seq_len = x.size(-2)
        if offset + seq_len > self.max_seq_length:
            raise ValueError(
                f"offset + seq_len = {offset} + {seq_len} = {offset + seq_len} exceeds "
                f"max_seq_length {self.max_seq_length}"
            )
        cos = self.cos[offset : offset + seq_len]
        sin = self.sin[offset : offset + seq_len]
        work = x.to(torch.promote_types(x.dtype, cos.dtype))
        half = self.dim // 2
        if self.layout == "interleaved" and work.dtype in (torch.float32, torch.float64):
            # (x_2i, x_2i+1) as the complex number x_2i + 1j x_2i+1: one complex
            # product per pair, in a single pass, is the rotation.
            pairs = work.unflatten(-1, (half, 2))
            if pairs.storage_offset() % 2 or any(step % 2 for step in pairs.stride()[:-1]):
                pairs = pairs.contiguous()
            rotated = torch.view_as_real(torch.view_as_complex(pairs) * torch.complex(cos, sin))
            return rotated.flatten(-2).to(x.dtype)
        if self.layout == "interleaved":
            first, second = work[..., 0::2], work[..., 1::2]
        else:
            first, second = work[..., :half], work[..., half:]
        # addcmul fuses a product and a sum: four passes over half of x instead of six.
        rotated = (torch.addcmul(first * cos, second, sin, value=-1), torch.addcmul(first * sin, second, cos))
        if self.layout == "interleaved":
            out = torch.stack(rotated, dim=-1).flatten(-2)
        else:
            out = torch.cat(rotated, dim=-1)
        return out.to(x.dtype)
