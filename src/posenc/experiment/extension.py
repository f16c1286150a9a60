"""Reading a trained RoPE model at longer lengths than its training ones, as chapter 7's recipes do.

:func:`~posenc.experiment.rescaled` copies a trained ``"rope"`` :class:`~posenc.experiment.TinyTransformer`
and swaps each layer's rotary embedding for a :class:`~posenc.experiment.RescaledRotary` whose frequencies
come from one of :data:`~posenc.experiment.extension.RECIPES` (or of
:data:`~posenc.experiment.extension.PROBES`, recipes made to test one reading of the results);
:func:`~posenc.experiment.fine_tune` then trains the copy a little at the longer lengths. This module imports
torch, and ``import posenc`` does not import it.
"""

from __future__ import annotations

import copy

import numpy as np
import torch
from torch import nn

from posenc._checks import check_int
from posenc.experiment.model import TinyTransformer
from posenc.experiment.training import Curve, train
from posenc.nn import RotaryEmbedding
from posenc.rope import rope_frequencies
from posenc.scaling import scaled_frequencies, yarn_attention_factor

__all__ = ["PROBES", "RECIPES", "RescaledRotary", "fine_tune", "recipe_frequencies", "rescaled"]


RECIPES = ("unscaled", "linear", "ntk", "dynamic", "yarn", "yarn-paper", "llama3")
"""Ways to read a trained RoPE model at longer lengths (chapter 7), without or with a fine-tune.

``"unscaled"`` keeps the trained frequencies (named so as not to be read as the
variant ``"none"`` of :data:`~posenc.experiment.model.POSITIONS`); ``"linear"`` is position
interpolation; ``"ntk"`` NTK-aware scaling; ``"dynamic"`` dynamic NTK, which
rescales only as far as each sequence needs; ``"yarn"`` YaRN with the ramp of
its reference code (and Hugging Face's), ``"yarn-paper"`` with the paper's
ramp, both with YaRN's attention factor; ``"llama3"`` Llama 3.1's scaling. Each
is :func:`posenc.scaled_frequencies` with ``original_max_position`` the trained
length.
"""


PROBES = ("pi-fastest", "pi-others", "ntk-longest")
"""Recipes no one ships, each made to test one reading of the results.

``"pi-fastest"`` divides only the fastest pair's frequency ``theta_0`` by
``s``; ``"pi-others"`` divides every other pair's and keeps ``theta_0``:
together they make position interpolation. ``"ntk-longest"`` is NTK-aware
scaling at every length with the factor that dynamic NTK uses at the longest
test length ``s * L``, ``s * s - s + 1`` (13 for ``s = 4``).
"""


def recipe_frequencies(
    recipe: str, dim: int, seq_len: int, *, factor: float, original_max_position: int, base: float = 10000.0
) -> tuple[np.ndarray, float]:
    """The frequencies and the query/key scale that ``recipe`` uses for a sequence of ``seq_len`` tokens.

    Parameters
    ----------
    recipe : str
        One of :data:`~posenc.experiment.extension.RECIPES` or :data:`~posenc.experiment.extension.PROBES`.
    dim : int
        Head dimension; a positive even integer.
    seq_len : int
        Length of the sequence to read, >= 1 (dynamic NTK's frequencies depend on it).
    factor : float
        The extension ``s``.
    original_max_position : int
        The longest training length ``L``.
    base : float, default 10000.0
        The trained RoPE base.

    Returns
    -------
    frequencies : numpy.ndarray
        ``dim // 2`` frequencies, from :func:`posenc.scaled_frequencies`.
    scale : float
        What both the rotated queries and keys are multiplied by: YaRN's
        :func:`posenc.yarn_attention_factor` for the two YaRN recipes, 1 otherwise.

    Examples
    --------
    >>> from posenc.experiment.extension import recipe_frequencies
    >>> theta, scale = recipe_frequencies("linear", 8, 64, factor=4.0, original_max_position=16)
    >>> theta.round(8)  # position interpolation: every frequency divided by 4
    array([0.25   , 0.025  , 0.0025 , 0.00025])
    >>> scale
    1.0
    >>> theta, scale = recipe_frequencies("yarn", 8, 64, factor=4.0, original_max_position=16)
    >>> round(scale, 4)  # YaRN also scales the queries and keys: 0.1 ln 4 + 1
    1.1386
    """
    if recipe not in RECIPES + PROBES:
        raise ValueError(f"recipe must be one of {RECIPES + PROBES}, got {recipe!r}")
    seq_len = check_int("seq_len", seq_len, minimum=1)
    if recipe == "unscaled":
        return rope_frequencies(dim, base), 1.0
    if recipe == "ntk-longest":
        return scaled_frequencies(dim, factor * factor - factor + 1, method="ntk", base=base), 1.0
    if recipe in PROBES:
        theta = rope_frequencies(dim, base)
        interpolated = scaled_frequencies(dim, factor, method="linear", base=base)
        fastest = np.arange(theta.size) == 0
        return np.where(fastest == (recipe == "pi-fastest"), interpolated, theta), 1.0
    options = {"base": base, "original_max_position": original_max_position}
    if recipe == "dynamic":
        options["seq_len"] = seq_len
    if recipe.startswith("yarn"):
        options["ramp"] = "paper" if recipe == "yarn-paper" else "code"
    method = "yarn" if recipe.startswith("yarn") else recipe
    scale = yarn_attention_factor(factor) if method == "yarn" else 1.0
    return scaled_frequencies(dim, factor, method=method, **options), scale


