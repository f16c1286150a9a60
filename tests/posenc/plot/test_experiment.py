"""posenc.plot.experiment: chapter 8's figures, drawn from made-up records (they only read numbers)."""

import base64
import html

import matplotlib
import matplotlib.colors as mcolors
import numpy as np
import pytest

matplotlib.use("Agg")

from posenc import experiment as ex
from posenc.experiment import results as R
from posenc.plot import experiment as experiment_figures
from posenc.words import message


@pytest.fixture(scope="module")
def few_results():
    """Made-up records of every study, two seeds each: the figures only read numbers."""
    records = []
    for study, rows in (("main", ex.POSITIONS), ("rescaled", ex.RECIPES), ("fine-tuned", ex.RECIPES)):
        for task in ("order", "relative") if study == "main" else ("relative",):
            for n, row in enumerate(rows):
                for seed in (0, 1):
                    right = (120 + 10 * n + seed, 250), (125 + 5 * n, 250)
                    runs = {16: right, 32: right, 64: right}
                    if row == "learned":
                        runs.update({32: None, 64: None})
                    position, recipe = (row, "") if study == "main" else ("rope", row)
                    curve = ((25, 50), (0.5, 0.6 + 0.01 * n)) if study == "main" else ()
                    records.append(R.Record(study, task, position, seed, 600, recipe, runs, curve))
    return R.Results({}, records)


@pytest.mark.parametrize("lang", ["en", "id", "ko"])
def test_figures_of_the_experiment(few_results, lang):
    curves = experiment_figures.experiment_curves(few_results, lang=lang)
    lengths = experiment_figures.experiment_lengths(few_results, lang=lang)
    table = experiment_figures.experiment_table(few_results, lang=lang)
    rescaling = experiment_figures.experiment_rescaling(few_results, lang=lang)
    assert [len(fig.axes) for fig in (curves, lengths, rescaling)] == [2, 2, 2]
    # One line per variant and seed, plus the 50 % line.
    assert len(curves.axes[0].lines) == 6 * 2 + 1
    # A mean line per variant plus the 50 % line; learned has its single point at 16.
    assert len(lengths.axes[0].lines) == 7 and list(lengths.axes[0].lines[3].get_xdata()) == [16]
    # A dot per seed: 5 variants at 3 lengths and learned at 1, each a scatter of two seeds.
    dots = [c.get_offsets() for c in lengths.axes[0].collections]
    assert len(dots) == 5 * 3 + 1 and all(len(d) == 2 for d in dots)
    cells = [text.get_text() for text in table.figure.axes[0].texts]
    assert len(cells) == 6 * 6 and cells.count(message("plot.experiment.no_rows", lang)) == 4
    first = [r.accuracy(16) for r in few_results.select("main", task="order", position="none")]
    assert cells[0] == f"{100 * np.mean(first):.0f}\n{100 * min(first):.0f}-{100 * max(first):.0f}"
    # Rescaling: a scatter per recipe and length (two seeds each), a mean bar each, the 50 % line.
    left = rescaling.axes[0]
    assert len(left.collections) == len(ex.RECIPES) * 3 and len(left.lines) == len(ex.RECIPES) * 3 + 1
    assert [t.get_text() for t in left.get_xticklabels()][1] == "PI"


def test_figures_of_the_experiment_check_their_input(few_results):
    with pytest.raises(ValueError, match="lang must be one of"):
        experiment_figures.experiment_table(few_results, lang="fr")
    with pytest.raises(TypeError, match=r"results must be posenc\.experiment\.results\.Results"):
        experiment_figures.experiment_curves([])
    with pytest.raises(ValueError, match="no record of study 'main'"):
        experiment_figures.experiment_lengths(R.Results({}, few_results.select("rescaled")))


@pytest.mark.parametrize("lang", ["en", "id", "ko"])
def test_the_results_table_is_an_html_table_and_a_figure(few_results, lang):
    table = experiment_figures.experiment_table(few_results, lang=lang)
    bundle = table._repr_mimebundle_()
    assert sorted(bundle) == ["image/png", "text/html", "text/plain"]
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG")
    page = bundle["text/html"]
    # A header row per variant, a column per task and length, the words of the figure's language.
    assert page.count('<th scope="row"') == len(ex.POSITIONS) == len(table.rows)
    assert page.count('<th scope="col"') == 1 + 6 and page.count('scope="colgroup"') == 2
    assert html.escape(message("plot.experiment.table", lang)) in page
    assert page.count(message("plot.experiment.no_rows", lang)) == 4
    # Every cell with a result gives the same numbers as the figure.
    first = [r.accuracy(16) for r in few_results.select("main", task="order", position="none")]
    mean, low, high = (f"{100 * v:.0f}" for v in (np.mean(first), min(first), max(first)))
    assert f'<strong>{mean}</strong><br><span style="font-size:0.8em">{low}-{high}</span>' in page


@pytest.mark.parametrize("mean", range(40, 101, 5))
def test_a_cell_of_the_results_table_is_readable(mean):
    background, text = experiment_figures._cell_colours(mean)
    lights = [experiment_figures._luminance(mcolors.to_rgb(c)) for c in (background, text)]
    contrast = (max(lights) + 0.05) / (min(lights) + 0.05)
    assert contrast >= 4.5, (mean, background, text, contrast)
