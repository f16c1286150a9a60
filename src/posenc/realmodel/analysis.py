"""What a trained decoder does with position: its queries and keys per pair, its attention by distance.

Chapter 10 reads SmolLM2-135M with these functions. :func:`queries_and_keys` runs a text through a
:class:`~posenc.serving.TinyDecoder` once and keeps every layer's queries and keys before the rotation;
:func:`pair_norm_shares` says how their size spreads over RoPE's pairs; :func:`attention_weights`
rotates them and applies the causal softmax, as the decoder does; :func:`attention_by_distance`,
:func:`sink_shares` and :func:`classify_heads` summarise a layer's weights per head.
"""

from __future__ import annotations

import numpy as np
import torch

from posenc._checks import check_int
from posenc.rope import apply_rope, check_layout
from posenc.serving import TinyDecoder

__all__ = [
    "HEAD_CLASSES",
    "attention_by_distance",
    "attention_weights",
    "classify_heads",
    "pair_norm_shares",
    "queries_and_keys",
    "sink_shares",
]

HEAD_CLASSES = ("sink", "local", "content")
"""The classes of :func:`classify_heads`, in the order its rule tests them."""


def pair_norm_shares(x, layout: str = "half") -> np.ndarray:
    """How the size of query or key vectors spreads over RoPE's pairs: each pair's share of the mean norm.

    Pair ``i`` of a vector ``x`` is a point in a plane; its length ``|x_pair_i|`` is what RoPE keeps
    (a rotation moves the point, not its distance to the origin). The share of pair ``i`` is the mean of
    that length over every vector, divided by the sum of these means over the pairs.

    Parameters
    ----------
    x : array_like or torch.Tensor
        Vectors of shape ``(..., head_dim)``, ``head_dim`` even.
    layout : {"half", "interleaved"}, default "half"
        Which features form pair ``i``: ``i`` and ``i + head_dim / 2`` (Hugging Face's ``rotate_half``),
        or ``2 i`` and ``2 i + 1``.

    Returns
    -------
    numpy.ndarray
        ``head_dim // 2`` shares that add up to 1, pair 0 (the fastest) first.

    Raises
    ------
    ValueError
        For an odd last axis, an unknown layout, or vectors that are all zero.

    Examples
    --------
    Two pairs in the half layout: features 0 and 2 form pair 0, features 1 and 3 pair 1.

    >>> from posenc.realmodel.analysis import pair_norm_shares
    >>> pair_norm_shares([[3.0, 0.0, 4.0, 1.0]])  # lengths 5 and 1
    array([0.83333333, 0.16666667])
    >>> pair_norm_shares([[3.0, 4.0, 0.0, 1.0]], layout="interleaved")
    array([0.83333333, 0.16666667])
    """
    values = x.detach().double().cpu().numpy() if torch.is_tensor(x) else np.asarray(x, float)
    if values.ndim < 1 or values.shape[-1] < 2 or values.shape[-1] % 2:
        raise ValueError(f"x must have an even last axis of head_dim features, got {values.shape}")
    half = values.shape[-1] // 2
    if check_layout(layout) == "half":
        first, second = values[..., :half], values[..., half:]
    else:
        first, second = values[..., 0::2], values[..., 1::2]
    norms = np.hypot(first, second).reshape(-1, half).mean(axis=0)
    total = norms.sum()
    if not total > 0:
        raise ValueError("x must hold at least one nonzero vector")
    return norms / total


