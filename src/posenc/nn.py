"""PyTorch modules: token embeddings, the sinusoidal positional encoding and RoPE.

With :mod:`posenc.serving`, the torch layer of posenc: ``import posenc`` does not import it, and the
NumPy core below it never imports torch (``.importlinter``).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from posenc._checks import check_d_model, check_int
from posenc.encoding import cos_sin_table, sinusoidal_encoding
from posenc.rope import check_dim, check_layout, check_positions_shape, check_rotary_dim, rope_frequencies

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

    Examples
    --------
    >>> import torch
    >>> from posenc.nn import InputEmbeddings
    >>> _ = torch.manual_seed(0)
    >>> embed = InputEmbeddings(vocab_size=10, d_model=8)
    >>> embed(torch.tensor([[1, 2, 3]])).shape
    torch.Size([1, 3, 8])

    Each row is the token's embedding times ``sqrt(d_model)``:

    >>> torch.equal(embed(torch.tensor([4]))[0], embed.embedding.weight[4] * 8**0.5)
    True
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

    Examples
    --------
    >>> import torch
    >>> from posenc.nn import PositionalEncoding
    >>> add_positions = PositionalEncoding(d_model=4, max_seq_length=16)
    >>> x = torch.zeros(2, 3, 4)  # a batch of two sequences of three embeddings

    On zeros, what is added shows: row ``pos`` is ``sin(pos), cos(pos), sin(pos / 100), cos(pos / 100)``.

    >>> add_positions(x)[0].round(decimals=3)
    tensor([[ 0.0000,  1.0000,  0.0000,  1.0000],
            [ 0.8410,  0.5400,  0.0100,  1.0000],
            [ 0.9090, -0.4160,  0.0200,  1.0000]])
    >>> list(add_positions.state_dict())  # a buffer, saved with the model, never trained
    ['pe']
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
        positions ``0 ... max_seq_length - 1``.
    base : float, default 10000.0
        Finite number > 0; ``theta_i = base ** (-2 i / rotary_dim)``.
    layout : {"interleaved", "half"}, default "interleaved"
        Pairs ``(2i, 2i + 1)`` (RoFormer) or ``(i, i + rotary_dim/2)``
        (GPT-NeoX, Llama: Hugging Face's ``rotate_half``).
    frequencies : array_like, optional
        ``rotary_dim // 2`` finite frequencies > 0 to use instead of ``base``,
        e.g. from :func:`posenc.scaled_frequencies`.
    rotary_dim : int, optional
        Rotate only the first ``rotary_dim`` features of each head (even,
        ``<= dim``) and pass the rest through, as GPT-NeoX (``rotary_pct``)
        and Hugging Face's ``partial_rotary_factor`` do; the frequencies are
        those of a head of size ``rotary_dim``. Default: ``dim``.

    Notes
    -----
    ``forward`` computes :func:`posenc.apply_rope`, equal to float32 rounding
    (the two round in different orders). The tables ``cos`` and ``sin``, of
    shape ``(max_seq_length, rotary_dim // 2)``, come from the accurate angle
    addition of :func:`posenc.cos_sin_table` (float64 factors, rounded once to
    float32). They are buffers registered with ``persistent=False``: derived
    from the arguments, they stay out of ``state_dict`` and follow
    ``.to(device)``. A forward pass only slices or gathers rows of them; no
    trigonometry is evaluated per call.

    **The tables stay float32.** ``.to(torch.bfloat16)``, ``.half()`` and a
    parent model's ``.bfloat16()`` cast every floating buffer, and a
    bfloat16 table rounds each cos and sin to 8 significant bits (the
    mechanism behind transformers #29496 and gpt-neox #1016). This module
    undoes that for its own tables (``_apply``, which every such cast goes
    through, puts back the float32 tables on the new device); a cast to
    float64 is followed. Input of a lower precision (bfloat16, float16) is
    rotated in float32 and rounded once to its dtype; float64 input is
    rotated in float64. For bfloat16 input at 8,192 positions (dim 128) the
    largest error against a float64 rotation of the same input is about
    1.5e-2, half a bfloat16 step of the largest entries, against 2.6e-2 when
    the tables themselves are bfloat16 (``tests/posenc/test_nn.py`` measures it).

    Examples
    --------
    >>> import torch
    >>> from posenc.nn import RotaryEmbedding
    >>> rope = RotaryEmbedding(dim=4, max_seq_length=32)

    The same vector at positions 0, 1 and 2 is turned by 0, 1 and 2 radians in its first pair and by
    0, 0.01 and 0.02 radians in its second:

    >>> x = torch.tensor([1.0, 0.0, 1.0, 0.0]).expand(3, 4)
    >>> rope(x).round(decimals=3)
    tensor([[ 1.0000,  0.0000,  1.0000,  0.0000],
            [ 0.5400,  0.8410,  1.0000,  0.0100],
            [-0.4160,  0.9090,  1.0000,  0.0200]])

    The score of a rotated query and a rotated key depends only on how far apart they are:

    >>> q, k = torch.randn(2, 4, generator=torch.Generator().manual_seed(0))
    >>> scores = rope(q.expand(8, 4)) @ rope(k.expand(8, 4)).T  # query at m, key at n
    >>> torch.allclose(scores[0, 2], scores[5, 7], atol=1e-5)  # n - m = 2 in both
    True

    ``offset`` gives the position of the first row, as for the new tokens of a KV cache:

    >>> torch.equal(rope(x[:1], offset=2), rope(x)[2:])
    True
    """

    def __init__(
        self,
        dim: int,
        max_seq_length: int,
        *,
        base: float = 10000.0,
        layout: str = "interleaved",
        frequencies=None,
        rotary_dim: int | None = None,
    ) -> None:
        super().__init__()
        self.dim = check_dim("dim", dim)
        self.max_seq_length = check_int("max_seq_length", max_seq_length, minimum=1)
        self.layout = check_layout(layout)
        self.rotary_dim = check_rotary_dim(rotary_dim, self.dim)
        theta = rope_frequencies(self.rotary_dim, base, frequencies)
        cos, sin = cos_sin_table(self.max_seq_length, theta, dtype=np.float32)
        self.register_buffer("cos", torch.from_numpy(cos), persistent=False)
        self.register_buffer("sin", torch.from_numpy(sin), persistent=False)

    def extra_repr(self) -> str:
        partial = f", rotary_dim={self.rotary_dim}" if self.rotary_dim < self.dim else ""
        return f"dim={self.dim}, max_seq_length={self.max_seq_length}, layout={self.layout!r}{partial}"

    def _apply(self, fn, recurse=True):
        # Module.to(dtype), .half(), .bfloat16() and a parent's casts all reach the buffers through
        # _apply. Let it run (device moves must apply), then put back the float32 tables wherever a
        # cast went below float32: rounding them to bfloat16 is exactly what chapter 7 warns about.
        tables = {"cos": self.cos, "sin": self.sin}
        super()._apply(fn, recurse)
        for name, before in tables.items():
            after = getattr(self, name)
            if after.dtype not in (torch.float32, torch.float64):
                # A float64 table holds float32 numbers (it was cast up from them): exact back in float32.
                setattr(self, name, before.to(device=after.device, dtype=torch.float32))
        return self

    def forward(self, x: torch.Tensor, offset=0, *, positions=None) -> torch.Tensor:
        """Rotate ``x`` of shape ``(..., seq_len, dim)`` by the positions of its rows.

        Parameters
        ----------
        x : torch.Tensor
            Floating-point queries or keys, e.g. ``(batch, heads, seq_len, dim)``.
        offset : int or torch.Tensor, default 0
            Row ``t`` is at position ``offset + t``; an integer >= 0, or a 0-d
            integer tensor (which is not read back to the host when compiled
            with ``torch.compile``, so a CUDA graph can replay it).
        positions : torch.Tensor, optional
            Integer positions >= 0 of every row instead, of shape ``(seq_len,)``
            or, for ``x`` of shape ``(batch, heads, seq_len, dim)``,
            ``(batch, seq_len)``: Hugging Face's ``position_ids``, one row per
            sequence (left padding, packed documents). ``offset`` must then be 0.

        Returns
        -------
        torch.Tensor
            ``x`` rotated, of its shape and dtype.
        """
        if not torch.is_floating_point(x):
            raise TypeError(f"x must be a floating-point tensor, got dtype {x.dtype}")
        if x.dim() < 2 or x.size(-1) != self.dim:
            raise ValueError(f"x must have shape (..., seq_len, dim={self.dim}), got {tuple(x.shape)}")
        seq_len = x.size(-2)
        index = self._rows(x, offset, positions)
        if index is None:  # a Python int offset: a slice, no gather
            cos, sin = self.cos[offset : offset + seq_len], self.sin[offset : offset + seq_len]
        else:
            # embedding() rejects negative and out-of-table indices, where plain indexing would wrap.
            cos = nn.functional.embedding(index, self.cos)
            sin = nn.functional.embedding(index, self.sin)
            if (
                index.dim() == 2
            ):  # (batch, seq_len, pairs) -> (batch, 1, seq_len, pairs), as HF's unsqueeze_dim=1
                cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        if self.rotary_dim < self.dim:
            rotated = self._rotate(x[..., : self.rotary_dim], cos, sin)
            return torch.cat((rotated, x[..., self.rotary_dim :]), dim=-1)
        return self._rotate(x, cos, sin)

    def _rows(self, x: torch.Tensor, offset, positions):
        """``None`` for a Python int offset (checked), else the table rows to gather, checked."""
        seq_len = x.size(-2)
        if positions is not None:
            if isinstance(offset, torch.Tensor) or check_int("offset", offset) != 0:
                raise ValueError(f"give offset or positions, not both: got offset={offset!r} and positions")
            if not isinstance(positions, torch.Tensor):
                positions = torch.as_tensor(np.asarray(positions))
            if positions.dtype == torch.bool or positions.is_floating_point() or positions.is_complex():
                raise TypeError(f"positions must be an integer tensor, got dtype {positions.dtype}")
            check_positions_shape(tuple(positions.shape), tuple(x.shape))
            index = positions.to(device=self.cos.device, dtype=torch.long)
            self._check_rows("positions", index)
            return index
        if isinstance(offset, torch.Tensor):
            if (
                offset.dim() != 0
                or offset.dtype == torch.bool
                or offset.is_floating_point()
                or offset.is_complex()
            ):
                raise TypeError(
                    "offset must be an integer or a 0-d integer tensor, got a tensor of dtype "
                    f"{offset.dtype} and shape {tuple(offset.shape)}"
                )
            index = offset.to(device=self.cos.device, dtype=torch.long) + torch.arange(
                seq_len, device=self.cos.device
            )
            self._check_rows("offset + t", index)
            return index
        offset = check_int("offset", offset)
        if offset + seq_len > self.max_seq_length:
            raise ValueError(
                f"offset + seq_len = {offset} + {seq_len} = {offset + seq_len} exceeds "
                f"max_seq_length {self.max_seq_length}"
            )
        return None

    def _check_rows(self, name: str, index: torch.Tensor) -> None:
        """Raise a ValueError naming ``name`` for a row outside ``0 ... max_seq_length - 1``.

        The check reads the tensor back to the host, which torch.compile and CUDA graph capture cannot
        do; there it is skipped, and embedding() still refuses an out-of-table row (an IndexError on the
        CPU, a device-side assert on CUDA).
        """
        if index.numel() == 0 or torch.compiler.is_compiling():
            return
        if index.is_cuda and torch.cuda.is_current_stream_capturing():
            return
        low, high = int(index.min()), int(index.max())
        if low < 0:
            raise ValueError(f"{name} must be >= 0, got minimum {low}")
        if high >= self.max_seq_length:
            raise ValueError(
                f"{name} must be < max_seq_length = {self.max_seq_length} (the rows of the tables), "
                f"got maximum {high}"
            )

    def _rotate(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        """Turn the pairs of ``x`` (its whole last axis) by ``cos`` and ``sin``, in at least float32."""
        work = x.to(torch.promote_types(x.dtype, cos.dtype))
        half = x.size(-1) // 2
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