class RescaledRotary(nn.Module):
    """A rotary embedding whose frequencies come from a context extension recipe.

    It replaces :class:`posenc.nn.RotaryEmbedding` inside a trained model
    (:func:`~posenc.experiment.rescaled`) and rotates the same way; the tables are made for each
    sequence length, since dynamic NTK's frequencies depend on it, and kept.

    Parameters
    ----------
    dim : int
        Head dimension; a positive even integer.
    recipe : str
        One of :data:`~posenc.experiment.extension.RECIPES` or :data:`~posenc.experiment.extension.PROBES`.
    factor : float
        The extension ``s``.
    original_max_position : int
        The longest training length ``L``.

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment.extension import RescaledRotary
    >>> rotary = RescaledRotary(8, "linear", factor=4.0, original_max_position=16)
    >>> rotary
    RescaledRotary(dim=8, recipe='linear', factor=4.0)
    >>> rotary(torch.ones(1, 2, 64, 8)).shape  # (batch, heads, seq, head_dim)
    torch.Size([1, 2, 64, 8])
    """

    def __init__(self, dim: int, recipe: str, *, factor: float, original_max_position: int) -> None:
        super().__init__()
        self.dim, self.recipe, self.factor = dim, recipe, factor
        self.original_max_position = original_max_position
        # Check the recipe and its arguments now, not at the first forward pass.
        recipe_frequencies(recipe, dim, 1, factor=factor, original_max_position=original_max_position)
        self._tables: dict[int, tuple[RotaryEmbedding, float]] = {}

    def extra_repr(self) -> str:
        return f"dim={self.dim}, recipe={self.recipe!r}, factor={self.factor}"

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        seq_len = x.size(-2)
        if seq_len not in self._tables:
            theta, scale = recipe_frequencies(
                self.recipe,
                self.dim,
                seq_len,
                factor=self.factor,
                original_max_position=self.original_max_position,
            )
            self._tables[seq_len] = (RotaryEmbedding(self.dim, seq_len, frequencies=theta), scale)
        rope, scale = self._tables[seq_len]
        rotated = rope(x)
        return rotated if scale == 1.0 else rotated * scale


def rescaled(model: TinyTransformer, recipe: str, *, factor: float = 4.0, original_max_position: int = 16):
    """A copy of a trained ``rope`` model whose every layer rotates with ``recipe``'s frequencies.

    Parameters
    ----------
    model : TinyTransformer
        A model with ``position="rope"``; it is not changed.
    recipe : str
        One of :data:`~posenc.experiment.extension.RECIPES` or :data:`~posenc.experiment.extension.PROBES`.
    factor : float, default 4.0
        The extension ``s >= 1``: 4 reads 64 tokens with a model trained on 16.
    original_max_position : int, default 16
        The longest training length ``L``.

    Returns
    -------
    TinyTransformer
        The copy, whose every :class:`~posenc.experiment.Attention` rotates with a
        :class:`~posenc.experiment.RescaledRotary`.

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment.extension import rescaled
    >>> from posenc.experiment.model import TinyTransformer
    >>> _ = torch.manual_seed(0)
    >>> model = TinyTransformer(vocab_size=16, position="rope")
    >>> longer = rescaled(model, "linear", factor=4.0, original_max_position=16)
    >>> type(longer.blocks[0].attention.rope).__name__, type(model.blocks[0].attention.rope).__name__
    ('RescaledRotary', 'RotaryEmbedding')
    """
    if not isinstance(model, TinyTransformer) or model.position != "rope":
        raise ValueError(f"model must be a TinyTransformer with position='rope', got {model!r:.60}")
    copied = copy.deepcopy(model)
    for block in copied.blocks:
        dim = block.attention.rope.dim
        block.attention.rope = RescaledRotary(
            dim, recipe, factor=factor, original_max_position=original_max_position
        )
    return copied


def fine_tune(
    model: TinyTransformer, task: str, *, steps: int = 150, lengths=(32, 64), lr: float = 1e-3, seed: int = 0
) -> Curve:
    """Train an already trained ``model`` a little longer at longer lengths, in place.

    :func:`~posenc.experiment.train` with the fine-tune's own data stream (so the batches are
    new), a smaller peak learning rate, and lengths drawn from ``lengths``:
    by default 150 steps at 32 to 64 tokens, as position interpolation's paper
    fine-tunes briefly at the extended length.

    Parameters
    ----------
    model : TinyTransformer
        The trained model, changed in place.
    task : {"order", "relative"}
        The task.
    steps : int, default 150
        Training steps.
    lengths : tuple of int, default (32, 64)
        The shortest and longest sequence length of the batches.
    lr : float, default 1e-3
        Peak learning rate.
    seed : int, default 0
        Seed of the fine-tune's batches.

    Returns
    -------
    Curve
        The fine-tune's learning curve.

    Examples
    --------
    >>> import torch
    >>> from posenc.experiment.extension import fine_tune, rescaled
    >>> from posenc.experiment.model import TinyTransformer
    >>> _ = torch.manual_seed(0)
    >>> model = rescaled(TinyTransformer(vocab_size=16, position="rope"), "linear")
    >>> fine_tune(model, "relative", steps=10, lengths=(32, 64)).steps  # one point: fewer steps than 25
    [10]
    """
    return train(model, task, steps=steps, lengths=lengths, lr=lr, seed=seed, stream=2)
