"""Figures a reader can move: plotly JSON with one slider, as
:class:`posenc.plot.interactive.InteractiveFigure`.

Each function computes every step of its slider with the chapters' own
functions; :mod:`posenc.plot.frame` draws the active step for the PDF, the EPUB and
readers without JavaScript. Plotly draws plain text, so these labels write
symbols in Unicode, not mathtext. The notebooks call them through
:mod:`posenc.plot`.
"""

from __future__ import annotations

import numpy as np

from posenc._checks import check_d_model, check_int
from posenc.encoding import frequencies, sinusoidal_encoding
from posenc.plot._style import check_lang
from posenc.plot.interactive import SLIDER_SPACE, InteractiveFigure, rounded
from posenc.rope import rope_decay_bound
from posenc.words import messages

__all__ = ["BASES", "ROPE_BASES", "base_slider", "rope_slider", "rotation_slider"]

BASES = (100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000)
"""The bases a reader can choose on :func:`~posenc.plot.base_slider`."""

ROPE_BASES = (100, 1000, 10000, 100000, 500000, 1000000)
"""The bases a reader can choose on :func:`~posenc.plot.rope_slider`."""

_GREY, _BLUE, _ORANGE = "#999999", "#1f77b4", "#ff7f0e"

# Below the plot: the x-axis title, then plotly's slider (hidden on the site, whose script puts a
# labelled range input under the figure instead).
_AXIS_SPACE = 60


def _moving_text(lang: str) -> dict:
    """The figures' words in ``lang``: the messages plot.sliders.* of posenc/locale/<lang>.po."""
    check_lang(lang)  # the same check, and the same message, as every other figure
    return messages("plot.sliders", lang)


def _number(value: float, text: dict) -> str:
    """``value`` with the language's thousands separator: 10,000; in Indonesian a narrow space."""
    return f"{value:,.0f}".replace(",", text["thousands"]) if value >= 1000 else f"{value:g}"


def _axis(title: str, **options) -> dict:
    return {"title": {"text": title}, "zeroline": False, **options}


def _slider(steps: list, active: int, prefix: str) -> dict:
    # Plotly's slider sits under the x-axis title.
    return {
        "active": active,
        "currentvalue": {"prefix": prefix},
        "pad": {"t": _AXIS_SPACE},
        "steps": steps,
    }


def _check_bases(bases, base) -> tuple[list, int]:
    """The slider's bases as floats, and the index of the starting ``base`` among them."""
    try:
        bases = [float(b) for b in bases]
    except (TypeError, ValueError):
        raise ValueError(f"bases must be finite numbers > 1, got {bases!r}") from None
    if not bases or not all(np.isfinite(b) and b > 1 for b in bases):
        raise ValueError(f"bases must be finite numbers > 1, got {bases}")
    return bases, _check_choice("base", base, bases)


def _check_choice(name: str, value, choices) -> int:
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return list(choices).index(value)


