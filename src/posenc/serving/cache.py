"""The KV cache: the keys and values of the tokens a decoder has read, with their positions."""

from __future__ import annotations

import numpy as np
import torch

from posenc._checks import check_int

__all__ = ["KVCache"]


class KVCache:
    """The keys and values of the tokens a decoder has read, one entry per layer.

    Parameters
    ----------
    num_layers : int
        Layers of the model that will use the cache, >= 1.
    window : int, optional
        Keep only the ``window - 1`` most recent tokens (plus the sinks), so that
        each new query sees at most ``window`` recent keys, itself included: a
        sliding window (Mistral) or a rolling cache. Default: keep every token.
        An integer >= 1.
    sinks : int, default 0
        Never drop the first ``sinks`` tokens of the stream: StreamingLLM's
        attention sinks. Needs ``window``; an integer >= 0.
    rotated : bool, default True
        Store the keys after the rotation, as Hugging Face and most servers do,
        or before it (``False``), rotating every cached key again at each step.
        A model whose frequencies change with the length (dynamic NTK,
        LongRoPE) reads stale keys from a rotated cache.
    reindex : bool, default False
        StreamingLLM: give the cached keys the positions ``0 ... n - 1`` of their
        slots in the cache, and the new query the next slot, instead of their
        positions in the text. Needs ``rotated=False`` (the keys are rotated by
        their slot at every step) and one token per forward call.

    Attributes
    ----------
    keys, values : list of torch.Tensor or None
        Per layer, ``(batch, heads, n, head_dim)``.
    positions : torch.Tensor or None
        ``(batch, n)``: the position each cached key was given in the text.
    valid : torch.Tensor or None
        ``(batch, n)`` booleans: False for a padding token.
    stream : torch.Tensor or None
        ``(n,)``: the index of each cached token among all tokens read.
    seen : int
        How many tokens have been read: the cache length of a cache that never
        drops a token.

    Examples
    --------
    >>> import torch
    >>> from posenc.serving import KVCache, TinyDecoder
    >>> model = TinyDecoder(vocab_size=16, d_model=16, num_heads=2, num_layers=2, seed=0, dtype=torch.float64)
    >>> tokens = torch.tensor([[3, 1, 4, 1, 5]])

    Reading the prompt in two calls through a cache gives the logits of one call:

    >>> cache = KVCache(model.num_layers)
    >>> _ = model(tokens[:, :4], cache=cache)
    >>> last = model(tokens[:, 4:], cache=cache)
    >>> torch.allclose(last[:, 0], model(tokens)[:, 4])
    True
    >>> cache.positions  # the position each cached key was rotated by
    tensor([[0, 1, 2, 3, 4]])

    A sliding window of 4 with one attention sink keeps token 0 and the three latest:

    >>> cache = KVCache(model.num_layers, window=4, sinks=1)
    >>> for token in [3, 1, 4, 1, 5, 9]:
    ...     _ = model(torch.tensor([[token]]), cache=cache)
    >>> cache
    KVCache(num_layers=2, window=4, sinks=1, rotated=True, reindex=False, slots=4, seen=6)
    >>> cache.stream
    tensor([0, 3, 4, 5])
    """

    def __init__(
        self,
        num_layers: int,
        *,
        window: int | None = None,
        sinks: int = 0,
        rotated: bool = True,
        reindex: bool = False,
    ) -> None:
        self.num_layers = check_int("num_layers", num_layers, minimum=1)
        self.window = None if window is None else check_int("window", window, minimum=1)
        self.sinks = check_int("sinks", sinks)
        if self.sinks and self.window is None:
            raise ValueError(f"sinks needs a window (without one no token is dropped), got sinks={sinks}")
        for name, value in (("rotated", rotated), ("reindex", reindex)):
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{name} must be True or False, got {value!r} of type {type(value).__name__}")
        if reindex and rotated:
            raise ValueError(
                "reindex=True needs rotated=False: keys re-indexed by slot are rotated at every step"
            )
        self.rotated, self.reindex = bool(rotated), bool(reindex)
        self.keys: list[torch.Tensor | None] = [None] * self.num_layers
        self.values: list[torch.Tensor | None] = [None] * self.num_layers
        self.positions: torch.Tensor | None = None
        self.valid: torch.Tensor | None = None
        self.stream: torch.Tensor | None = None
        self.seen = 0

    def __len__(self) -> int:
        """The number of cached tokens (slots)."""
        return 0 if self.stream is None else int(self.stream.numel())

    def __repr__(self) -> str:
        return (
            f"KVCache(num_layers={self.num_layers}, window={self.window}, sinks={self.sinks}, "
            f"rotated={self.rotated}, reindex={self.reindex}, slots={len(self)}, seen={self.seen})"
        )

    def reordered(self, order) -> KVCache:
        """A copy of the cache with its slots in ``order``: the same tokens, stored elsewhere.

        A rolling cache (a ring buffer, slot = position mod the number of slots)
        holds the same keys as a window kept in position order. Attention sums
        over the slots, so their order does not change what it computes.

        Parameters
        ----------
        order : sequence of int or torch.Tensor
            A permutation of ``0 ... len(self) - 1``: slot ``j`` of the copy is
            slot ``order[j]`` of this cache.

        Returns
        -------
        KVCache
            A new cache with the same settings; this one is not changed.

        Raises
        ------
        ValueError
            If the cache is empty, if ``order`` is not a permutation of its slots,
            or if the cache re-indexes (``reindex=True``): there a slot's index is
            its position, so moving a key would change its rotation.

        Examples
        --------
        >>> import torch
        >>> from posenc.serving import KVCache, TinyDecoder
        >>> model = TinyDecoder(
        ...     vocab_size=16, d_model=16, num_heads=2, num_layers=2, seed=0, dtype=torch.float64
        ... )
        >>> cache = KVCache(model.num_layers)
        >>> _ = model(torch.tensor([[3, 1, 4, 1]]), cache=cache)
        >>> rolled = cache.reordered([2, 3, 0, 1])
        >>> rolled.positions
        tensor([[2, 3, 0, 1]])
        >>> nxt = torch.tensor([[5]])
        >>> torch.allclose(model(nxt, cache=cache), model(nxt, cache=rolled))
        True
        """
        if self.reindex:
            raise ValueError(
                "a re-indexing cache (reindex=True) cannot be reordered: a slot's index is its position"
            )
        if self.stream is None:
            raise ValueError("an empty cache has no slots to reorder")
        order = torch.as_tensor(order)
        if order.dtype.is_floating_point or order.dtype == torch.bool or order.ndim != 1:
            raise ValueError(f"order must be a 1-d sequence of slot indices, got {order!r}")
        if not torch.equal(order.sort().values, torch.arange(len(self))):
            raise ValueError(
                f"order must be a permutation of 0 ... {len(self) - 1} (the slots), got {order.tolist()}"
            )
        copy = KVCache(
            self.num_layers, window=self.window, sinks=self.sinks, rotated=self.rotated, reindex=self.reindex
        )
        copy.keys, copy.values = list(self.keys), list(self.values)
        copy.positions, copy.valid, copy.stream, copy.seen = (
            self.positions,
            self.valid,
            self.stream,
            self.seen,
        )
        copy._keep(order)  # indexing makes new tensors: this cache is not changed
        return copy

    def _evict(self) -> None:
        """Drop what the next query must not see: all but the sinks and the last ``window - 1`` tokens."""
        if self.window is None or self.stream is None:
            return
        keep = (self.stream < self.sinks) | (self.stream > self.seen - self.window)
        if bool(keep.all()):
            return
        self._keep(keep.nonzero().flatten())

    def _keep(self, index: torch.Tensor) -> None:
        """Keep the slots ``index``, in that order, in every layer and every per-slot record."""
        for layer in range(self.num_layers):
            if self.keys[layer] is not None:
                self.keys[layer] = self.keys[layer][:, :, index]
                self.values[layer] = self.values[layer][:, :, index]
        self.positions, self.valid, self.stream = (
            self.positions[:, index],
            self.valid[:, index],
            self.stream[index],
        )
