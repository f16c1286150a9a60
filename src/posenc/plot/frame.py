"""One frame of a figure a reader can move, drawn by matplotlib from the figure's plotly JSON.

:meth:`posenc.plot.interactive.InteractiveFigure.png` draws the slider's active
step with :func:`~posenc.plot.draw_frame` for the PDF, the EPUB and readers without
JavaScript. This module reads plotly's JSON only: it imports neither
:mod:`posenc.plot.interactive` nor the figures' definitions (:mod:`posenc.plot.sliders`).
"""

from __future__ import annotations

import re

import matplotlib.pyplot as plt

import posenc.plot._style  # noqa: F401  (the fonts: Hangul in the Korean frames)

__all__ = ["draw_frame"]

# Plotly writes subscripts as <sub>…</sub> and breaks lines with <br>; the PNG frame draws them
# with Unicode subscripts, which DejaVu Sans has (the Korean pages' web font may not).
_SUBSCRIPT = str.maketrans("0123456789i", "₀₁₂₃₄₅₆₇₈₉ᵢ")
_SUB = re.compile(r"<sub>(.*?)</sub>")


def _plain(text: str) -> str:
    """Plotly's text markup as matplotlib draws it: subscripts in Unicode, <br> as a new line."""
    return _SUB.sub(lambda match: match[1].translate(_SUBSCRIPT), text).replace("<br>", "\n")


_DASHES = {"solid": "-", "dash": "--", "dot": ":", "dashdot": "-."}


def _frame_axes(fig, layout: dict, xaxis: str, yaxis: str, size: tuple):
    """The matplotlib axes at the place of plotly's axes ``xaxis``/``yaxis`` (e.g. "x2", "y2")."""
    x_layout = layout.get("xaxis" + xaxis[1:], {})
    y_layout = layout.get("yaxis" + yaxis[1:], {})
    (x0, x1), (y0, y1) = x_layout.get("domain", [0, 1]), y_layout.get("domain", [0, 1])
    left, bottom = _paper_to_figure(layout, size, x0, y0)
    right, top = _paper_to_figure(layout, size, x1, y1)
    ax = fig.add_axes([left, bottom, right - left, top - bottom])
    for axis, spec in (("x", x_layout), ("y", y_layout)):
        if spec.get("type") == "log":
            getattr(ax, f"set_{axis}scale")("log")
        if "range" in spec:
            low, high = spec["range"]
            if spec.get("type") == "log":  # plotly gives a log axis's range in powers of ten
                low, high = 10.0**low, 10.0**high
            getattr(ax, f"set_{axis}lim")(low, high)
        getattr(ax, f"set_{axis}label")(_plain(spec.get("title", {}).get("text", "")))
    if "scaleanchor" in y_layout:
        ax.set_aspect("equal", adjustable="box")
    ax.grid(color="#eeeeee")
    return ax


def draw_frame(data: list, layout: dict):
    """One frame of a plotly figure of scatter traces, drawn by matplotlib.

    Understands what the figures of :mod:`posenc.plot.sliders` use: subplots placed by axis
    domains, lines (colour, dash), markers, text, log axes, fixed ranges,
    equal aspect, annotations and a title in paper coordinates, a legend, and
    the slider's current value, written at the top left.

    Parameters
    ----------
    data : list of dict
        Plotly scatter traces.
    layout : dict
        Their plotly layout, with a ``height`` (and a ``width``, default 800) in pixels.

    Returns
    -------
    matplotlib.figure.Figure
        Closed in pyplot, of the layout's size at 100 dpi.

    Examples
    --------
    >>> from posenc.plot.frame import draw_frame
    >>> from posenc.plot.sliders import rotation_slider
    >>> figure = rotation_slider()
    >>> fig = draw_frame(figure.frame(), figure.layout)  # the frame its slider shows first
    >>> [round(float(size)) for size in fig.get_size_inches() * fig.dpi] == [
    ...     figure.layout.get("width", 800), figure.layout["height"]]
    True
    """
    size = (layout.get("width", 800), layout["height"])
    fig = plt.figure(figsize=(size[0] / 100, size[1] / 100))
    axes = {}
    for trace in data:
        where = (trace.get("xaxis", "x"), trace.get("yaxis", "y"))
        if where not in axes:
            axes[where] = _frame_axes(fig, layout, *where, size)
        ax, mode = axes[where], trace.get("mode", "lines")
        label = trace.get("name") if trace.get("showlegend", True) and trace.get("name") else None
        line, marker = trace.get("line", {}), trace.get("marker", {})
        color = line.get("color") or marker.get("color")
        x, y = trace.get("x", []), trace.get("y", [])
        if "lines" in mode:
            ax.plot(
                x,
                y,
                _DASHES[line.get("dash", "solid")],
                color=color,
                linewidth=0.75 * line.get("width", 2),
                label=label,
            )
            label = None
        if "markers" in mode:
            sizes = marker.get("size", 6)
            sizes = sizes if isinstance(sizes, list) else [sizes] * len(x)
            ax.scatter(x, y, s=[(0.75 * s) ** 2 for s in sizes], color=color, zorder=3, label=label)
        if "text" in mode:
            font = trace.get("textfont", {})
            for xi, yi, words in zip(x, y, trace.get("text", []), strict=False):
                ax.text(xi, yi, _plain(words), ha="center", va="center", color=font.get("color", "black"))
    for annotation in layout.get("annotations", []):
        fig.text(
            *_paper_to_figure(layout, size, annotation["x"], annotation["y"]),
            _plain(annotation["text"]),
            ha="center",
            va="bottom",
        )
    fig.suptitle(
        _plain(layout.get("title", {}).get("text", "")), fontsize="medium", y=1 - 10 / size[1], va="top"
    )
    handles = [h for ax in axes.values() for h in ax.get_legend_handles_labels()[0]]
    if handles:
        fig.legend(
            handles=handles,
            loc="upper center",
            ncol=len(handles),
            frameon=False,
            bbox_to_anchor=(0.5, 1 - 55 / size[1]),
        )
    slider = layout["sliders"][0]
    current = slider["steps"][slider.get("active", 0)]["label"]
    # The slider's value, at the top left: the PNG is cropped to what is drawn, without the slider's space.
    fig.text(
        0.02, 1 - 40 / size[1], slider.get("currentvalue", {}).get("prefix", "") + current, fontsize="large"
    )
    # Not posenc.plot._style.finish: the frame keeps plotly's placement, and its plain texts (no
    # mathtext) take DejaVu Sans first, whose ω and subscripts NanumGothic would draw too small.
    plt.close(fig)
    return fig


def _paper_to_figure(layout: dict, size: tuple, x: float, y: float) -> tuple:
    """Plotly's paper coordinates (0 … 1 across the plot area, inside the margins) as figure fractions."""
    width, height = size
    margin = layout.get("margin", {})
    left, right, top, bottom = (margin.get(side, 80) for side in "lrtb")
    return (left + x * (width - left - right)) / width, (bottom + y * (height - top - bottom)) / height