def rotation_slider(
    d_model: int = 128,
    pairs=(0, 8, 16, 32),
    *,
    pos: int = 20,
    max_offset: int = 50,
    offset: int = 5,
    lang="en",
):
    """PE(pos) and PE(pos + k) on the circles of several pairs, with a slider for ``k``.

    Parameters
    ----------
    d_model : int, default 128
        Width of the encoding; a positive even integer.
    pairs : sequence of int, default (0, 8, 16, 32)
        Pair indices ``i < d_model / 2``, one circle each, two circles per row.
    pos : int, default 20
        The fixed position; the slider moves ``pos + k``.
    max_offset : int, default 50
        The slider runs over ``k = 0 ... max_offset``.
    offset : int, default 5
        The slider's starting ``k``, which the PNG frame shows.
    lang : {"en", "id", "ko"}, default "en"

    Returns
    -------
    posenc.plot.interactive.InteractiveFigure

    Examples
    --------
    >>> from posenc.plot.sliders import rotation_slider
    >>> figure = rotation_slider()
    >>> figure.div_id, len(figure.steps), figure.active  # the page's <div>, the slider's steps, the one shown
    ('posenc-fig-rotation-shift', 51, 5)
    """
    text = _moving_text(lang)
    d_model = check_d_model(d_model)
    pos, max_offset = check_int("pos", pos), check_int("max_offset", max_offset)
    pairs = [check_int("pairs", i) for i in pairs]
    if not pairs or max(pairs) >= d_model // 2 or len(set(pairs)) != len(pairs):
        raise ValueError(f"pairs must be distinct pair indices < d_model // 2 = {d_model // 2}, got {pairs}")
    offset = _check_choice("offset", offset, range(max_offset + 1))
    omega = frequencies(d_model)[pairs]
    table = sinusoidal_encoding(pos + max_offset + 1, d_model)[pos:]  # rows pos ... pos + max_offset
    sin, cos = table[:, 0::2][:, pairs], table[:, 1::2][:, pairs]

    rows = (len(pairs) + 1) // 2
    row_height = 1 / rows
    theta = np.linspace(0, 2 * np.pi, 145)  # the circle, smooth at 2.5 degrees a side
    data, layout, moving = [], {}, []
    annotations = []
    for n, i in enumerate(pairs):
        axis = "" if n == 0 else str(n + 1)
        row, column = divmod(n, 2)
        top = 1 - row * row_height
        layout[f"xaxis{axis}"] = _axis(
            f"sin(pos·ω<sub>{i}</sub>)",
            domain=[0.0, 0.42] if column == 0 else [0.58, 1.0],
            range=[-1.3, 1.3],
            anchor=f"y{axis}",
        )
        layout[f"yaxis{axis}"] = _axis(
            f"cos(pos·ω<sub>{i}</sub>)",
            domain=[top - row_height + 0.18 / rows, top - 0.07 / rows],
            range=[-1.3, 1.3],
            anchor=f"x{axis}",
            scaleanchor=f"x{axis}",
        )
        where = {"xaxis": f"x{axis}", "yaxis": f"y{axis}"}
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": rounded(np.sin(theta), decimals=4),
                "y": rounded(np.cos(theta), decimals=4),
                "line": {"color": "#cccccc"},
                "hoverinfo": "skip",
                "showlegend": False,
                **where,
            }
        )
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": "PE(pos)",
                "x": [0.0, *rounded(sin[:1, n], decimals=4)],
                "y": [0.0, *rounded(cos[:1, n], decimals=4)],
                "line": {"color": _BLUE},
                "marker": {"size": [0, 10], "color": _BLUE},
                "legendgroup": "pos",
                "showlegend": n == 0,
                **where,
            }
        )
        moving.append(len(data))
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": "PE(pos + k)",
                "x": [],
                "y": [],
                "line": {"color": _ORANGE, "dash": "dash"},
                "marker": {"size": [0, 10], "color": _ORANGE},
                "legendgroup": "shift",
                "showlegend": n == 0,
                **where,
            }
        )
        moving.append(len(data))
        data.append(
            {
                "type": "scatter",
                "mode": "text",
                "x": [0.0],
                "y": [-1.12],
                "text": [],
                "hoverinfo": "skip",
                "textfont": {"color": _ORANGE},
                "showlegend": False,
                **where,
            }
        )
        annotations.append(
            {
                "text": text["shift_pair"].format(i=i, omega=f"{omega[n]:.4g}"),
                "x": sum(layout[f"xaxis{axis}"]["domain"]) / 2,
                "y": layout[f"yaxis{axis}"]["domain"][1],
                "xref": "paper",
                "yref": "paper",
                "xanchor": "center",
                "yanchor": "bottom",
                "showarrow": False,
            }
        )
    steps = []
    for k in range(max_offset + 1):
        x, y, labels = [], [], []
        for n, i in enumerate(pairs):
            x += [[0.0, *rounded(sin[k : k + 1, n], decimals=4)], [0.0]]
            y += [[0.0, *rounded(cos[k : k + 1, n], decimals=4)], [-1.12]]
            labels += [[], [f"Δ·ω<sub>{i}</sub> = {k * omega[n]:.2f} rad"]]
        steps.append(
            {"label": str(k), "method": "restyle", "args": [{"x": x, "y": y, "text": labels}, moving]}
        )
    layout.update(
        title={"text": text["shift"].format(d=d_model, pos=pos), "font": {"size": 15}},
        height=330 * rows + 115 + SLIDER_SPACE,
        margin={"l": 60, "r": 20, "t": 115, "b": _AXIS_SPACE + SLIDER_SPACE},
        annotations=annotations,
        legend={"orientation": "h", "x": 0.5, "xanchor": "center", "y": 1.0, "yanchor": "bottom"},
        sliders=[_slider(steps, offset, "k = ")],
    )
    pair_list = ", ".join(map(str, pairs))
    return InteractiveFigure(
        data,
        layout,
        name="rotation-shift",
        label=text["shift_label"],
        description=text["shift_name"].format(pairs=pair_list, d=d_model, k=max_offset),
    )


