"""The small Transformer of chapter 8, whose variants differ only in how they are told positions.

:class:`~posenc.experiment.TinyTransformer` stacks :class:`~posenc.experiment.Block` layers around
:class:`~posenc.experiment.Attention`; its ``position`` option picks one of
:data:`~posenc.experiment.model.POSITIONS`. Like :mod:`posenc.nn`, whose encodings it uses, this module
imports torch, and ``import posenc`` does not import it.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from posenc._checks import check_int
from posenc.nn import PositionalEncoding, RotaryEmbedding
from posenc.relative import alibi_bias

__all__ = ["FORMULA_LENGTH", "POSITIONS", "Attention", "Block", "TinyTransformer"]

POSITIONS = ("none", "nope", "sinusoidal", "learned", "rope", "alibi")
"""The variants: how (and whether) the model is told where each token is."""

FORMULA_LENGTH = 1024
"""Positions covered by the tables of the formula-based encodings (sinusoid, RoPE).

A formula is defined at every position, so these variants accept any length up
to this one; only the learned table is limited to the lengths it was trained on.
"""


class Attention(nn.Module):
    """Multi-head self-attention; RoPE rotates q and k, masks and ALiBi are added to the scores.

    Parameters
    ----------
    d_model : int
        Width of the residual stream; a multiple of ``num_heads``.
    num_heads : int
        Number of heads, >= 1.
    rope : bool
        Rotate queries and keys by their positions (rotary embedding) before the scores.

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment.model import Attention
    >>> _ = torch.manual_seed(0)
    >>> attention = Attention(d_model=32, num_heads=4, rope=True)
    >>> x = torch.randn(2, 5, 32)  # (batch, seq, d_model)
    >>> causal = torch.full((5, 5), float("-inf")).triu(diagonal=1)  # query i sees keys j <= i
    >>> attention(x, causal).shape
    torch.Size([2, 5, 32])
    """

    def __init__(self, d_model: int, num_heads: int, *, rope: bool) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.rope = RotaryEmbedding(d_model // num_heads, FORMULA_LENGTH) if rope else None

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """``x`` is ``(batch, seq, d_model)``; ``bias`` is added to the scores,
        ``(heads, seq, seq)``."""
        batch, seq_len, d_model = x.shape
        # (batch, seq, 3 * d_model) -> 3 tensors of shape (batch, heads, seq, head_dim)
        qkv = self.qkv(x).view(batch, seq_len, 3, self.num_heads, -1)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        if self.rope is not None:
            # v is not rotated: positions live in the scores only
            q, k = self.rope(q), self.rope(k)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)) + bias
        mixed = scores.softmax(dim=-1) @ v
        return self.out(mixed.transpose(1, 2).reshape(batch, seq_len, d_model))


class Block(nn.Module):
    """One pre-norm Transformer layer: attention, then a two-layer MLP, each added to the residual.

    Parameters
    ----------
    d_model : int
        Width of the residual stream; a multiple of ``num_heads``.
    num_heads : int
        Number of heads, >= 1.
    rope : bool
        Whether its :class:`~posenc.experiment.Attention` rotates queries and keys.

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment.model import Block
    >>> _ = torch.manual_seed(0)
    >>> block = Block(d_model=32, num_heads=4, rope=False)
    >>> block(torch.randn(2, 5, 32), torch.zeros(5, 5)).shape  # no mask: every token sees every token
    torch.Size([2, 5, 32])
    """

    def __init__(self, d_model: int, num_heads: int, *, rope: bool) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attention = Attention(d_model, num_heads, rope=rope)
        self.norm2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.norm1(x), bias)
        return x + self.mlp(self.norm2(x))


class TinyTransformer(nn.Module):
    """A small Transformer classifier whose only difference between variants is position.

    Parameters
    ----------
    vocab_size : int
        Number of token ids, >= 2.
    position : {"none", "nope", "sinusoidal", "learned", "rope", "alibi"}
        ``"none"``: no positions, bidirectional attention, mean of all tokens.
        Every other variant is causal (token ``i`` attends to ``j <= i``) and
        reads its answer at the last token: ``"nope"`` adds nothing else;
        ``"sinusoidal"`` adds :class:`posenc.nn.PositionalEncoding`;
        ``"learned"`` adds a trained row per position; ``"rope"`` rotates
        queries and keys (:class:`posenc.nn.RotaryEmbedding`); ``"alibi"``
        adds :func:`posenc.alibi_bias` to the scores.
    max_seq_length : int, default 16
        Rows of the learned table, >= 1; the learned variant refuses longer
        sequences. The others accept up to :data:`~posenc.experiment.model.FORMULA_LENGTH` tokens.
    d_model : int, default 32
        Width of the residual stream; even and a multiple of ``num_heads``.
    num_heads : int, default 4
        Attention heads per layer, >= 1.
    num_layers : int, default 2
        Number of blocks, >= 1.
    num_classes : int, default 2
        Number of outputs (logits), >= 2.

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment.model import TinyTransformer
    >>> _ = torch.manual_seed(0)
    >>> model = TinyTransformer(vocab_size=16, position="alibi")
    >>> model(torch.randint(0, 16, (4, 8))).shape  # two logits per sequence
    torch.Size([4, 2])

    Every layer adds the same bias to its scores: the causal mask, and for ALiBi a penalty that grows
    with the distance, one slope per head.

    >>> model.attention_bias(3)[0]  # head 0, slope 1/4
    tensor([[ 0.0000,    -inf,    -inf],
            [-0.2500,  0.0000,    -inf],
            [-0.5000, -0.2500,  0.0000]])
    """

    def __init__(
        self,
        vocab_size: int,
        *,
        position: str,
        max_seq_length: int = 16,
        d_model: int = 32,
        num_heads: int = 4,
        num_layers: int = 2,
        num_classes: int = 2,
    ) -> None:
        super().__init__()
        if position not in POSITIONS:
            raise ValueError(f"position must be one of {POSITIONS}, got {position!r}")
        self.position = position
        vocab_size = check_int("vocab_size", vocab_size, minimum=2)
        self.max_seq_length = check_int("max_seq_length", max_seq_length, minimum=1)
        d_model = check_int("d_model", d_model, minimum=2)
        self.num_heads = check_int("num_heads", num_heads, minimum=1)
        num_layers = check_int("num_layers", num_layers, minimum=1)
        num_classes = check_int("num_classes", num_classes, minimum=2)
        if d_model % (2 * self.num_heads):
            raise ValueError(
                f"d_model must be a multiple of 2 * num_heads = {2 * self.num_heads} "
                f"(an even width per head, for RoPE's pairs), got {d_model}"
            )
        # Plain N(0, 1) rows, norm about sqrt(d_model): the same order as the
        # sinusoid's sqrt(d_model / 2).
        self.embedding = nn.Embedding(vocab_size, d_model)
        if position == "sinusoidal":
            self.sinusoid = PositionalEncoding(d_model, FORMULA_LENGTH)
        if position == "learned":
            self.position_embedding = nn.Embedding(self.max_seq_length, d_model)
        rope = position == "rope"
        blocks = [Block(d_model, self.num_heads, rope=rope) for _ in range(num_layers)]
        self.blocks = nn.ModuleList(blocks)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)

    def attention_bias(self, seq_len: int) -> torch.Tensor:
        """What every layer adds to its scores: 0, the causal mask, ALiBi's penalty."""
        bias = torch.zeros(self.num_heads, seq_len, seq_len)
        if self.position == "alibi":
            bias += torch.from_numpy(alibi_bias(self.num_heads, seq_len)).float()
        if self.position != "none":
            future = torch.ones(seq_len, seq_len, dtype=torch.bool).triu(diagonal=1)
            bias = bias.masked_fill(future, float("-inf"))
        return bias.to(self.head.weight.dtype)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits ``(batch, num_classes)`` for ``tokens`` of shape ``(batch, seq)``."""
        if tokens.dim() != 2:
            shape = tuple(tokens.shape)
            raise ValueError(f"tokens must have shape (batch, seq), got {shape}")
        seq_len = tokens.size(1)
        x = self.embedding(tokens)
        if self.position == "sinusoidal":
            x = self.sinusoid(x)
        if self.position == "learned":
            if seq_len > self.max_seq_length:
                rows = self.max_seq_length
                raise ValueError(
                    f"sequence length {seq_len} exceeds max_seq_length {rows}: "
                    f"the learned table has no row for positions {rows} and beyond"
                )
            x = x + self.position_embedding.weight[:seq_len]
        bias = self.attention_bias(seq_len)
        for block in self.blocks:
            x = block(x, bias)
        x = self.norm(x)
        # Without positions the mean is the honest summary; a causal model's
        # last token has seen everything.
        summary = x.mean(dim=1) if self.position == "none" else x[:, -1]
        return self.head(summary)
