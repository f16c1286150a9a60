import warnings

import matplotlib
import pytest
from matplotlib import font_manager

matplotlib.use("Agg")

from posenc import plot

FIGURES = [plot.heatmap, plot.waves, plot.wavelengths, plot.dot_products, plot.circle]


@pytest.mark.parametrize("draw", FIGURES)
@pytest.mark.parametrize("lang", plot.LANGUAGES)
def test_figures_draw_without_warnings(draw, lang):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = draw(lang=lang)
        fig.canvas.draw()
    title = fig.axes[0].get_title()
    assert title
    if lang == "ko":
        assert any("\uac00" <= ch <= "\ud7a3" for ch in title), title


@pytest.mark.parametrize("draw", FIGURES)
def test_labels_differ_by_language(draw):
    titles = {lang: draw(lang=lang).axes[0].get_title() for lang in plot.LANGUAGES}
    assert len(set(titles.values())) == 3


def test_hangul_uses_bundled_font():
    font = font_manager.findfont(font_manager.FontProperties(family="NanumGothic"), fallback_to_default=False)
    assert font.endswith("NanumGothic.ttf")
    assert "NanumGothic" in matplotlib.rcParams["font.family"]


def test_font_licence_is_shipped():
    from importlib import resources

    licence = (resources.files("posenc") / "fonts" / "OFL.txt").read_text()
    assert "SIL OPEN FONT LICENSE" in licence


@pytest.mark.parametrize("draw", FIGURES)
def test_unknown_language(draw):
    with pytest.raises(ValueError, match=r"lang must be one of \('en', 'id', 'ko'\), got 'fr'"):
        draw(lang="fr")


def test_bad_figure_arguments():
    with pytest.raises(ValueError, match="pair must be < d_model // 2 = 4"):
        plot.circle(pair=4, d_model=8)
    with pytest.raises(ValueError, match="dims must be a non-empty list of columns < d_model=16"):
        plot.waves(d_model=16, dims=(3, 16))
    with pytest.raises(ValueError, match="d_model must be even"):
        plot.heatmap(d_model=9)
