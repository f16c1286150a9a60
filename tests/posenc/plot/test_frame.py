"""posenc.plot.frame: one frame of a figure a reader can move, drawn by matplotlib from its plotly JSON."""

import logging
import subprocess
import sys
import warnings

import matplotlib
import pytest

matplotlib.use("Agg")

from posenc.plot import frame, sliders
from posenc.plot._style import LANGUAGES

MOVING = [sliders.rotation_slider, sliders.base_slider, sliders.rope_slider, sliders.rope_plane]


@pytest.mark.parametrize("build", MOVING)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_moving_figures_frames_draw_every_glyph_without_warnings(build, lang, caplog):
    with warnings.catch_warnings(), caplog.at_level(logging.WARNING, logger="matplotlib"):
        warnings.simplefilter("error")
        figure = build(lang=lang)
        frame.draw_frame(figure.frame(), figure.layout).canvas.draw()
    assert not [record.getMessage() for record in caplog.records]


def test_the_frame_has_the_fonts():
    # InteractiveFigure.png draws with posenc.plot.frame: the Korean frames need the bundled font from
    # it. That the drawing layer imports neither interactive nor sliders is a contract of .importlinter.
    code = "import matplotlib, posenc.plot.frame; print('NanumGothic' in matplotlib.rcParams['font.family'])"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "True"
