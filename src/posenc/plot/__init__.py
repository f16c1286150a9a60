"""Figures for the chapters, labelled in English, Indonesian or Korean: the one name the notebooks import.

The figures live in one module per kind, and this module re-exports them:

- :mod:`posenc.plot.attention`: chapter 1's attention outputs, :func:`~posenc.plot.swapped_outputs`;
- :mod:`posenc.plot.encodings`: the encodings themselves (chapters 1 to 7), e.g. :func:`~posenc.plot.heatmap`;
- :mod:`posenc.plot.experiment`: chapter 8's results, e.g. :func:`~posenc.plot.experiment_curves`;
- :mod:`posenc.plot.sliders`: the figures a reader can move, e.g. :func:`~posenc.plot.base_slider`
  (a :class:`posenc.plot.interactive.InteractiveFigure`);
- :mod:`posenc.plot.serving`: chapter 9's positions and masks in serving,
  :func:`~posenc.plot.serving_positions`;
- :mod:`posenc.plot.frame`: :func:`~posenc.plot.draw_frame`, the matplotlib drawing of one frame of those;
- :func:`~posenc.plot.finish`, the last call on a figure that a chapter draws with matplotlib itself.

Every matplotlib figure is already closed in pyplot, so a notebook shows it
exactly once: as the cell's value. Importing this module registers the
bundled NanumGothic font (SIL OFL 1.1) as a fallback, so Hangul renders on
machines without a CJK system font.
"""

from __future__ import annotations

from posenc._checks import require_extra

require_extra(__name__, "plot", "matplotlib", "plotly", "PIL", "babel")

from posenc.plot._style import finish
from posenc.plot.attention import swapped_outputs
from posenc.plot.encodings import (
    alibi,
    circle,
    dot_products,
    heatmap,
    index_codes,
    rope_decay,
    scaling_ratios,
    t5_buckets,
    wavelengths,
    waves,
)
from posenc.plot.experiment import (
    ResultsTable,
    experiment_curves,
    experiment_distances,
    experiment_lengths,
    experiment_rescaling,
    experiment_table,
)
from posenc.plot.frame import draw_frame
from posenc.plot.serving import serving_positions
from posenc.plot.sliders import BASES, ROPE_BASES, base_slider, rope_plane, rope_slider, rotation_slider

__all__ = [
    "BASES",
    "ROPE_BASES",
    "ResultsTable",
    "alibi",
    "base_slider",
    "circle",
    "dot_products",
    "draw_frame",
    "experiment_curves",
    "experiment_distances",
    "experiment_lengths",
    "experiment_rescaling",
    "experiment_table",
    "finish",
    "heatmap",
    "index_codes",
    "rope_decay",
    "rope_plane",
    "rope_slider",
    "rotation_slider",
    "scaling_ratios",
    "serving_positions",
    "swapped_outputs",
    "t5_buckets",
    "wavelengths",
    "waves",
]
