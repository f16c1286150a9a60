"""The loss of a long text, token by token, without holding every logit at once."""

from __future__ import annotations

import torch

from posenc._checks import check_int
from posenc.serving import TinyDecoder

__all__ = ["token_nll"]


def token_nll(model: TinyDecoder, token_ids, *, chunk_size: int = 1024, position_ids=None) -> torch.Tensor:
    """Negative log-likelihood of each token given the ones before it, the logits a chunk at a time.

    The logits of a whole text are ``seq_len x vocab_size`` floats: 3.2 GB for 16,384 tokens of
    SmolLM2's 49,152 ids. The decoder returns its last hidden states (``seq_len x d_model``) instead, and
    ``lm_head`` and the log-softmax run on ``chunk_size`` rows at a time.

    Parameters
    ----------
    model : TinyDecoder
        Any posenc decoder, e.g. :func:`~posenc.realmodel.load_decoder`'s.
    token_ids : torch.Tensor
        Integer ids, ``(seq_len,)`` or ``(1, seq_len)``, seq_len >= 2.
    chunk_size : int, default 1024
        Rows of logits computed at once, >= 1 (1024 rows of 49,152 float32 logits are 200 MB).
    position_ids : torch.Tensor, optional
        As :meth:`posenc.serving.TinyDecoder.forward`'s; default ``0 ... seq_len - 1``.

    Returns
    -------
    torch.Tensor
        ``(seq_len - 1,)`` float32 (the model's dtype): entry ``t`` is ``-log p(token t + 1 | tokens
        0 ... t)``. Its mean is the log-perplexity.

    Examples
    --------
    >>> import torch
    >>> from posenc.realmodel import token_nll
    >>> from posenc.serving import TinyDecoder
    >>> model = TinyDecoder(vocab_size=16, d_model=16, num_heads=2, num_layers=1, seed=0)
    >>> token_nll(model, torch.tensor([3, 1, 4, 1, 5]), chunk_size=2).shape
    torch.Size([4])
    """
    if not isinstance(model, TinyDecoder):
        raise TypeError(f"model must be a posenc.serving.TinyDecoder, got {type(model).__name__}")
    chunk_size = check_int("chunk_size", chunk_size, minimum=1)
    ids = torch.as_tensor(token_ids)
    if ids.dim() == 1:
        ids = ids[None]
    if ids.dim() != 2 or ids.shape[0] != 1 or ids.shape[1] < 2:
        raise ValueError(
            f"token_ids must have shape (seq_len,) or (1, seq_len) with seq_len >= 2, got {tuple(ids.shape)}"
        )
    with torch.no_grad():
        hidden = model.hidden_states(ids, position_ids=position_ids)[0, :-1]
        targets = model._check_tokens(ids)[0, 1:]
        losses = [
            torch.nn.functional.cross_entropy(
                model.lm_head(hidden[start : start + chunk_size]),
                targets[start : start + chunk_size],
                reduction="none",
            )
            for start in range(0, hidden.shape[0], chunk_size)
        ]
    return torch.cat(losses)
