"""Chapter 10's sweep: perplexity by position and the passkey test, for every method, on the real model.

``python -m posenc.realmodel sweep`` runs :func:`run_sweep` and writes :data:`RESULTS_FILE`; the three
editions of chapter 10 read that file (:func:`load`) instead of running 16,384-token passes, and
``python -m posenc.realmodel check`` re-computes a subset and compares it with :func:`compare`.
"""

from __future__ import annotations

import json
import math
import platform
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from posenc._checks import check_int
from posenc.realmodel.files import MODEL_FILE
from posenc.realmodel.loss import token_nll
from posenc.realmodel.methods import FACTOR, METHODS, rope_setting
from posenc.realmodel.passkey import PasskeyResult, passkey_test
from posenc.realmodel.text import TEXT_SHA256, load_text
from posenc.serving import TinyDecoder

__all__ = [
    "CHECKED_METHODS",
    "LENGTH",
    "NLL_TOLERANCE",
    "PASSKEY_DEPTHS",
    "PASSKEY_LENGTHS",
    "RESULTS_FILE",
    "SEGMENT",
    "SweepResults",
    "compare",
    "largest_move",
    "load",
    "run_sweep",
]

RESULTS_FILE = Path(__file__).with_name("data") / "sweep_results.json"
"""The committed results of :func:`run_sweep`, shipped with the package."""

LENGTH = 16_384
"""Tokens of the text in one pass: twice SmolLM2's trained context."""

SEGMENT = 2_048
"""The perplexity is reported per segment of this many positions."""

PASSKEY_LENGTHS = (4_096, 10_240)
"""One prompt length inside the trained context, one 2,048 tokens past it."""

PASSKEY_DEPTHS = (0.1, 0.5, 0.9)
"""Where the key stands in the filler."""

CHECKED_METHODS = ("none", "yarn")
"""The methods whose perplexity ``check`` re-computes at the full length (about 2.5 min each on two cores)."""

NLL_TOLERANCE = 1e-3
"""How far (nats) a segment's mean loss may move in a re-run on another CPU and still match the file.

The model is not trained here: a re-run repeats the same float32 sums in another order, no more. With
AVX2 kernels instead of AVX-512 (NumPy, PyTorch, MKL and oneDNN limited to AVX2) the first two segments
of ``none`` and ``yarn`` moved by at most 8.3e-6 nats; the tolerance leaves a hundred times that for
other CPUs, thread counts and the segments past the trained context. 1e-3 nats is 0.1 % of a perplexity.
"""


