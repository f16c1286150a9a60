"""posenc.plot.interactive: the figures a reader can move, as a notebook and the site receive them."""

from __future__ import annotations

import base64
import io
import json
import re
import sys
import types

import matplotlib
import nbformat
import numpy as np
import pytest
from book_files import NOTEBOOKS
from nbclient import NotebookClient
from PIL import Image

matplotlib.use("Agg")

from posenc import plot
from posenc.plot import interactive, sliders
from posenc.plot.interactive import PLOTLY_MIME, InteractiveFigure, rounded
from posenc.words import LANGUAGES

BUILDERS = {
    "rotation-shift": plot.rotation_slider,
    "formula-base": plot.base_slider,
    "rope-decay-base": plot.rope_slider,
    "rope-plane": plot.rope_plane,
}
MIME_TYPES = {"text/plain", "text/html", PLOTLY_MIME, "image/png"}
FIGURE_DATA = re.compile(r'<script type="application/json" class="posenc-figure-data">(.*?)</script>', re.S)


def tiny(**changes) -> dict:
    """The arguments of a two-step figure with one trace."""
    steps = [{"label": str(n), "method": "restyle", "args": [{"y": [[n, n]]}, [0]]} for n in range(2)]
    arguments = {
        "data": [{"type": "scatter", "mode": "lines", "x": [0, 1], "y": []}],
        "layout": {"height": 300, "sliders": [{"active": 1, "steps": steps}]},
        "name": "tiny-figure",
        "label": "n",
        "description": "A line at height n.",
    }
    return {**arguments, **changes}


def png_image(data: str) -> Image.Image:
    raw = base64.b64decode(data)
    assert raw.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(raw))
    image.verify()  # a truncated or corrupt file raises here
    return Image.open(io.BytesIO(raw))


# ------------------------------------------------------------------------------------------------
# Rounding


def test_rounded_by_decimals_drops_the_last_bits_and_the_sign_of_zero():
    assert rounded([0.123456, -1e-17, 2.0], decimals=4) == [0.1235, 0.0, 2.0]
    assert str(rounded([-1e-17], decimals=4)[0]) == "0.0"  # not -0.0, which a last bit could flip


def test_rounded_by_significant_digits_keeps_the_scale():
    assert rounded([6.283185307, 54410.45, 2558975.1], significant=4) == [6.283, 54410.0, 2559000.0]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [({}, "exactly one"), ({"decimals": 2, "significant": 2}, "exactly one"), ({"decimals": 2}, None)],
)
def test_rounded_needs_exactly_one_rule(arguments, message):
    if message is None:
        assert rounded([1.234], **arguments) == [1.23]
    else:
        with pytest.raises(ValueError, match=message):
            rounded([1.0], **arguments)


def test_rounded_refuses_what_json_cannot_hold():
    with pytest.raises(ValueError, match="finite"):
        rounded([1.0, np.nan], decimals=2)


@pytest.mark.parametrize("name", BUILDERS)
def test_a_last_bit_difference_does_not_change_the_json(name, monkeypatch):
    """Other CPUs' sin and cos may differ in the last bit: the figure's JSON must not."""
    reference = json.dumps(BUILDERS[name]().to_plotly_json())
    rng = np.random.default_rng(0)

    def nudged(function):
        def call(*args, **kwargs):
            values = function(*args, **kwargs)
            return values * (1 + 4e-16 * rng.choice([-1.0, 1.0], size=np.shape(values)))

        return call

    for function in ("sinusoidal_encoding", "frequencies", "rope_decay_bound"):
        monkeypatch.setattr(sliders, function, nudged(getattr(sliders, function)))
    assert json.dumps(BUILDERS[name]().to_plotly_json()) == reference


# ------------------------------------------------------------------------------------------------
# The bundle


@pytest.mark.parametrize("name", BUILDERS)
def test_the_bundle_holds_html_plotly_json_and_a_png(name):
    figure = BUILDERS[name]()
    bundle = figure._repr_mimebundle_()
    assert set(bundle) == MIME_TYPES
    page = bundle["text/html"]
    assert f'id="posenc-fig-{name}"' in page
    assert json.loads(FIGURE_DATA.search(page).group(1).replace("<\\/", "</")) == bundle[PLOTLY_MIME]
    assert bundle[PLOTLY_MIME]["config"] == {
        "displayModeBar": False,
        "responsive": True,
        "typesetMath": False,
    }
    # The PNG is a real image, the same one that readers without JavaScript see in the HTML.
    image = png_image(bundle["image/png"])
    assert image.width > 500 and image.height > 300, image.size
    assert f'src="data:image/png;base64,{bundle["image/png"]}"' in page


def test_the_same_figure_gives_the_same_bundle():
    first, second = (plot.rotation_slider(lang="ko")._repr_mimebundle_() for _ in range(2))
    assert first == second