def base_slider(d_model: int = 128, max_offset: int = 100, *, bases=BASES, base: float = 10000, lang="en"):
    """Wavelengths and ``PE(p) . PE(p + k)`` against ``k``, with a slider for the base.

    Parameters
    ----------
    d_model : int, default 128
        Width of the encoding; a positive even integer.
    max_offset : int, default 100
        The lower panel shows ``k = 0 ... max_offset``, for ``p = 0``.
    bases : sequence of float, default BASES (100 ... 500 000)
        The slider's steps, each a finite number > 1.
    base : float, default 10000
        The slider's starting base, one of ``bases``, which the PNG frame shows.
    lang : {"en", "id", "ko"}, default "en"

    Returns
    -------
    posenc.plot.interactive.InteractiveFigure

    Examples
    --------
    >>> from posenc.plot.sliders import base_slider
    >>> figure = base_slider(d_model=16, max_offset=10, bases=(100, 10000))
    >>> figure.div_id, len(figure.steps), figure.active  # one step per base; 10000 is shown first
    ('posenc-fig-formula-base', 2, 1)
    """
    text = _moving_text(lang)
    d_model, max_offset = check_d_model(d_model), check_int("max_offset", max_offset)
    bases, active = _check_bases(bases, base)
    pairs = np.arange(d_model // 2)
    offsets = np.arange(max_offset + 1)
    top, bottom = {"xaxis": "x", "yaxis": "y"}, {"xaxis": "x2", "yaxis": "y2"}
    data = [
        {
            "type": "scatter",
            "mode": "markers",
            "x": pairs.tolist(),
            "y": [],
            "marker": {"color": _BLUE, "size": 5},
            "showlegend": False,
            **top,
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": [0, int(pairs[-1])],
            "y": rounded([2 * np.pi] * 2, significant=4),
            "line": {"color": _GREY, "width": 1},
            "hoverinfo": "skip",
            "showlegend": False,
            **top,
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": [0, int(pairs[-1])],
            "y": [],
            "line": {"color": _GREY, "width": 1},
            "hoverinfo": "skip",
            "showlegend": False,
            **top,
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": offsets.tolist(),
            "y": [],
            "line": {"color": _ORANGE},
            "showlegend": False,
            **bottom,
        },
    ]
    steps = []
    for b in bases:
        table = sinusoidal_encoding(max_offset + 1, d_model, base=b)
        wavelength = 2 * np.pi / frequencies(d_model, b)
        update = {
            "y": [
                rounded(wavelength, significant=4),
                rounded([2 * np.pi * b] * 2, significant=4),
                rounded(table @ table[0], decimals=3),
            ]
        }
        steps.append({"label": _number(b, text), "method": "restyle", "args": [update, [0, 2, 3]]})
    layout = {
        "title": {"text": text["base"].format(d=d_model), "font": {"size": 15}},
        "height": 640 + SLIDER_SPACE,
        "margin": {"l": 70, "r": 20, "t": 90, "b": _AXIS_SPACE + SLIDER_SPACE},
        "xaxis": _axis(text["pair"], domain=[0, 1], anchor="y"),
        "yaxis": _axis(text["wavelength"], type="log", range=[0, 7], domain=[0.58, 1], anchor="x"),
        "xaxis2": _axis(text["offset"], domain=[0, 1], anchor="y2"),
        "yaxis2": _axis(text["dot"], range=[-15, d_model // 2 + 5], domain=[0, 0.4], anchor="x2"),
        "sliders": [_slider(steps, active, f"{text['base_label']} = ")],
    }
    low, high = _number(min(bases), text), _number(max(bases), text)
    return InteractiveFigure(
        data,
        layout,
        name="formula-base",
        label=text["base_label"],
        description=text["base_name"].format(n=d_model // 2, k=max_offset, low=low, high=high),
    )


def rope_slider(
    dim: int = 128, max_distance: int = 1024, *, bases=ROPE_BASES, base: float = 10000, lang="en"
):
    """RoPE's bound on the score against distance (:func:`posenc.rope_decay_bound`), a slider for the base.

    Parameters
    ----------
    dim : int, default 128
        Head dimension; a positive even integer.
    max_distance : int, default 1024
        The curve covers the distances ``0 ... max_distance``.
    bases : sequence of float, default ROPE_BASES (100 ... 1 000 000)
        The slider's steps, each a finite number > 1.
    base : float, default 10000
        The slider's starting base, one of ``bases``, which the PNG frame shows.
    lang : {"en", "id", "ko"}, default "en"

    Returns
    -------
    posenc.plot.interactive.InteractiveFigure

    Examples
    --------
    >>> from posenc.plot.sliders import rope_slider
    >>> figure = rope_slider()
    >>> figure.div_id, len(figure.steps), figure.active  # one step per base; 10000 is shown first
    ('posenc-fig-rope-decay-base', 6, 2)
    """
    text = _moving_text(lang)
    dim, max_distance = check_d_model(dim), check_int("max_distance", max_distance)
    bases, active = _check_bases(bases, base)
    distance = np.arange(max_distance + 1)
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": distance.tolist(),
            "y": [],
            "line": {"color": _BLUE},
            "showlegend": False,
        }
    ]
    steps = [
        {
            "label": _number(b, text),
            "method": "restyle",
            "args": [{"y": [rounded(rope_decay_bound(max_distance, dim, base=b), decimals=2)]}, [0]],
        }
        for b in bases
    ]
    layout = {
        "title": {"text": text["rope"].format(d=dim), "font": {"size": 15}},
        "height": 400 + SLIDER_SPACE,
        "margin": {"l": 70, "r": 20, "t": 80, "b": _AXIS_SPACE + SLIDER_SPACE},
        "xaxis": _axis(text["distance"], range=[0, max_distance]),
        "yaxis": _axis(text["bound"], range=[0, (dim // 2 + 1) / 2 + 1.5]),
        "sliders": [_slider(steps, active, f"{text['base_label']} = ")],
    }
    low, high = _number(min(bases), text), _number(max(bases), text)
    return InteractiveFigure(
        data,
        layout,
        name="rope-decay-base",
        label=text["rope_label"],
        description=text["rope_name"].format(r=_number(max_distance, text), d=dim, low=low, high=high),
    )