@dataclass
class SweepResults:
    """What the sweep measured, as stored in :data:`RESULTS_FILE`.

    Attributes
    ----------
    nll : dict of str to list of float
        Method -> mean loss (nats per token) of each segment of :data:`SEGMENT` positions, the first
        segment starting at position 1 (position 0 has nothing before it).
    passkey : dict of str to list of PasskeyResult
        Method -> one result per prompt length and depth.
    length, segment, factor, trained_length : int, int, float, int
        The settings the sweep ran with.
    machine : dict
        Where it ran: PyTorch's version, its CPU capability, the threads, and the seconds per method.

    Examples
    --------
    >>> from posenc.realmodel import sweep
    >>> results = sweep.load()
    >>> [round(value) for value in results.perplexity("none")]  # 2,048 positions each
    [33, 30, 27, 26, 28, 56, 200, 608]
    >>> [trial.found for trial in results.passkey["yarn"]]  # 4,096 tokens, then 10,240; depths 0.1, 0.5, 0.9
    [True, True, True, True, True, True]
    """

    nll: dict[str, list[float]] = field(default_factory=dict)
    passkey: dict[str, list[PasskeyResult]] = field(default_factory=dict)
    length: int = LENGTH
    segment: int = SEGMENT
    factor: float = FACTOR
    trained_length: int = 8192
    machine: dict = field(default_factory=dict)

    def perplexity(self, method: str, length: int | None = None) -> list[float]:
        """The perplexity ``exp(mean loss)`` of each segment of ``method``, up to ``length`` positions.

        Raises
        ------
        ValueError
            For a method the file does not hold, or a length beyond the sweep's.
        """
        if method not in self.nll:
            raise ValueError(f"method must be one of {', '.join(self.nll)} (the stored ones), got {method!r}")
        if length is None:
            length = self.length
        length = check_int("length", length, minimum=self.segment)
        if length > self.length:
            raise ValueError(f"length must be at most {self.length} (the sweep's), got {length}")
        return [math.exp(value) for value in self.nll[method][: length // self.segment]]

    def to_json(self) -> dict:
        """The results as JSON data, with the model file and the SHA-256 of the text they were measured on."""
        data = asdict(self)
        data["model"], data["text_sha256"] = MODEL_FILE, TEXT_SHA256
        return data

    def dump(self, path=RESULTS_FILE) -> None:
        """Write :meth:`to_json` to ``path`` (default :data:`RESULTS_FILE`), which :func:`load` reads."""
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")


def load(path=RESULTS_FILE) -> SweepResults:
    """Read a results file written by :meth:`SweepResults.dump`.

    Raises
    ------
    ValueError
        If the file was measured on another model file or another text.

    Examples
    --------
    >>> from posenc.realmodel import sweep
    >>> list(sweep.load().nll)
    ['none', 'linear', 'ntk', 'dynamic_hf', 'dynamic_yarn', 'yarn', 'yarn_no_factor', 'llama3']
    """
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if (data.pop("model"), data.pop("text_sha256")) != (MODEL_FILE, TEXT_SHA256):
        raise ValueError(f"{path} was measured on another model or text: run the sweep again")
    data["passkey"] = {
        name: [PasskeyResult(**trial) for trial in trials] for name, trials in data["passkey"].items()
    }
    return SweepResults(**data)


def _set_method(model: TinyDecoder, method: str, seq_len: int) -> None:
    frequencies, attention = rope_setting(method, model.gguf_config, seq_len)
    model.set_frequencies(frequencies, attention_factor=attention)


def segment_nll(losses: torch.Tensor, segment: int = SEGMENT) -> list[float]:
    """The mean of each run of ``segment`` losses (the last run may be one shorter: it ends the text)."""
    return [
        float(losses[start : start + segment].double().mean()) for start in range(0, len(losses), segment)
    ]


def run_sweep(
    model: TinyDecoder,
    tokenizer,
    *,
    methods: Iterable[str] = tuple(METHODS),
    length: int = LENGTH,
    passkey: bool = True,
    progress: Callable[[str], None] | None = None,
) -> SweepResults:
    """Perplexity by segment and, if ``passkey``, the passkey trials, for each of ``methods``.

    Parameters
    ----------
    model : TinyDecoder
        :func:`~posenc.realmodel.load_decoder`'s (its ``gguf_config`` gives the RoPE settings).
    tokenizer : transformers.PreTrainedTokenizerBase
        :func:`~posenc.realmodel.load_tokenizer`'s.
    methods : iterable of str, default every key of METHODS
    length : int, default LENGTH
        Tokens of the text read at once, a multiple of :data:`SEGMENT` and at most ``model.max_seq_length``.
    passkey : bool, default True
        Also run the passkey test at :data:`PASSKEY_LENGTHS` and :data:`PASSKEY_DEPTHS`.
    progress : callable, optional
        Called with one line after each method (the command prints it).

    Returns
    -------
    SweepResults

    Examples
    --------
    The first 2,048 tokens, without scaling (the file's first segment has one loss more, the 2,049th
    token's):

    >>> from posenc.realmodel import load_decoder, load_tokenizer, sweep
    >>> model = load_decoder(max_seq_length=2048)
    >>> again = sweep.run_sweep(model, load_tokenizer(), methods=["none"], length=2048, passkey=False)
    >>> round(again.perplexity("none")[0]), round(sweep.load().perplexity("none")[0])
    (33, 33)
    """
    methods = list(methods)
    for method in methods:
        if method not in METHODS:
            raise ValueError(f"methods must be among {', '.join(METHODS)}, got {method!r}")
    length = check_int("length", length, minimum=SEGMENT)
    if length % SEGMENT or length > model.max_seq_length:
        raise ValueError(
            f"length must be a multiple of {SEGMENT} and at most {model.max_seq_length}, got {length}"
        )
    ids = tokenizer(load_text(), return_tensors="pt").input_ids[:, :length]
    results = SweepResults(length=length, trained_length=model.gguf_config.context_length)
    seconds = {}
    for method in methods:
        start = time.perf_counter()
        _set_method(model, method, length)
        results.nll[method] = segment_nll(token_nll(model, ids))
        if passkey:
            trials = []
            for trial_length in PASSKEY_LENGTHS:
                _set_method(model, method, trial_length)
                trials += [passkey_test(model, tokenizer, trial_length, depth) for depth in PASSKEY_DEPTHS]
            results.passkey[method] = trials
        seconds[method] = round(time.perf_counter() - start, 1)
        if progress is not None:
            found = sum(trial.found for trial in results.passkey.get(method, []))
            ppl = " ".join(f"{math.exp(value):.1f}" for value in results.nll[method])
            progress(f"{method}: perplexity {ppl}; passkey {found} found; {seconds[method]} s")
    _set_method(model, "none", length)
    results.machine = {
        "torch": torch.__version__,
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "threads": torch.get_num_threads(),
        "python": platform.python_version(),
        "seconds": seconds,
    }
    return results


def compare(expected: SweepResults, actual: SweepResults, *, tolerance: float = NLL_TOLERANCE) -> list[str]:
    """The differences between a re-run and the file: every method and segment ``actual`` holds.

    Returns
    -------
    list of str
        One line per segment whose mean loss moved more than ``tolerance`` nats, per passkey trial whose
        count of right tokens changed, and per method the file lacks; empty if they match.

    Examples
    --------
    >>> import dataclasses
    >>> from posenc.realmodel import sweep
    >>> stored = sweep.load()
    >>> sweep.compare(stored, stored)
    []
    >>> first, *rest = stored.nll["none"]
    >>> moved = dataclasses.replace(stored, nll={"none": [first + 0.01, *rest]})
    >>> sweep.compare(stored, moved)  # doctest: +ELLIPSIS
    ['none, segment 1: loss 3.5..., the file 3.5...']
    """
    problems = []
    for method, values in actual.nll.items():
        stored = expected.nll.get(method)
        if stored is None or len(stored) != len(values):
            problems.append(f"{method}: {len(values)} segments, the file {len(stored or [])}")
            continue
        for index, (old, new) in enumerate(zip(stored, values, strict=True)):
            if abs(old - new) > tolerance:
                problems.append(f"{method}, segment {index + 1}: loss {new:.5f}, the file {old:.5f}")
    for method, trials in actual.passkey.items():
        stored = expected.passkey.get(method, [])
        if len(stored) != len(trials):
            problems.append(f"{method}: {len(trials)} passkey trials, the file {len(stored)}")
            continue
        for old, new in zip(stored, trials, strict=True):
            if (old.length, old.depth, old.correct) != (new.length, new.depth, new.correct):
                where = f"{method}, passkey at {new.length} tokens, depth {new.depth}"
                problems.append(f"{where}: {new.answer!r}, the file {old.answer!r}")
    return problems


def largest_move(expected: SweepResults, actual: SweepResults) -> float:
    """The largest move (nats) of a segment's mean loss from the file to a re-run, over the methods both hold.

    Examples
    --------
    >>> from posenc.realmodel import sweep
    >>> sweep.largest_move(sweep.load(), sweep.load())
    0.0
    """
    return max(
        (
            abs(old - new)
            for method, values in actual.nll.items()
            for old, new in zip(expected.nll.get(method, []), values, strict=False)
        ),
        default=0.0,
    )