def test_ipython_shows_the_three_types():
    from IPython.core.formatters import DisplayFormatter

    data, _ = DisplayFormatter().format(plot.rope_slider())
    assert MIME_TYPES <= set(data)


def test_a_running_kernel_stores_the_three_types():
    """What a reader's notebook stores: a real kernel runs the helper, as a chapter does."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("import posenc.plot\nposenc.plot.base_slider(lang='id')")]
    NotebookClient(notebook, kernel_name="python3", timeout=120).execute()
    (output,) = notebook.cells[0].outputs
    assert output.output_type == "execute_result"
    assert set(output.data) == MIME_TYPES
    png_image(output.data["image/png"])
    assert "basis" in output.data["text/html"]  # the slider's label, in the page's language


def test_on_colab_the_html_is_plotlys_own_without_mathjax(monkeypatch):
    """Colab runs the HTML's scripts but has neither the site's plotly.js nor a plotly JSON renderer."""
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    bundle = plot.rotation_slider()._repr_mimebundle_()
    assert set(bundle) == MIME_TYPES
    page = bundle["text/html"]
    assert "Plotly.newPlot" in page and 'id="posenc-fig-rotation-shift"' in page
    assert re.findall(r'<script[^>]+src="([^"]+)"', page) == ["https://cdn.plot.ly/plotly-4.1.1.min.js"]
    assert not re.search(r"src=\"[^\"]*mathjax", page, re.IGNORECASE)  # no MathJax from a CDN


def test_html_cannot_end_its_script_early():
    figure = InteractiveFigure(**tiny(description="a </script> in a text"))
    figure.layout["title"] = {"text": "</script><b>"}
    page = figure.html(png=b"")
    assert page.count("</script>") == 1
    assert (
        json.loads(FIGURE_DATA.search(page).group(1).replace("<\\/", "</"))["layout"]["title"]["text"]
        == "</script><b>"
    )


# ------------------------------------------------------------------------------------------------
# Frames and steps


def test_the_traces_start_as_the_active_step_draws_them():
    figure = InteractiveFigure(**tiny())
    assert figure.data[0]["y"] == [1, 1]
    assert figure.frame(0)[0]["y"] == [0, 0]
    assert figure.data[0]["y"] == [1, 1]  # frame() does not change the figure


def test_the_png_shows_the_active_step():
    layout = tiny()["layout"]
    pictures = set()
    for active in (0, 1):
        layout["sliders"][0]["active"] = active
        pictures.add(InteractiveFigure(**tiny(layout=layout)).png())
    assert len(pictures) == 2


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"name": "Tiny Figure"}, "name must be lower-case words"),
        ({"label": " "}, "label must be a non-empty string"),
        ({"description": ""}, "description must be a non-empty string"),
        ({"layout": {"height": 300, "sliders": []}}, "exactly one slider"),
        (
            {"layout": {"height": 300, "sliders": [{"steps": [{"method": "animate", "args": []}]}]}},
            "'restyle'",
        ),
        ({"data": [{"type": "scatter", "colour": "red"}]}, "colour"),  # plotly's own validation
    ],
)
def test_bad_figures_are_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        InteractiveFigure(**tiny(**changes))


def test_a_frame_outside_the_slider_is_refused():
    with pytest.raises(ValueError, match=r"step must be in 0 \.\.\. 1, got 2"):
        InteractiveFigure(**tiny()).frame(2)


# ------------------------------------------------------------------------------------------------
# The chapters' notebooks store what the helper makes


def interactive_outputs():
    found = []
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            for output in cell.get("outputs", []):
                if PLOTLY_MIME in output.get("data", {}):
                    found.append((path, cell, output))
    return found


def test_three_chapters_of_every_edition_have_an_interactive_figure():
    chapters = sorted({(path.parent.name, path.stem) for path, _, _ in interactive_outputs()})
    expected = [(lang, chapter) for lang in LANGUAGES for chapter in ("02_formula", "05_rotation", "06_rope")]
    assert chapters == expected


@pytest.mark.parametrize("stored", interactive_outputs(), ids=lambda s: f"{s[0].parent.name}/{s[0].stem}")
def test_stored_figures_hold_the_three_types_and_a_caption(stored):
    path, cell, output = stored
    assert MIME_TYPES <= set(output.data)
    png_image(output.data["image/png"])
    figure = cell.metadata["mystnb"]["figure"]
    # The PDF and EPUB show the PNG: it needs its caption and alt text, in the edition's language.
    assert figure["name"].endswith(f"-{path.parent.name}")
    assert figure["caption"] and cell.metadata["mystnb"]["image"]["alt"]
    assert re.search(r'id="posenc-fig-[a-z0-9-]+"', output.data["text/html"])


def test_slider_space_is_what_the_site_script_gives_back():
    assert f'data-slider-space="{interactive.SLIDER_SPACE}"' in plot.rope_slider().html(png=b"")
