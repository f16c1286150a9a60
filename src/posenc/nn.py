"""PyTorch modules: token embeddings and the sinusoidal positional encoding.

This is the only module of :mod:`posenc` that imports torch.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from posenc._checks import check_d_model, check_int
from posenc.encoding import sinusoidal_encoding

__all__ = ["InputEmbeddings", "PositionalEncoding"]


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
