"""posenc.plot: the one module the notebooks import, and what importing it sets up."""

import inspect

import matplotlib
import pytest
from matplotlib import font_manager

from posenc.plot._style import finish

matplotlib.use("Agg")

from posenc import plot
from posenc.plot import attention, encodings, frame, serving, sliders
from posenc.plot import experiment as experiment_figures

# The public modules of figures; _style (the lang check and the fonts) is theirs, not the chapters'.
MODULES = (attention, encodings, experiment_figures, sliders, frame, serving)


def test_every_public_figure_is_importable_from_posenc_plot():
    # The chapters call posenc.plot.<name>: every public name of the figure modules, the very same object.
    public = {name: getattr(module, name) for module in MODULES for name in module.__all__}
    public["finish"] = finish  # from the private style module: the last call on a chapter's own figure
    assert sorted(plot.__all__) == sorted(public)
    for name, value in public.items():
        assert getattr(plot, name) is value, name


@pytest.mark.parametrize("module", MODULES)
def test_every_function_of_a_figure_module_is_exported(module):
    functions = {
        name
        for name, value in vars(module).items()
        if inspect.isfunction(value) and value.__module__ == module.__name__ and not name.startswith("_")
    }
    assert functions <= set(module.__all__), functions - set(module.__all__)


def test_hangul_uses_bundled_font():
    font = font_manager.findfont(font_manager.FontProperties(family="NanumGothic"), fallback_to_default=False)
    assert font.endswith("NanumGothic.ttf")
    assert "NanumGothic" in matplotlib.rcParams["font.family"]


def test_font_licence_is_shipped():
    from importlib import resources

    licence = (resources.files("posenc.plot") / "fonts" / "OFL.txt").read_text()
    assert "SIL OPEN FONT LICENSE" in licence
