"""Greedy decoding with :class:`~posenc.serving.TinyDecoder` and :class:`~posenc.serving.KVCache`."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import torch

from posenc._checks import check_int
from posenc.positions import positions_from_mask
from posenc.serving.cache import KVCache
from posenc.serving.decoder import TinyDecoder

__all__ = ["POSITION_MODES", "Generation", "greedy_generate"]

POSITION_MODES = ("mask", "cache")
"""Where :func:`~posenc.serving.greedy_generate` takes each new token's position from: the attention mask
(``"mask"``, as Hugging Face's ``generate``) or the cache's own count (``"cache"``)."""


class Generation(NamedTuple):
    """What :func:`~posenc.serving.greedy_generate` returns.

    Examples
    --------
    >>> import torch
    >>> from posenc.serving import TinyDecoder, greedy_generate
    >>> model = TinyDecoder(vocab_size=16, d_model=16, num_heads=2, num_layers=2, seed=0, dtype=torch.float64)
    >>> out = greedy_generate(model, torch.tensor([[3, 1, 4, 1, 5]]), steps=3)
    >>> out.tokens.shape, out.logits.shape, out.positions.shape  # (batch, steps), with vocab for the logits
    (torch.Size([1, 3]), torch.Size([1, 3, 16]), torch.Size([1, 3]))
    >>> torch.equal(out.tokens, out.logits.argmax(dim=-1))
    True
    """

    #: ``(batch, steps)``: the chosen token ids.
    tokens: torch.Tensor
    #: ``(batch, steps, vocab)``: the logits each token was chosen from.
    logits: torch.Tensor
    #: ``(batch, steps)``: the position each chosen token is fed back at.
    positions: torch.Tensor


def greedy_generate(
    model: TinyDecoder,
    token_ids,
    *,
    steps: int,
    attention_mask=None,
    positions: str = "mask",
    cache: KVCache | None = None,
    frequencies_for: Callable | None = None,
) -> Generation:
    """Greedy decoding: read the prompt, then append the most likely token ``steps`` times.

    Parameters
    ----------
    model : TinyDecoder
        The model.
    token_ids : torch.Tensor
        Prompts of shape ``(batch, seq_len)``, left-padded if their lengths differ.
    steps : int
        Tokens to generate, >= 1.
    attention_mask : torch.Tensor, optional
        ``(batch, seq_len)``, 1 for a real token and 0 for padding; default all 1.
    positions : {"mask", "cache"}, default "mask"
        ``"mask"``: each token's position counts the real tokens before it in its own
        sequence (:func:`posenc.positions_from_mask`), as Hugging Face's ``generate`` does;
        ``"cache"``: the cache length, the same for every row, padding included. Ignored by a
        re-indexing cache.
    cache : KVCache, optional
        The cache to fill (default: a new one that keeps every token, keys stored rotated).
        A re-indexing cache is fed the prompt one token at a time.
    frequencies_for : callable, optional
        ``frequencies_for(seq_len)`` returns the frequencies to rotate with once the largest
        position read is ``seq_len - 1`` (Hugging Face's rule for dynamic scaling, e.g.
        ``lambda n: posenc.scaled_frequencies(..., method="dynamic", seq_len=n)``); called
        before every forward pass.

    Returns
    -------
    Generation
        ``tokens`` and ``logits`` of the generated tokens, and ``positions``, the position of
        each generated token as it is fed back (what the model uses for it).

    Examples
    --------
    >>> import torch
    >>> from posenc.serving import KVCache, TinyDecoder, greedy_generate
    >>> model = TinyDecoder(vocab_size=16, d_model=16, num_heads=2, num_layers=2, seed=0, dtype=torch.float64)
    >>> out = greedy_generate(model, torch.tensor([[3, 1, 4, 1, 5]]), steps=4)
    >>> out.tokens
    tensor([[10, 11, 11, 11]])
    >>> out.positions  # the prompt took positions 0 ... 4
    tensor([[5, 6, 7, 8]])

    A left-padded batch: with ``positions="mask"`` each row counts only its own real tokens.

    >>> prompts = torch.tensor([[0, 0, 3, 1], [2, 7, 1, 8]])
    >>> mask = torch.tensor([[0, 0, 1, 1], [1, 1, 1, 1]])
    >>> greedy_generate(model, prompts, steps=2, attention_mask=mask).positions
    tensor([[2, 3],
            [4, 5]])
    >>> greedy_generate(model, prompts, steps=2, attention_mask=mask, positions="cache").positions
    tensor([[4, 5],
            [4, 5]])
    """
    token_ids, steps, mask, cache = _check_generate(
        model, token_ids, steps, attention_mask, positions, cache, frequencies_for
    )
    step = _Step(model, cache, frequencies_for)
    with torch.no_grad():
        if cache.reindex:
            for t in range(token_ids.shape[1]):
                logits = step(token_ids[:, t : t + 1], None, None)
        elif positions == "mask":
            logits = step(token_ids, torch.from_numpy(positions_from_mask(mask.numpy())), mask)
        else:
            logits = step(token_ids, None, mask)
        return _decode(step, logits, steps, mask, positions, cache)


def _check_generate(model, token_ids, steps, attention_mask, positions, cache, frequencies_for):
    """:func:`~posenc.serving.greedy_generate`'s arguments, checked: the tokens, steps, the mask (long)
    and the cache."""
    if not isinstance(model, TinyDecoder):
        raise TypeError(f"model must be a posenc.serving.TinyDecoder, got {type(model).__name__}")
    token_ids = model._check_tokens(token_ids)
    steps = check_int("steps", steps, minimum=1)
    if not isinstance(positions, str) or positions not in POSITION_MODES:
        raise ValueError(f"positions must be one of {POSITION_MODES}, got {positions!r}")
    if frequencies_for is not None and not callable(frequencies_for):
        raise TypeError(f"frequencies_for must be callable (seq_len -> frequencies), got {frequencies_for!r}")
    batch, seq_len = token_ids.shape
    if attention_mask is None:
        mask = torch.ones(batch, seq_len, dtype=torch.long)
    else:
        mask = model._integer_tensor(
            "attention_mask", attention_mask, (batch, seq_len), allow_bool=True
        ).long()
    cache = KVCache(model.num_layers) if cache is None else cache
    _check_generation_cache(cache, attention_mask)
    return token_ids, steps, mask, cache


def _check_generation_cache(cache, attention_mask) -> None:
    if not isinstance(cache, KVCache):
        raise TypeError(f"cache must be a posenc.serving.KVCache, got {type(cache).__name__}")
    if len(cache) or cache.seen:
        raise ValueError(f"cache must be empty (a new KVCache), got one that has read {cache.seen} tokens")
    if cache.reindex and attention_mask is not None:
        raise ValueError("a re-indexing cache does not take padded batches: give no attention_mask")


class _Step:
    """One forward pass of :func:`~posenc.serving.greedy_generate`, with the frequencies ``frequencies_for``
    gives first."""

    def __init__(self, model: TinyDecoder, cache: KVCache, frequencies_for: Callable | None) -> None:
        self.model, self.cache, self.frequencies_for = model, cache, frequencies_for
        self.largest = -1  # the largest position read so far

    def __call__(self, tokens, position_ids, step_mask) -> torch.Tensor:
        if self.frequencies_for is not None:
            self._set_frequencies(tokens, position_ids)
        return self.model(tokens, position_ids=position_ids, attention_mask=step_mask, cache=self.cache)

    def _set_frequencies(self, tokens, position_ids) -> None:
        cache = self.cache
        where = position_ids if position_ids is not None else cache.seen + torch.arange(tokens.shape[1])
        top = len(cache) if cache.reindex else int(where.max())
        self.largest = max(self.largest, top)
        theta = np.asarray(self.frequencies_for(self.largest + 1), dtype=np.float64)
        if not np.array_equal(theta, self.model.frequencies):
            self.model.set_frequencies(theta)


def _decode(step: _Step, logits, steps: int, mask, positions: str, cache: KVCache) -> Generation:
    """Append the most likely token ``steps`` times, after the prompt's ``logits``."""
    batch = mask.shape[0]
    next_position = mask.sum(dim=1, keepdim=True) if positions == "mask" else None
    chosen, all_logits, used = [], [], []
    ones = torch.ones(batch, 1, dtype=torch.long)
    for _ in range(steps):
        last = logits[:, -1]
        token = last.argmax(dim=-1, keepdim=True)
        chosen.append(token)
        all_logits.append(last)
        if cache.reindex:
            used.append(torch.full((batch, 1), len(cache)))
            logits = step(token, None, None)
        elif positions == "mask":
            used.append(next_position)
            logits = step(token, next_position, ones)
            next_position = next_position + 1
        else:
            used.append(torch.full((batch, 1), cache.seen))
            logits = step(token, None, ones)
    return Generation(torch.cat(chosen, dim=1), torch.stack(all_logits, dim=1), torch.cat(used, dim=1))
