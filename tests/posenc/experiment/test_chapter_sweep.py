"""Chapter 8's committed results are current: the whole sweep is re-run and must match the file.

The three editions of chapter 8 show ``src/posenc/experiment/data/experiment_results.json`` instead of
training their models three times, so this is where every number of the chapter is recomputed. It trains
every model of the chapter on two processes, the largest test of ``make test`` (marked ``solo``: it runs
alone, after the pool of test workers). The match holds within ``posenc.experiment.results.TOLERANCE``
per seed, the figure the chapter states, because a trained model's accuracy moves by a few points with
the rounding of another CPU.
"""

from __future__ import annotations

import pytest

from posenc import experiment as ex
from posenc.experiment import results as R

pytestmark = [pytest.mark.slow, pytest.mark.solo]  # about 6 min on both cores


def test_the_committed_results_are_what_the_sweep_computes_now(capsys):
    committed = R.load()
    fresh = ex.chapter_sweep(workers=2)
    problems = R.compare(committed, fresh)
    # The largest move of any seed's accuracy, printed so that a green run still shows the margin.
    moves = [
        abs(old.accuracy(length) - new.accuracy(length))
        for old, new in zip(committed.records, fresh.records, strict=True)
        for length in old.correct
        if old.correct[length] is not None
    ]
    with capsys.disabled():
        print(f"\nsweep: {len(fresh.records)} records, largest move {max(moves):.3f} of {R.TOLERANCE}")
    assert problems == [], "\n".join(problems[:40])
