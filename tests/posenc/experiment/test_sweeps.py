"""posenc.experiment.sweeps: the sweep's lines and tables, its Results, and the checks of the chapter's
sweep."""

import pytest

from posenc.experiment import results as R
from posenc.experiment.results import band
from posenc.experiment.sweeps import chapter_sweep, format_table, sweep, to_results


def test_sweep_prints_one_line_per_run_and_seed_and_the_table_shows_every_variant(capsys):
    results = sweep(["order"], ["none", "learned"], seeds=(0, 1), steps=2)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and lines[0].startswith("order     none") and "32:     --" in lines[2]
    assert [r.seed for r in results] == [0, 1, 0, 1]
    expected = [
        word for length in (16, 32, 64) for word in (f"{length}:", band([results[0].accuracy[length]]))
    ]
    assert lines[0].split()[2:] == expected
    table = format_table(results).splitlines()
    assert "order" in table[0] and table[1].split() == ["length", "|", "16", "32", "64"]
    assert table[-1].startswith("learned") and table[-1].count("--") == 2
    percent = format_table(results, percent=True).splitlines()
    assert percent[-2].split()[2] == f"{round(100 * results[0].accuracy[16])}%"


def test_chapter_sweep_checks_its_arguments():
    with pytest.raises(ValueError, match="workers must be >= 1"):
        chapter_sweep(workers=0)
    with pytest.raises(TypeError, match="seeds must be an integer"):
        chapter_sweep(seeds=("a",))


def test_to_results_summarises_runs_over_seeds():
    runs = sweep(["order"], ["nope"], seeds=(0, 1), steps=2, verbose=False)
    summary = R.format_summary(to_results(runs))
    values = [runs[0].accuracy[16], runs[1].accuracy[16]]
    assert summary.splitlines()[0] == "order (main, 2 steps, seeds 0, 1)"
    assert summary.splitlines()[3].split()[1] == f"{100 * sum(values) / 2:.0f}"
    with pytest.raises(TypeError, match="RunResult"):
        to_results([object()])
    with pytest.raises(ValueError, match="at least one"):
        to_results([])
