"""The chapters' figures of the encodings themselves, labelled in English, Indonesian or Korean.

Every function returns a ``matplotlib.figure.Figure`` that is already
closed in pyplot, so a notebook shows it exactly once: as the cell's value.
The notebooks call them through :mod:`posenc.plot`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from posenc._checks import check_d_model, check_int
from posenc.encoding import frequencies, sinusoidal_encoding
from posenc.plot._style import check_lang, finish
from posenc.relative import alibi_bias, alibi_slopes, t5_relative_bucket
from posenc.rope import rope_decay_bound, rope_frequencies
from posenc.scaling import scaled_frequencies
from posenc.words import messages

__all__ = [
    "alibi",
    "circle",
    "dot_products",
    "heatmap",
    "index_codes",
    "rope_decay",
    "scaling_ratios",
    "t5_buckets",
    "wavelengths",
    "waves",
]

# Titles and axis labels, the messages plot.figures.* of posenc/locale/<lang>.po, use matplotlib's
# mathtext ($...$) for symbols, so that omega_i, d_model and the like render as in the text. Templates
# are filled in with str.format, hence the doubled braces inside the mathtext.
# Axis labels of the circle figure and of the two blocks of the split heatmap:
# pure mathtext, the same in every language.
_SIN = r"$\sin(\mathrm{{pos}}\,\omega_{{{i}}})$"
_COS = r"$\cos(\mathrm{{pos}}\,\omega_{{{i}}})$"
_LAYOUTS = ("interleaved", "split")


def _labels(lang: str) -> dict:
    check_lang(lang)
    return messages("plot.figures", lang)


def heatmap(num_positions: int = 64, d_model: int = 128, *, layout: str = "interleaved", lang: str = "en"):
    """Heatmap of the table: positions down, dimensions across.

    Parameters
    ----------
    num_positions : int, default 64
        Number of rows, ``pos = 0 ... num_positions - 1``.
    d_model : int, default 128
        Width of the encoding; a positive even integer.
    layout : {"interleaved", "split"}, default "interleaved"
        ``"interleaved"`` draws the columns in the table's order, sine and
        cosine alternating. ``"split"`` draws the ``d_model / 2`` sine columns
        first and the ``d_model / 2`` cosine columns after them, both in
        pair order ``i = 0, 1, ...``, with a line between the two blocks.
    lang : {"en", "id", "ko"}, default "en"
        Language of the title and labels.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from posenc.plot.encodings import heatmap
    >>> fig = heatmap(num_positions=16, d_model=8)
    >>> fig.axes[0].get_title()
    'Sinusoidal positional encoding'
    >>> fig.axes[0].images[0].get_array().shape  # one row per position, one column per dimension
    (16, 8)
    >>> heatmap(16, 8, lang="id").axes[0].get_title()  # the words come from posenc/locale/id.po
    'Positional encoding sinusoidal'
    """
    text = _labels(lang)
    if layout not in _LAYOUTS:
        raise ValueError(f"layout must be one of {_LAYOUTS}, got {layout!r}")
    table = sinusoidal_encoding(num_positions, d_model)
    half = d_model // 2
    if layout == "split":
        # Neighbouring columns of the table alternate between two different
        # functions, which reads as a barcode; grouping them shows each
        # function's smooth change from fast (left) to slow (right).
        table = np.hstack([table[:, 0::2], table[:, 1::2]])
    fig, ax = plt.subplots(figsize=(8, 4))
    image = ax.imshow(table, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
    # A colour bar's short label sits on top, level: a Hangul word turned sideways reads badly.
    fig.colorbar(image, ax=ax).ax.set_title(text["value"], fontsize="medium")
    if layout == "interleaved":
        ax.set(title=text["heatmap"], xlabel=text["dimension"], ylabel=text["position"])
        return finish(fig)
    ax.axvline(half - 0.5, color="black", linewidth=1.5)
    # Bottom axis: the pair index i, restarting at 0 in the cosine block.
    step = max(1, half // 4)
    ticks = np.arange(0, half, step)
    ax.set_xticks(np.concatenate([ticks, half + ticks]), labels=[str(i) for i in ticks] * 2)
    top = ax.secondary_xaxis("top")
    top.set_xticks([(half - 1) / 2, half + (half - 1) / 2], labels=[_SIN.format(i="i"), _COS.format(i="i")])
    top.tick_params(length=0)
    ax.set(title=text["heatmap_split"], xlabel=text["pair"], ylabel=text["position"])
    return finish(fig)


def waves(num_positions: int = 100, d_model: int = 128, dims=(0, 1, 6, 7, 20), *, lang: str = "en"):
    """Chosen columns of the table, one panel each, as curves over position.

    Examples
    --------
    >>> from posenc.plot.encodings import waves
    >>> fig = waves(num_positions=50, d_model=16, dims=(0, 1))
    >>> [len(ax.get_lines()[0].get_ydata()) for ax in fig.axes]  # one panel per dimension, 50 positions
    [50, 50]
    """
    text = _labels(lang)
    table = sinusoidal_encoding(num_positions, d_model)
    dims = [check_int("dims", j) for j in dims]
    if not dims or max(dims) >= d_model:
        raise ValueError(f"dims must be a non-empty list of columns < d_model={d_model}, got {dims}")
    # One panel per column: overlaid, the fast waves hide the slow ones.
    fig, axes = plt.subplots(len(dims), 1, figsize=(8, 1.1 * len(dims) + 1), sharex=True, squeeze=False)
    for ax, j in zip(axes[:, 0], dims, strict=True):
        ax.plot(table[:, j], marker=".", markersize=3, linewidth=1, color=f"C{j % 10}")
        ax.set(ylim=(-1.2, 1.2), yticks=[-1, 0, 1])
        ax.text(
            1.01,
            0.5,
            text["dim"].format(j=j, i=j // 2),
            transform=ax.transAxes,
            va="center",
            fontsize="small",
        )
    axes[0, 0].set_title(text["waves"])
    axes[-1, 0].set_xlabel(text["position"])
    return finish(fig)


def wavelengths(d_model: int = 512, *, base: float = 10000.0, lang: str = "en"):
    """Wavelength ``2 pi / omega_i`` of every pair ``i`` on a log scale.

    Examples
    --------
    >>> from posenc.plot.encodings import wavelengths
    >>> lengths = wavelengths(d_model=64).axes[0].get_lines()[0].get_ydata()
    >>> len(lengths), round(float(lengths[0]), 4), round(float(lengths[-1]))  # 32 pairs, from 2 pi up
    (32, 6.2832, 47117)
    """
    text = _labels(lang)
    wavelength = 2 * np.pi / frequencies(d_model, base)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.semilogy(wavelength, marker=".", linestyle="none")
    ax.axhline(2 * np.pi, color="grey", linewidth=0.8)
    ax.axhline(base * 2 * np.pi, color="grey", linewidth=0.8)
    ax.set(title=text["wavelengths"].format(d=d_model), xlabel=text["pair"], ylabel=text["wavelength"])
    return finish(fig)


def index_codes(lengths=(10, 100), *, position: int = 5, lang: str = "en"):
    r"""The simplest position codes, the index ``pos`` and ``pos / N``, for texts of ``N`` tokens.

    Chapter 2's first try at a position code. Left: ``pos`` itself, which grows
    far beyond the band ``[-1, 1]`` (grey) where sines and cosines stay. Right:
    ``pos / N``, which stays below 1, but gives one position (the grey line)
    a different value in each text length.

    Parameters
    ----------
    lengths : sequence of int, default (10, 100)
        The text lengths ``N``, one curve each in both panels; positive integers.
    position : int, default 5
        The position that the right panel marks with a vertical line.
    lang : {"en", "id", "ko"}, default "en"
        Language of the figure (its labels are mathtext, the same in every language).

    Returns
    -------
    matplotlib.figure.Figure
        Two axes: ``pos`` (left) and ``pos / N`` (right) against ``pos``.

    Raises
    ------
    TypeError
        If a length or ``position`` is not an integer.
    ValueError
        If ``lang`` is not one of the languages, if ``lengths`` is empty or
        holds a length below 1, or if ``position`` is negative.

    Examples
    --------
    >>> from posenc.plot.encodings import index_codes
    >>> left, right = index_codes(lengths=(4, 8)).axes
    >>> [line.get_ydata().tolist() for line in left.get_lines()]  # pos for N = 4 and N = 8
    [[0, 1, 2, 3], [0, 1, 2, 3, 4, 5, 6, 7]]
    >>> [float(line.get_ydata()[2]) for line in right.get_lines()[:2]]  # pos / N at pos 2
    [0.5, 0.25]
    >>> right.get_ylabel()
    '$\\mathrm{pos}/N$'
    """
    check_lang(lang)
    if isinstance(lengths, (str, bytes)) or not hasattr(lengths, "__len__") or not len(lengths):
        raise ValueError(f"lengths must be a non-empty sequence of text lengths N, got {lengths!r}")
    lengths = [check_int("lengths", n, minimum=1) for n in lengths]
    position = check_int("position", position)
    fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3))
    styles = ("o-", ".-", "s-", "^-")
    for n, length in enumerate(lengths):
        pos = np.arange(length)
        style = styles[n % len(styles)]
        left.plot(pos, pos, style, markersize=3, label=f"$N = {length}$")
        right.plot(pos, pos / length, style, markersize=3, label=f"$N = {length}$")
    left.axhspan(-1, 1, color="lightgrey")  # where sines and cosines live
    left.set(xlabel=r"$\mathrm{pos}$", ylabel=r"$\mathrm{pos}$")
    right.axvline(position, color="grey", linewidth=0.8)
    right.set(xlabel=r"$\mathrm{pos}$", ylabel=r"$\mathrm{pos}/N$")
    for ax in (left, right):
        ax.legend()
    return finish(fig)


def dot_products(d_model: int = 128, max_offset: int = 50, positions=(0, 20, 70), *, lang: str = "en"):
    """``PE(p) . PE(p + k)`` against ``k`` for a few starting positions ``p``.

    Examples
    --------
    >>> from posenc.plot.encodings import dot_products
    >>> fig = dot_products(d_model=16, max_offset=10, positions=(0, 5))
    >>> [line.get_label() for line in fig.axes[0].get_lines()]  # one curve per starting position p
    ['$p = 0$', '$p = 5$']
    """
    text = _labels(lang)
    max_offset = check_int("max_offset", max_offset)
    positions = [check_int("positions", p) for p in positions]
    table = sinusoidal_encoding(max(positions) + max_offset + 1, d_model)
    offsets = np.arange(max_offset + 1)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    styles = ("-", "--", ":", "-.")
    for n, p in enumerate(positions):
        dots = table[p + offsets] @ table[p]
        ax.plot(offsets, dots, styles[n % len(styles)], linewidth=2, label=text["p"].format(p=p))
    ax.set(title=text["dots"].format(), xlabel=text["offset"], ylabel=text["dot"])
    ax.legend()
    return finish(fig)


def circle(pair: int = 0, d_model: int = 8, num_positions: int = 6, *, lang: str = "en"):
    r"""Positions ``0 ... num_positions - 1`` of one (sin, cos) pair on the unit circle.

    Examples
    --------
    >>> from posenc.plot.encodings import circle
    >>> fig = circle(pair=0, d_model=8, num_positions=4)
    >>> print(fig.axes[0].get_title())
    Pair $i = 0$: each time $\mathrm{pos}$ grows by 1,
    the point turns by $\omega_{0}$
    """
    text = _labels(lang)
    d_model = check_d_model(d_model)
    pair = check_int("pair", pair)
    if pair >= d_model // 2:
        raise ValueError(f"pair must be < d_model // 2 = {d_model // 2}, got {pair}")
    table = sinusoidal_encoding(num_positions, d_model)
    sin, cos = table[:, 2 * pair], table[:, 2 * pair + 1]
    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    theta = np.linspace(0, 2 * np.pi, 200)
    ax.plot(np.sin(theta), np.cos(theta), color="lightgrey")
    ax.plot(sin, cos, "o-", color="tab:blue")
    for pos, (x, y) in enumerate(zip(sin, cos, strict=True)):
        ax.annotate(f"pos={pos}", (x, y), textcoords="offset points", xytext=(6, 4), fontsize="small")
    ax.set(
        title=text["circle"].format(i=pair),
        xlabel=_SIN.format(i=pair),
        ylabel=_COS.format(i=pair),
        aspect="equal",
        xlim=(-1.3, 1.3),
        ylim=(-1.3, 1.3),
    )
    return finish(fig)


def rope_decay(dim: int = 128, max_distance: int = 256, *, base: float = 10000.0, lang: str = "en"):
    """RoFormer's bound on the RoPE score against the relative distance.

    Plots :func:`posenc.rope_decay_bound`: the mean of ``|S_j|`` over the
    ``dim / 2`` partial sums ``S_j = sum_{k<j} exp(1j r theta_k)``, for
    ``r = 0 ... max_distance``.

    Examples
    --------
    >>> from posenc.plot.encodings import rope_decay
    >>> fig = rope_decay(dim=16, max_distance=32)
    >>> len(fig.axes), len(fig.axes[0].get_lines()) >= 1
    (1, True)
    """
    text = _labels(lang)
    bound = rope_decay_bound(max_distance, dim, base=base)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot(np.arange(bound.size), bound, linewidth=1.5)
    ax.set(
        title=text["decay"].format(d=dim),
        xlabel=text["distance"],
        ylabel=text["bound"].format(),
        xlim=(0, bound.size - 1),
        ylim=(0, None),
    )
    return finish(fig)


def alibi(num_heads: int = 8, seq_len: int = 12, heads=(0, 3, 7), *, causal: bool = True, lang: str = "en"):
    """ALiBi's bias matrices ``-μ_h |m - n|`` for a few heads, side by side.

    ``heads`` are indices into :func:`posenc.alibi_bias`'s heads, from 0; the titles
    count heads from 1, as the book does (index 0 is head 1, slope ``μ_1``). With
    ``causal=True`` the keys after the query (``n > m``), which a causal model masks,
    are left blank.

    Examples
    --------
    >>> from posenc.plot.encodings import alibi
    >>> fig = alibi(num_heads=8, seq_len=6, heads=(0, 7))
    >>> [ax.get_title() for ax in fig.axes[:2]]  # one panel per head, then the colour bar
    ['head 1, slope $\\\\mu_{1} = 0.5$', 'head 8, slope $\\\\mu_{8} = 0.003906$']
    """
    text = _labels(lang)
    bias = alibi_bias(num_heads, seq_len)
    slopes = alibi_slopes(num_heads)
    heads = [check_int("heads", h) for h in heads]
    if not heads or max(heads) >= num_heads:
        raise ValueError(
            f"heads must be a non-empty list of head indices < num_heads={num_heads}, got {heads}"
        )
    # One more, narrow column of the grid holds the colour bar that all panels share.
    fig, axes = plt.subplots(
        1,
        len(heads) + 1,
        figsize=(3.2 * len(heads) + 1, 4.2),
        gridspec_kw={"width_ratios": [1] * len(heads) + [0.08]},
        squeeze=False,
    )
    lowest = min(bias[h].min() for h in heads)
    for ax, h in zip(axes[0], heads, strict=False):
        shown = bias[h].copy()
        if causal:
            shown[np.triu_indices(seq_len, 1)] = np.nan
        image = ax.imshow(shown, cmap="viridis", vmin=lowest, vmax=0, interpolation="nearest")
        ax.set(title=text["alibi_head"].format(h=h + 1, m=slopes[h]), xlabel=text["key"])
    axes[0, 0].set_ylabel(text["query"])
    fig.colorbar(image, cax=axes[0, -1]).ax.set_title(text["bias"], fontsize="medium")
    fig.suptitle(text["alibi"])
    finish(fig)
    fig.subplots_adjust(top=0.8)  # tight_layout leaves no room for the suptitle above the panel titles
    return fig


def t5_buckets(span: int = 200, *, num_buckets: int = 32, max_distance: int = 128, lang: str = "en"):
    """T5's bucket of each relative position ``-span ... span``, encoder and decoder.

    Examples
    --------
    >>> from posenc.plot.encodings import t5_buckets
    >>> [line.get_label() for line in t5_buckets(span=20).axes[0].get_lines()]
    ['encoder (bidirectional)', 'decoder (causal)']
    """
    text = _labels(lang)
    span = check_int("span", span, minimum=1)
    relative = np.arange(-span, span + 1)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for bidirectional, style in ((True, "-"), (False, "--")):
        buckets = t5_relative_bucket(
            relative, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
        )
        label = text["bidirectional" if bidirectional else "unidirectional"]
        ax.step(relative, buckets, style, where="mid", linewidth=1.5, label=label)
    # Beyond max_distance every position shares the last bucket of its side.
    for edge in (-max_distance, max_distance):
        if edge in relative:
            ax.axvline(edge, color="grey", linewidth=0.8, linestyle=":")
    ax.set(
        title=text["t5"].format(n=num_buckets, m=max_distance), xlabel=text["relative"], ylabel=text["bucket"]
    )
    ax.legend()
    return finish(fig)


def scaling_ratios(
    dim: int = 128,
    factor: float = 8.0,
    *,
    base: float = 10000.0,
    original_max_position: int = 4096,
    lang: str = "en",
):
    """``theta'_i / theta_i`` per pair ``i`` for the three recipes of chapter 7: PI, NTK-aware and YaRN.

    YaRN is :func:`posenc.scaled_frequencies`'s default, the ramp of its
    reference code; the methods that checkpoints ship besides these are
    compared in chapter 9.

    Examples
    --------
    >>> from posenc.plot.encodings import scaling_ratios
    >>> fig = scaling_ratios(dim=128, factor=8.0)
    >>> [line.get_label() for line in fig.axes[0].get_lines()][:3]
    ['position interpolation (linear)', 'NTK-aware', 'YaRN ($L = 4096$)']
    """
    text = _labels(lang)
    theta = rope_frequencies(dim, base)
    pairs = np.arange(theta.size)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for method, style in zip(("linear", "ntk", "yarn"), ("-", "--", "-."), strict=True):
        scaled = scaled_frequencies(
            dim, factor, method=method, base=base, original_max_position=original_max_position
        )
        ax.plot(pairs, scaled / theta, style, linewidth=2, label=text[method].format(L=original_max_position))
    # 1: the frequency is kept; 1/s: it is interpolated.
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.axhline(1.0 / factor, color="grey", linewidth=0.8, linestyle=":")
    ax.set(title=text["scaling"].format(s=factor), xlabel=text["pair"], ylabel=text["ratio"], ylim=(0, 1.08))
    ax.legend()
    return finish(fig)
