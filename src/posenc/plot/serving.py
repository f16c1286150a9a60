"""Chapter 9's figure of the positions a server gives, labelled in English, Indonesian or Korean.

It draws what :func:`posenc.positions_from_mask`, :func:`posenc.packed_position_ids` and
:func:`posenc.packed_attention_mask` return, so it needs NumPy and matplotlib only (no torch).
Like every figure, it is closed in pyplot, and the notebooks call it through :mod:`posenc.plot`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap

from posenc._checks import check_int
from posenc.plot._style import check_lang, finish
from posenc.positions import packed_attention_mask, packed_position_ids, positions_from_mask
from posenc.words import messages

__all__ = ["serving_positions"]

_PAD = "#d9d9d9"  # grey: a pad token, which no query sees
_CELL = "#ffffff"
_SEEN = "#2c6fbb"  # blue: a key the query attends to
_ACROSS = "#d7301f"  # red: a key of another document, which the causal mask alone lets through


def _grid(ax, values, pad, *, fontsize: float) -> None:
    """An annotated grid of integers: a white cell per value, grey where ``pad`` is True."""
    rows, columns = values.shape
    ax.imshow(pad.astype(int), cmap=ListedColormap([_CELL, _PAD]), vmin=0, vmax=1, aspect="equal")
    for r in range(rows):
        for c in range(columns):
            colour = "#707070" if pad[r, c] else "black"
            ax.text(c, r, str(values[r, c]), ha="center", va="center", fontsize=fontsize, color=colour)
    _cell_lines(ax, rows, columns, colour="#9a9a9a", width=0.6)


def _cell_lines(ax, rows: int, columns: int, *, colour: str, width: float) -> None:
    """Thin lines around every cell of a ``rows`` x ``columns`` image, and no ticks."""
    ax.set_xticks(np.arange(columns + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(rows + 1) - 0.5, minor=True)
    ax.grid(which="minor", color=colour, linewidth=width)
    ax.tick_params(which="both", length=0)
    ax.set_xticks([])
    ax.set_yticks([])


def _boundaries(ax, lengths, size: int) -> None:
    """Dark lines between the documents of a packed row, across a grid of ``size`` cells."""
    for edge in np.cumsum(lengths)[:-1]:
        ax.axvline(edge - 0.5, color="black", linewidth=1.6)
        if size > 1:
            ax.axhline(edge - 0.5, color="black", linewidth=1.6)


def serving_positions(pads: int = 3, lengths=(6, 3, 5), *, lang: str = "en"):
    """Position ids and masks of a left-padded batch and a packed row, as the chapter computes them.

    Two columns: on the left what chapter 9 does, on the right the alternative its text compares.
    Row 1, a batch of two prompts of ``pads + 4`` tokens, the short one left-padded by ``pads``:
    positions from the attention mask (:func:`posenc.positions_from_mask`) against the column
    index (the cache length), which shifts the short row by ``pads``. Row 2, documents of
    ``lengths`` packed into one row: positions restarted per document
    (:func:`posenc.packed_position_ids`) against running on. Row 3, the same row's mask: the
    block-diagonal causal mask (:func:`posenc.packed_attention_mask`) against the causal mask
    alone, whose keys in another document are drawn red.

    Parameters
    ----------
    pads : int, default 3
        Pad tokens of the short prompt (at least 1); the long prompt has ``pads + 4`` tokens.
    lengths : sequence of int, default (6, 3, 5)
        Lengths of the packed documents, each at least 1, at least two documents.
    lang : {"en", "id", "ko"}, default "en"
        The language of the titles.

    Returns
    -------
    matplotlib.figure.Figure
        Six panels (axes 0 to 5, row by row), closed in pyplot.

    Raises
    ------
    ValueError
        If ``lang`` is unknown, ``pads`` is below 1 or ``lengths`` has fewer than two documents
        or a length below 1.
    TypeError
        If ``pads`` or a length is not an integer.

    Examples
    --------
    >>> from posenc.plot.serving import serving_positions
    >>> fig = serving_positions()
    >>> [text.get_text() for text in fig.axes[2].texts][:8]  # positions restart at 0
    ['0', '1', '2', '3', '4', '5', '0', '1']
    >>> int(fig.axes[4].images[0].get_array().sum())  # pairs the block mask keeps
    42
    """
    check_lang(lang)
    text = messages("plot.serving", lang)
    pads = check_int("pads", pads, minimum=1)
    lengths = [check_int("lengths", n, minimum=1) for n in lengths]
    if len(lengths) < 2:
        raise ValueError(f"lengths must hold at least two documents, got {lengths}")

    width = pads + 4
    mask = np.ones((2, width), dtype=int)
    mask[0, :pads] = 0
    from_mask = positions_from_mask(mask)
    from_column = np.tile(np.arange(width), (2, 1))
    total = sum(lengths)
    reset = packed_position_ids(lengths)[None, :]
    running = np.arange(total)[None, :]
    block = packed_attention_mask(lengths).astype(int)
    causal = np.tril(np.ones((total, total), dtype=int))

    fig, axes = plt.subplots(3, 2, figsize=(8.0, 7.4), gridspec_kw={"height_ratios": [2.2, 1.0, 7.0]})
    small = 9.5 if total <= 16 else 7.0
    _grid(axes[0, 0], from_mask, mask == 0, fontsize=11)
    _grid(axes[0, 1], from_column, mask == 0, fontsize=11)
    for ax, values in ((axes[1, 0], reset), (axes[1, 1], running)):
        _grid(ax, values, np.zeros_like(values, dtype=bool), fontsize=small)
        _boundaries(ax, lengths, 1)
    axes[2, 0].imshow(block, cmap=ListedColormap([_CELL, _SEEN]), vmin=0, vmax=1)
    across = causal + (causal - block)  # 0 masked, 1 same document, 2 another document
    axes[2, 1].imshow(across, cmap=ListedColormap([_CELL, _SEEN, _ACROSS]), vmin=0, vmax=2)
    for ax in axes[2]:
        _cell_lines(ax, total, total, colour="#c8c8c8", width=0.4)
        ax.set_xlabel(text["key"], fontsize=10)
        # not turned sideways, so that a Korean label reads as text
        ax.set_ylabel(text["query"], fontsize=10, rotation=0, ha="right", va="center")
        _boundaries(ax, lengths, total)

    titles = (
        (text["mask_positions"], text["cache_positions"].format(pads=pads)),
        (text["reset"], text["running"]),
        (text["block"], text["causal"]),
    )
    for row, pair in zip(axes, titles, strict=True):
        for ax, title in zip(row, pair, strict=True):
            ax.set_title(title, fontsize=10)
    fig.suptitle(text["title"], fontsize=11)
    finish(fig)
    return fig
