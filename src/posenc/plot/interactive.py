"""Figures a reader can move, on a static page with no kernel behind it.

An :class:`InteractiveFigure` holds a plotly figure whose ``layout.sliders``
steps restyle its traces, so moving the slider needs no Python callback. A
notebook shows it as one output with three types:

``text/html``
    for the book's site: the figure JSON in a ``<div>`` whose id comes from
    the figure's name, drawn by the site's vendored plotly.js, with the PNG
    inside it for readers without JavaScript;
``application/vnd.plotly.v1+json``
    for JupyterLab, which draws it with plotly's own renderer (Colab does
    not read this type: there the HTML is plotly's own, see below);
``image/png``
    one representative frame (the slider's ``active`` step), drawn by
    matplotlib from the same figure JSON, for the PDF and the EPUB.

On Colab, which draws neither this type nor the site's ``<div>``, the HTML is
the page plotly itself writes for Colab (plotly.js from plotly's CDN, as
``fig.show()`` does there; its MathJax is left out). The stored notebooks are
run elsewhere, so the site never sees that HTML.

Every number is rounded before it goes into the JSON, so that CPUs whose
``sin`` differs in the last bit still store the same text.
"""

from __future__ import annotations

import base64
import copy
import html
import io
import json
import re
import sys

import numpy as np

__all__ = ["SLIDER_SPACE", "InteractiveFigure", "rounded"]

PLOTLY_MIME = "application/vnd.plotly.v1+json"
# What plotly.js is told on the site: no mode bar (its buttons carry English
# tooltips and are not needed to read the figure), no MathJax.
CONFIG = {"displayModeBar": False, "responsive": True, "typesetMath": False}
# Pixels under the plot that plotly's slider takes; the site's script hides that slider (it shows
# a labelled range input instead) and gives the space back.
SLIDER_SPACE = 90
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_DPI = 100


def rounded(values, *, decimals: int | None = None, significant: int | None = None) -> list:
    """``values`` as a list of floats rounded for the figure JSON.

    Parameters
    ----------
    values : array_like
        Finite numbers.
    decimals : int, optional
        Round to this many decimals: for values of a known scale, such as
        points on the unit circle (``1e-17`` becomes ``0.0``).
    significant : int, optional
        Round to this many significant digits: for values spanning many
        orders of magnitude, such as wavelengths on a log axis.

    Returns
    -------
    list of float
        Exactly one of ``decimals`` and ``significant`` must be given. Signed
        zeros become ``0.0``, which a last-bit difference could otherwise flip.

    Examples
    --------
    >>> from posenc.plot.interactive import rounded
    >>> rounded([0.123456, -1e-17], decimals=3)  # -1e-17 rounds to -0.0, written as 0.0
    [0.123, 0.0]
    >>> rounded([123456.7, 0.000123456], significant=3)
    [123000.0, 0.000123]
    """
    if (decimals is None) == (significant is None):
        raise ValueError("give exactly one of decimals and significant")
    array = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(array)):
        raise ValueError("values must be finite to go into the figure JSON")
    if decimals is not None:
        return (np.round(array, decimals) + 0.0).tolist()
    # Python's formatting rounds correctly, so the same double always gives the same digits.
    return [float(f"{value:.{significant}g}") + 0.0 for value in array.ravel()]


def _restyled(data: list, step: dict) -> list:
    """``data`` after one slider step of method ``restyle``."""
    update, indices = step["args"]
    data = copy.deepcopy(data)
    for key, values in update.items():
        for index, value in zip(indices, values, strict=True):
            data[index][key] = value
    return data


