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
from posenc.rope import apply_rope, rope_decay_bound
from posenc.words import messages

__all__ = ["BASES", "ROPE_BASES", "base_slider", "rope_plane", "rope_slider", "rotation_slider"]

BASES = (100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000)
"""The bases a reader can choose on :func:`~posenc.plot.base_slider`."""

ROPE_BASES = (100, 1000, 10000, 100000, 500000, 1000000)
"""The bases a reader can choose on :func:`~posenc.plot.rope_slider`."""

_GREY, _BLUE, _ORANGE, _GREEN = "#999999", "#1f77b4", "#ff7f0e", "#2ca02c"

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
    """PE(pos) and PE(pos + Δ) on the circles of several pairs, with a slider for the offset Δ.

    Parameters
    ----------
    d_model : int, default 128
        Width of the encoding; a positive even integer.
    pairs : sequence of int, default (0, 8, 16, 32)
        Pair indices ``i < d_model / 2``, one circle each, two circles per row.
    pos : int, default 20
        The fixed position; the slider moves ``pos + Δ``.
    max_offset : int, default 50
        The slider runs over ``Δ = 0 ... max_offset``.
    offset : int, default 5
        The slider's starting Δ, which the PNG frame shows.
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
                "name": "PE(pos + Δ)",
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
    for delta in range(max_offset + 1):
        x, y, labels = [], [], []
        for n, i in enumerate(pairs):
            x += [[0.0, *rounded(sin[delta : delta + 1, n], decimals=4)], [0.0]]
            y += [[0.0, *rounded(cos[delta : delta + 1, n], decimals=4)], [-1.12]]
            labels += [[], [f"Δ·ω<sub>{i}</sub> = {delta * omega[n]:.2f} rad"]]
        steps.append(
            {"label": str(delta), "method": "restyle", "args": [{"x": x, "y": y, "text": labels}, moving]}
        )
    layout.update(
        title={"text": text["shift"].format(d=d_model, pos=pos), "font": {"size": 15}},
        height=330 * rows + 115 + SLIDER_SPACE,
        margin={"l": 60, "r": 20, "t": 115, "b": _AXIS_SPACE + SLIDER_SPACE},
        annotations=annotations,
        legend={"orientation": "h", "x": 0.5, "xanchor": "center", "y": 1.0, "yanchor": "bottom"},
        sliders=[_slider(steps, offset, "Δ = ")],
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


def rope_plane(
    dim: int = 8,
    pair: int = 1,
    *,
    m: int = 2,
    n: int = 7,
    max_shift: int = 60,
    shift: int = 20,
    lang="en",
):
    """One pair's plane: a query turned to position ``m``, a key to ``n``; a slider moves both by ``a``.

    Before the turn, pair ``pair`` of the query and of the key point the same way (the key is shorter),
    so the angle from the query to the key is exactly ``(n - m)·ω_i``. The left panel shows the
    positions ``m, n``; the right one ``m + a, n + a``, with a slider for ``a``: the two arrows turn
    together and the angle between them stays the same. The vectors are rotated by
    :func:`posenc.apply_rope`, as in chapter 6.

    Parameters
    ----------
    dim : int, default 8
        Head dimension; a positive even integer.
    pair : int, default 1
        The pair ``i < dim / 2`` drawn, dimensions ``2i`` and ``2i + 1``, with frequency
        ``ω_i = 10000**(-2i/dim)``.
    m, n : int, default 2, 7
        The positions of the query and of the key in the left panel; ``0 <= m``, ``0 <= n``.
    max_shift : int, default 60
        The slider runs over ``a = 0 ... max_shift``.
    shift : int, default 20
        The slider's starting ``a``, which the PNG frame shows.
    lang : {"en", "id", "ko"}, default "en"

    Returns
    -------
    posenc.plot.interactive.InteractiveFigure

    Examples
    --------
    >>> from posenc.plot.sliders import rope_plane
    >>> figure = rope_plane()
    >>> figure.div_id, len(figure.steps), figure.active
    ('posenc-fig-rope-plane', 61, 20)
    >>> figure.frame(0)[-1]["text"], figure.frame(20)[-1]["text"]  # the right panel's positions
    (['m = 2, n = 7'], ['m = 22, n = 27'])
    >>> angle = figure.frame(20)[-2]["text"][0]  # the angle's label: (n - m)·ω_1, the same at every a
    >>> angle.endswith("= 0.50 rad"), angle == figure.frame(0)[-2]["text"][0]
    (True, True)
    """
    text = _moving_text(lang)
    dim = check_d_model(dim)
    pair, m, n = check_int("pair", pair), check_int("m", m), check_int("n", n)
    max_shift = check_int("max_shift", max_shift)
    if pair >= dim // 2:
        raise ValueError(f"pair must be a pair index < dim // 2 = {dim // 2}, got {pair}")
    shift = _check_choice("shift", shift, range(max_shift + 1))
    omega = float(frequencies(dim)[pair])
    # pair i of q and of k: the same direction, lengths 1 and 0.7; the other pairs are zero
    direction = np.array([np.cos(0.3), np.sin(0.3)])
    vectors = np.zeros((2, dim))
    vectors[0, 2 * pair : 2 * pair + 2] = direction
    vectors[1, 2 * pair : 2 * pair + 2] = 0.7 * direction

    def turned(vector, position):
        # pair i of ``vector`` rotated by R_i(position), as apply_rope turns it
        return apply_rope(vector[np.newaxis, :], offset=int(position))[0, 2 * pair : 2 * pair + 2]

    def panel(a: int) -> tuple[list, list, list]:
        # the traces that move: x, y and text of q, k, the arc, the angle's label, the positions
        q, k = turned(vectors[0], m + a), turned(vectors[1], n + a)
        start, stop = np.arctan2(q[1], q[0]), np.arctan2(q[1], q[0]) + (n - m) * omega
        arc = np.linspace(start, stop, 25)
        x = [[0.0, *rounded(q[:1], decimals=4)], [0.0, *rounded(k[:1], decimals=4)]]
        y = [[0.0, *rounded(q[1:], decimals=4)], [0.0, *rounded(k[1:], decimals=4)]]
        # the arc from q to k, its angle under the circle, the positions above it
        x += [rounded(0.3 * np.cos(arc), decimals=4), [0.0], [0.0]]
        y += [rounded(0.3 * np.sin(arc), decimals=4), [-1.18], [1.18]]
        angle = f"(n \u2212 m)·ω<sub>{pair}</sub> = {(n - m) * omega:.2f} rad"  # a minus sign
        labels = [[], [], [], [angle], [f"m = {m + a}, n = {n + a}"]]
        return x, y, labels

    circle = np.linspace(0, 2 * np.pi, 145)
    data, layout, annotations, moving = [], {}, [], []
    for column, title in enumerate((text["plane_left"], text["plane_right"])):
        axis = "" if column == 0 else "2"
        where = {"xaxis": f"x{axis}", "yaxis": f"y{axis}"}
        layout[f"xaxis{axis}"] = _axis(
            f"x<sub>{2 * pair}</sub>",
            domain=[0.0, 0.42] if column == 0 else [0.58, 1.0],
            range=[-1.35, 1.35],
            anchor=f"y{axis}",
        )
        layout[f"yaxis{axis}"] = _axis(
            f"x<sub>{2 * pair + 1}</sub>",
            domain=[0.0, 1.0],
            range=[-1.35, 1.35],
            anchor=f"x{axis}",
            scaleanchor=f"x{axis}",
        )
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": rounded(np.cos(circle), decimals=4),
                "y": rounded(np.sin(circle), decimals=4),
                "line": {"color": "#cccccc"},
                "hoverinfo": "skip",
                "showlegend": False,
                **where,
            }
        )
        x, y, labels = panel(0)
        # Unicode subscripts: the PNG frame draws legend entries as they are
        sub = str(pair).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))
        traces = [
            {"mode": "lines+markers", "name": f"R{sub}(m) q", "color": _BLUE, "group": "q"},
            {"mode": "lines+markers", "name": f"R{sub}(n) k", "color": _ORANGE, "group": "k"},
            {"mode": "lines", "color": _GREEN},
            {"mode": "text", "color": _GREEN},
            {"mode": "text", "color": "black"},
        ]
        for trace, xs, ys, words in zip(traces, x, y, labels, strict=True):
            entry = {"type": "scatter", "mode": trace["mode"], "x": xs, "y": ys, **where}
            if trace["mode"] == "lines+markers":
                entry.update(
                    name=trace["name"],
                    line={"color": trace["color"]},
                    marker={"size": [0, 10], "color": trace["color"]},
                    legendgroup=trace["group"],
                    showlegend=column == 0,
                )
            elif trace["mode"] == "lines":
                entry.update(line={"color": trace["color"]}, hoverinfo="skip", showlegend=False)
            else:
                entry.update(
                    text=words, textfont={"color": trace["color"]}, hoverinfo="skip", showlegend=False
                )
            if column == 1:
                moving.append(len(data))
            data.append(entry)
        annotations.append(
            {
                "text": title,
                "x": sum(layout[f"xaxis{axis}"]["domain"]) / 2,
                "y": 1.0,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "center",
                "yanchor": "bottom",
                "showarrow": False,
            }
        )
    steps = []
    for a in range(max_shift + 1):
        x, y, labels = panel(a)
        steps.append(
            {"label": str(a), "method": "restyle", "args": [{"x": x, "y": y, "text": labels}, moving]}
        )
    layout.update(
        title={"text": text["plane"].format(i=pair, d=dim), "font": {"size": 15}},
        height=330 + 125 + SLIDER_SPACE,
        margin={"l": 60, "r": 20, "t": 125, "b": _AXIS_SPACE + SLIDER_SPACE},
        annotations=annotations,
        legend={"orientation": "h", "x": 0.5, "xanchor": "center", "y": 1.08, "yanchor": "bottom"},
        sliders=[_slider(steps, shift, "a = ")],
    )
    return InteractiveFigure(
        data,
        layout,
        name="rope-plane",
        label=text["plane_label"],
        description=text["plane_name"].format(i=pair, m=m, n=n, a=max_shift, angle=f"{(n - m) * omega:.2f}"),
    )