def queries_and_keys(model: TinyDecoder, token_ids) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Every layer's queries and keys for one text, before the rotation, from one pass of ``model``.

    Parameters
    ----------
    model : TinyDecoder
        Any posenc decoder, e.g. :func:`~posenc.realmodel.load_decoder`'s.
    token_ids : torch.Tensor
        Integer ids, ``(seq_len,)`` or ``(1, seq_len)``.

    Returns
    -------
    list of tuple of (torch.Tensor, torch.Tensor)
        One ``(q, k)`` per layer: ``q`` of shape ``(num_heads, seq_len, head_dim)``, ``k`` of shape
        ``(num_kv_heads, seq_len, head_dim)``, in the model's layout (``"half"``), not yet rotated.

    Examples
    --------
    >>> import torch
    >>> from posenc.realmodel.analysis import queries_and_keys
    >>> from posenc.serving import TinyDecoder
    >>> model = TinyDecoder(vocab_size=16, d_model=16, num_heads=4, num_layers=2, seed=0,
    ...                     num_kv_heads=2)
    >>> q, k = queries_and_keys(model, torch.tensor([3, 1, 4, 1, 5]))[1]
    >>> tuple(q.shape), tuple(k.shape)
    ((4, 5, 4), (2, 5, 4))
    """
    if not isinstance(model, TinyDecoder):
        raise TypeError(f"model must be a posenc.serving.TinyDecoder, got {type(model).__name__}")
    ids = torch.as_tensor(token_ids)
    if ids.dim() == 1:
        ids = ids[None]
    if ids.dim() != 2 or ids.shape[0] != 1:
        raise ValueError(f"token_ids must have shape (seq_len,) or (1, seq_len), got {tuple(ids.shape)}")
    found: list[tuple[torch.Tensor, torch.Tensor]] = []

    def keep(module, inputs, output, attn):
        # The layer's normalised input: the same projections as the decoder's own.
        found.append((attn.heads(attn.q_proj(output))[0], attn.heads(attn.k_proj(output))[0]))

    hooks = [
        layer.input_layernorm.register_forward_hook(
            lambda module, inputs, output, attn=layer.self_attn: keep(module, inputs, output, attn)
        )
        for layer in model.model.layers
    ]
    try:
        with torch.no_grad():
            model.hidden_states(ids)
    finally:
        for hook in hooks:
            hook.remove()
    return found


def attention_weights(q, k, frequencies, *, attention_factor: float = 1.0) -> torch.Tensor:
    """The causal attention weights of one layer: rotate ``q`` and ``k`` (half layout), softmax.

    Parameters
    ----------
    q : torch.Tensor
        Queries ``(num_heads, seq_len, head_dim)``, not rotated (:func:`queries_and_keys`).
    k : torch.Tensor
        Keys ``(num_kv_heads, seq_len, head_dim)``; ``num_heads`` a multiple of ``num_kv_heads``
        (grouped-query attention: consecutive query heads share a key head).
    frequencies : array_like
        ``head_dim // 2`` frequencies, e.g. ``model.frequencies``.
    attention_factor : float, default 1.0
        The factor on the cos and sin tables (as the decoder's).

    Returns
    -------
    torch.Tensor
        ``(num_heads, seq_len, seq_len)``: row ``m`` of head ``h`` is query ``m``'s weights over the
        keys ``0 ... m`` (zero after ``m``), adding up to 1.

    Examples
    --------
    >>> import torch
    >>> from posenc.realmodel.analysis import attention_weights
    >>> q, k = torch.zeros(2, 3, 4), torch.zeros(1, 3, 4)
    >>> attention_weights(q, k, [1.0, 0.01])[1]  # equal scores: equal weights
    tensor([[1.0000, 0.0000, 0.0000],
            [0.5000, 0.5000, 0.0000],
            [0.3333, 0.3333, 0.3333]])
    """
    q, k = torch.as_tensor(q), torch.as_tensor(k)
    if q.dim() != 3 or k.dim() != 3 or q.shape[1:] != k.shape[1:]:
        raise ValueError(
            "q and k must have shapes (num_heads, seq_len, head_dim) and (num_kv_heads, seq_len, "
            f"head_dim), got {tuple(q.shape)} and {tuple(k.shape)}"
        )
    if q.shape[0] % k.shape[0]:
        raise ValueError(f"q's heads ({q.shape[0]}) must be a multiple of k's ({k.shape[0]})")
    rotate = dict(layout="half", frequencies=frequencies, attention_factor=attention_factor)
    q, k = apply_rope(q, **rotate), apply_rope(k, **rotate)
    k = k.repeat_interleave(q.shape[0] // k.shape[0], dim=0)
    scores = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
    future = torch.ones(scores.shape[-2:], dtype=torch.bool).triu(diagonal=1)
    return torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)


def _check_weights(weights, start: int) -> torch.Tensor:
    weights = torch.as_tensor(weights)
    if weights.dim() != 3 or weights.shape[1] != weights.shape[2]:
        raise ValueError(f"weights must have shape (num_heads, seq_len, seq_len), got {tuple(weights.shape)}")
    start = check_int("start", start, minimum=1)
    if start >= weights.shape[1]:
        raise ValueError(f"start must be below seq_len = {weights.shape[1]}, got {start}")
    return weights


def attention_by_distance(weights, max_distance: int, *, start: int | None = None) -> np.ndarray:
    """Each head's mean weight on the key ``Δ = m - n`` positions back, for ``Δ = 0 ... max_distance``.

    Parameters
    ----------
    weights : torch.Tensor
        ``(num_heads, seq_len, seq_len)``, from :func:`attention_weights`.
    max_distance : int
        The largest ``Δ``, >= 0.
    start : int, optional
        The first query averaged over, >= ``max_distance`` and >= 1 (every query has all the keys);
        default ``max(1, max_distance)``.

    Returns
    -------
    numpy.ndarray
        ``(num_heads, max_distance + 1)``: entry ``[h, Δ]`` is the mean over queries ``m >= start`` of
        query ``m``'s weight on key ``m - Δ``.

    Examples
    --------
    >>> import torch
    >>> from posenc.realmodel.analysis import attention_by_distance
    >>> previous = torch.diag(torch.ones(3), -1)[None]  # every query looks one back
    >>> attention_by_distance(previous, 2, start=2)
    array([[0., 1., 0.]])
    """
    max_distance = check_int("max_distance", max_distance)
    first = max(1, max_distance) if start is None else start
    weights = _check_weights(weights, first)
    if first < max_distance:
        raise ValueError(f"start must be at least max_distance = {max_distance}, got {first}")
    rows = torch.arange(first, weights.shape[1])
    return np.stack(
        [weights[:, rows, rows - delta].double().mean(dim=1).numpy() for delta in range(max_distance + 1)],
        axis=1,
    )


def sink_shares(weights, *, start: int = 16) -> np.ndarray:
    """Each head's mean weight on the first token, over the queries ``m >= start``.

    Examples
    --------
    >>> import torch
    >>> from posenc.realmodel.analysis import sink_shares
    >>> sink = torch.zeros(1, 4, 4)
    >>> sink[0, :, 0] = 1.0  # every query on the first token
    >>> sink_shares(sink, start=1)
    array([1.])
    """
    weights = _check_weights(weights, start)
    return weights[:, start:, 0].double().mean(dim=1).numpy()


def classify_heads(weights, *, window: int = 4, threshold: float = 0.5, start: int = 16) -> list[str]:
    """Name each head by where its weight goes, over the queries ``m >= start``.

    The rule, in order: ``"sink"`` if the mean weight on the first token is at least ``threshold``;
    ``"local"`` if the mean weight on the keys ``0 <= m - n <= window`` (the first token left out) is at
    least ``threshold``; ``"content"`` otherwise (the weight goes elsewhere, wherever the text leads).

    Parameters
    ----------
    weights : torch.Tensor
        ``(num_heads, seq_len, seq_len)``, from :func:`attention_weights`.
    window : int, default 4
        The farthest key counted as local, >= 0.
    threshold : float, default 0.5
        The share that decides, strictly between 0 and 1.
    start : int, default 16
        The first query counted, > ``window``.

    Returns
    -------
    list of str
        One of :data:`HEAD_CLASSES` per head.

    Examples
    --------
    >>> import torch
    >>> from posenc.realmodel.analysis import classify_heads
    >>> seq = 32
    >>> sink = torch.zeros(seq, seq); sink[:, 0] = 1.0
    >>> local = torch.eye(seq)
    >>> spread = torch.ones(seq, seq).tril() / torch.arange(1, seq + 1)[:, None]
    >>> classify_heads(torch.stack([sink, local, spread]))
    ['sink', 'local', 'content']
    """
    window = check_int("window", window)
    if not 0 < float(threshold) < 1:
        raise ValueError(f"threshold must be strictly between 0 and 1, got {threshold}")
    start = check_int("start", start, minimum=1)
    if start <= window:
        raise ValueError(f"start must be larger than window = {window}, got {start}")
    sinks = sink_shares(weights, start=start)
    near = attention_by_distance(weights, window, start=start).sum(axis=1)
    return [
        "sink" if sink >= threshold else "local" if local >= threshold else "content"
        for sink, local in zip(sinks, near, strict=True)
    ]
