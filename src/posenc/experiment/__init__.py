"""What position buys: small Transformers trained with and without each encoding (chapter 8).

Two synthetic tasks, made by a seeded generator, whose answer is a matter of position
(:mod:`~posenc.experiment.tasks`); one small model with a ``position`` option
(:mod:`~posenc.experiment.model`); training and testing at longer lengths than the training ones
(:mod:`~posenc.experiment.training`); the longer-length recipes (:mod:`~posenc.experiment.extension`);
the sweeps and their tables (:mod:`~posenc.experiment.sweeps`); and the stored results that the chapter
reads (:mod:`~posenc.experiment.results`, NumPy only). Everything runs on one CPU thread in seconds.
This package imports torch, and ``import posenc`` does not import it.

The chapter calls these names as ``posenc.experiment.<name>``; this package gathers them, and the API
reference documents each under that name. ``python -m posenc.experiment`` is the command line
(its ``__main__`` module): ``--bench`` times every variant, ``sweep`` trains every model of
chapter 8 and writes its results file, ``check`` compares a fresh sweep with that file.
"""

from __future__ import annotations

from posenc._checks import require_extra

require_extra(__name__, "torch", "torch")

from posenc.experiment import results  # noqa: F401  (posenc.experiment.results, as the chapter reads it)
from posenc.experiment.extension import (
    PROBES,
    RECIPES,
    RescaledRotary,
    fine_tune,
    recipe_frequencies,
    rescaled,
)
from posenc.experiment.model import FORMULA_LENGTH, POSITIONS, Attention, Block, TinyTransformer
from posenc.experiment.sweeps import (
    CONTROL,
    DISTANCE_LENGTH,
    DISTANCE_RECIPES,
    DISTANCES,
    SEEDS,
    TEST_LENGTHS,
    chapter_sweep,
    format_table,
    sweep,
    time_variants,
    to_results,
)
from posenc.experiment.tasks import TASKS, make_batch, order_task, relative_task
from posenc.experiment.training import (
    Curve,
    RunResult,
    answers_by_distance,
    evaluate,
    evaluate_by_label,
    run,
    train,
)

__all__ = [
    "CONTROL",
    "DISTANCES",
    "DISTANCE_LENGTH",
    "DISTANCE_RECIPES",
    "FORMULA_LENGTH",
    "POSITIONS",
    "PROBES",
    "RECIPES",
    "SEEDS",
    "TASKS",
    "TEST_LENGTHS",
    "Attention",
    "Block",
    "Curve",
    "RescaledRotary",
    "RunResult",
    "TinyTransformer",
    "answers_by_distance",
    "chapter_sweep",
    "evaluate",
    "evaluate_by_label",
    "fine_tune",
    "format_table",
    "make_batch",
    "order_task",
    "recipe_frequencies",
    "relative_task",
    "rescaled",
    "run",
    "sweep",
    "time_variants",
    "to_results",
    "train",
]
