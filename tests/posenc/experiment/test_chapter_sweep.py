"""Chapter 8's committed results are current: every study is trained again with its first seed.

The three editions of chapter 8 show ``src/posenc/experiment/data/experiment_results.json`` instead of
training their models three times, so this is where their numbers are recomputed. ``make test`` trains
every study (main, control, rescaled, fine-tuned, probe, distance) with the seeds of
``posenc.experiment.results.CHECKED_SEEDS`` on two processes (marked ``solo``: it runs alone, after the
pool of test workers) and requires each record to match the file's within
``posenc.experiment.results.ONE_SEED_TOLERANCE``: a trained model's accuracy moves by a few points with
the rounding of another CPU. The weekly workflow (.github/workflows/weekly.yml) re-runs the whole sweep,
every seed, against ``TOLERANCE``.
"""

from __future__ import annotations

import pytest

from posenc import experiment as ex
from posenc.experiment import results as R

pytestmark = [pytest.mark.slow, pytest.mark.solo]  # about a minute on both cores


def test_the_committed_results_of_the_checked_seeds_are_what_the_sweep_computes_now(capsys):
    seeds = R.CHECKED_SEEDS
    stored = R.load()
    fresh = ex.chapter_sweep(workers=2, seeds=seeds, control_seeds=seeds)
    problems = R.compare_seeds(stored, fresh, seeds)
    committed = stored.with_seeds(seeds)
    # The largest move of any seed's accuracy, printed so that a green run still shows the margin.
    moves = [
        abs(old.accuracy(length) - new.accuracy(length))
        for old, new in zip(committed.records, fresh.records, strict=True)
        for length in old.correct
        if old.correct[length] is not None
    ]
    with capsys.disabled():
        print(
            f"\nsweep of seeds {list(seeds)}: {len(fresh.records)} records, largest move {max(moves):.3f} "
            f"of {R.ONE_SEED_TOLERANCE}"
        )
    assert problems == [], "\n".join(problems[:40])