class InteractiveFigure:
    """A plotly figure with one slider, shown in a notebook as HTML, plotly JSON and PNG.

    Parameters
    ----------
    data : list of dict
        Scatter traces, as plotly's JSON writes them; the active step's
        values are filled in.
    layout : dict
        Plotly layout with exactly one slider in ``layout["sliders"]``, whose
        steps all use the method ``"restyle"``.
    name : str
        Lower-case words joined by hyphens, e.g. ``"rotation-shift"``; the id
        of the page's ``<div>`` is ``"posenc-fig-" + name``.
    label : str
        Text of the label of the site's slider (keyboard and screen readers).
    description : str
        Accessible name of the figure, also the PNG's alt text.

    Examples
    --------
    Two points and a slider that moves the second one:

    >>> from posenc.plot.interactive import InteractiveFigure
    >>> steps = [{"method": "restyle", "label": str(y), "args": [{"y": [[0, y]]}, [0]]} for y in (1, 2, 3)]
    >>> figure = InteractiveFigure(
    ...     [{"type": "scatter", "x": [0, 1], "y": [0, 0]}],
    ...     {"height": 300, "sliders": [{"active": 1, "steps": steps}]},
    ...     name="two-points", label="height", description="A line from (0, 0) to (1, y).",
    ... )
    >>> figure.div_id, figure.active, figure.data[0]["y"]  # the traces start at the active step
    ('posenc-fig-two-points', 1, [0, 2])
    >>> sorted(figure._repr_mimebundle_())  # what a notebook stores
    ['application/vnd.plotly.v1+json', 'image/png', 'text/html', 'text/plain']
    """

    def __init__(self, data: list, layout: dict, *, name: str, label: str, description: str) -> None:
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError(f"name must be lower-case words joined by hyphens, got {name!r}")
        sliders = layout.get("sliders", [])
        if len(sliders) != 1 or not sliders[0].get("steps"):
            raise ValueError("layout must hold exactly one slider with at least one step")
        methods = {step.get("method") for step in sliders[0]["steps"]}
        if methods != {"restyle"}:
            raise ValueError(
                f"every slider step must use the method 'restyle', got {sorted(map(str, methods))}"
            )
        for text, what in ((label, "label"), (description, "description")):
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"{what} must be a non-empty string")
        # plotly's own validation: a misspelt attribute raises here, not in a reader's browser.
        import plotly.graph_objects as go

        go.Figure(data=data, layout=layout)
        self.layout = layout
        # The traces start as the active step draws them, as plotly's slider shows it.
        self.data = _restyled(data, self.steps[self.active])
        self.name, self.label, self.description = name, label, description

    @property
    def div_id(self) -> str:
        return f"posenc-fig-{self.name}"

    @property
    def steps(self) -> list:
        return self.layout["sliders"][0]["steps"]

    @property
    def active(self) -> int:
        return self.layout["sliders"][0].get("active", 0)

    def to_plotly_json(self) -> dict:
        """The figure as plotly's renderers read it: data, layout and config."""
        return {"data": self.data, "layout": self.layout, "config": CONFIG}

    def frame(self, step: int | None = None) -> list:
        """The traces as slider step ``step`` (default: the active one) draws them."""
        step = self.active if step is None else step
        if not 0 <= step < len(self.steps):
            raise ValueError(f"step must be in 0 ... {len(self.steps) - 1}, got {step}")
        return _restyled(self.data, self.steps[step])

    def png(self) -> bytes:
        """The active frame drawn by matplotlib, as PNG bytes."""
        from PIL import Image

        # matplotlib loads only when a frame is drawn; posenc.plot.frame imports nothing of this module.
        from posenc.plot.frame import draw_frame

        fig = draw_frame(self.frame(), self.layout)
        drawn, buffer = io.BytesIO(), io.BytesIO()
        fig.savefig(drawn, format="png", dpi=_DPI, bbox_inches="tight", pad_inches=0.1)
        # 64 colours are plenty for lines and text, and a third of the bytes of the full-colour PNG
        # (the page carries it inline). Pillow writes no software name or date into the file.
        Image.open(drawn).convert("RGB").quantize(colors=64).save(buffer, format="png", optimize=True)
        return buffer.getvalue()

    def html(self, png: bytes | None = None) -> str:
        """The ``<div>`` the site's script turns into a plotly figure with a labelled slider."""
        png = self.png() if png is None else png
        # "</" inside a <script> element would end it early.
        figure = json.dumps(self.to_plotly_json(), ensure_ascii=False, separators=(",", ":"))
        figure = figure.replace("</", "<\\/")
        picture = base64.b64encode(png).decode("ascii")
        description, label = html.escape(self.description), html.escape(self.label)
        return (
            f'<div class="posenc-interactive" id="{self.div_id}" data-label="{label}" '
            f'data-slider-space="{SLIDER_SPACE}">\n'
            f'<div class="posenc-plot" role="img" aria-label="{description}">'
            f'<img src="data:image/png;base64,{picture}" alt="{description}"></div>\n'
            f'<script type="application/json" class="posenc-figure-data">{figure}</script>\n'
            "</div>"
        )

    def colab_html(self) -> str:
        """The figure as plotly draws it on Colab, without MathJax (the figures use none)."""
        import plotly.io as pio

        return pio.to_html(
            self.to_plotly_json(),
            include_plotlyjs="cdn",
            include_mathjax=False,
            full_html=False,
            config=CONFIG,
            div_id=self.div_id,
            validate=False,
        )

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        png = self.png()
        on_colab = "google.colab" in sys.modules
        return {
            "text/plain": f"<interactive figure {self.name!r}: {len(self.steps)} slider steps>",
            "text/html": self.colab_html() if on_colab else self.html(png),
            PLOTLY_MIME: self.to_plotly_json(),
            "image/png": base64.b64encode(png).decode("ascii"),
        }
