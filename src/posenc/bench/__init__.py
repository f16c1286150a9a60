"""Benchmark the tables and RoPE of ``posenc`` against the formulas as usually published.

Run ``python -m posenc.bench`` (``--quick`` for small sizes). Three parts:

1. ``sinusoidal_encoding``: for each table size, the median time of each
   method, its ratio to ``sinusoidal_encoding(..., float32)``, its ratio to
   the memory floor (filling an array of the same size), and its max error
   against the float64 formula. Targets at (65536, 512): at least 8x faster
   than the float64 NumPy formula and at most 5x the fill floor.
2. RoPE on queries of shape (heads 8, seq 8192, dim 128), float32:
   ``posenc.apply_rope`` and ``posenc.nn.RotaryEmbedding`` against the widely
   published formula (float32 angles = positions x inverse frequencies, then
   cos/sin, then ``rotate_half``), with each method's max error against
   float64 at positions up to 2**20. Targets: the module no slower than the
   formula (ratio <= 1.0), the half layout within 2x the memory floor (a copy
   of the queries into a new tensor, as a rotation returns one; the copy into
   an existing tensor, without allocation, is printed below it for reference),
   and an error at least 1e4 times smaller. transformers'
   ``apply_rotary_pos_emb`` (transcribed in :mod:`posenc.bench.baselines`) is
   timed beside them on the published cos and sin, without the time to make
   them; it rotates q and k in one call, so half its time is shown.
3. RoPE cos/sin tables at 2**17 and 2**20 positions, head dim 128:
   ``posenc.cos_sin_table`` against the published float32 recipe and the same
   recipe in bfloat16. Targets: no slower than the float32 recipe at 2**17,
   an error at least 1e4 times smaller at 2**20.

Times are the CPU time of the process, with torch limited to one thread like
NumPy, so that other programs on a shared machine do not skew the ratios. The
formulas it times ``posenc`` against are in :mod:`posenc.bench.baselines`.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from posenc._checks import require_extra

require_extra(__name__, "torch", "torch")

from posenc.bench.baselines import (
    apply_rotary_pos_emb,
    fill_floor,
    numpy_formula,
    posenc_float32,
    published_rope,
    published_tables,
    reference_rope,
    torch_formula,
)
from posenc.encoding import cos_sin_table, frequencies
from posenc.rope import apply_rope

SIZES = ((8192, 512), (65536, 512))
TARGET_SIZE = (65536, 512)
TARGET_SPEEDUP = 8.0
TARGET_FLOOR_RATIO = 5.0

ROPE_SHAPE = (8, 8192, 128)  # (heads, seq_len, head_dim)
ROPE_LAST_POSITION = 2**20  # the error is measured on positions up to this one
TABLE_SIZES = (2**17, 2**20)
TABLE_DIM = 128
TARGET_TIME_RATIO = 1.0
TARGET_ERROR_GAIN = 1e4
TARGET_ROPE_FLOOR_RATIO = 2.0
HF_APPLY = "transformers apply_rotary_pos_emb / 2"
QUICK = {
    "SIZES": ((1024, 64), (4096, 64)),
    "TARGET_SIZE": (4096, 64),
    "ROPE_SHAPE": (2, 512, 64),
    "ROPE_LAST_POSITION": 2**16,
    "TABLE_SIZES": (2**12, 2**14),
}

METHODS = {
    "posenc float32": posenc_float32,
    "numpy float64 formula": numpy_formula,
    "torch float32 formula": torch_formula,
    "fill (memory floor)": fill_floor,
}


def timed(function, args, repeats, *, warm_up=True):
    """Median CPU seconds of ``function(*args)`` over ``repeats`` runs, and the last result.

    Parameters
    ----------
    function : callable
        What to time.
    args : tuple
        Its arguments.
    repeats : int
        Timed runs, >= 1.
    warm_up : bool, default True
        Run it once, untimed, first.

    Returns
    -------
    seconds : float
        The median CPU time of one run.
    result
        What the last run returned.

    Examples
    --------
    >>> import math
    >>> from posenc.bench import timed
    >>> seconds, result = timed(math.factorial, (20,), repeats=3)
    >>> result, seconds >= 0
    (2432902008176640000, True)
    """
    if warm_up:
        function(*args)  # imports, caches, first-touch page faults
    times = []
    for _ in range(repeats):
        start = time.process_time()
        result = function(*args)
        times.append(time.process_time() - start)
    return statistics.median(times), result


def median_seconds(function, size, repeats):
    """The median CPU seconds of ``function(*size)`` over ``repeats`` runs: :func:`timed` without the result.

    Parameters
    ----------
    function : callable
        A table method, called as ``function(num_positions, d_model)``.
    size : tuple of int
        ``(num_positions, d_model)``.
    repeats : int
        Timed runs, >= 1.

    Returns
    -------
    float

    Examples
    --------
    >>> from posenc.bench import fill_floor, median_seconds
    >>> median_seconds(fill_floor, (64, 8), repeats=3) >= 0
    True
    """
    return timed(function, size, repeats)[0]


def table_errors(tables, theta, rows=2**16):
    """Max error of each ``(cos, sin)`` pair of tables against float64, ``rows`` positions at a time.

    Parameters
    ----------
    tables : dict
        Name -> ``(cos, sin)``, each of shape ``(num_positions, len(theta))``.
    theta : numpy.ndarray
        The frequencies of the tables' columns.
    rows : int, default 2**16
        Positions compared at a time (the float64 reference of a long table is large).

    Returns
    -------
    dict
        Name -> the largest absolute error of its two tables.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc import frequencies
    >>> from posenc.bench.baselines import reference_tables
    >>> from posenc.bench import table_errors
    >>> rounded = tuple(table.astype(np.float32) for table in reference_tables(1000, 8))
    >>> errors = table_errors({"float32": rounded}, frequencies(8), rows=256)
    >>> errors["float32"] < 2**-25  # rounded once to float32: within half a float32 step of 1
    True
    """
    errors = dict.fromkeys(tables, 0.0)
    num_positions = len(next(iter(tables.values()))[0])
    for start in range(0, num_positions, rows):
        angle = np.arange(start, min(start + rows, num_positions))[:, np.newaxis] * theta
        reference = np.cos(angle), np.sin(angle)
        for name, pair in tables.items():
            for table, exact in zip(pair, reference, strict=True):
                chunk = table[start : start + rows].astype(np.float64)
                errors[name] = max(errors[name], float(np.abs(chunk - exact).max()))
    return errors


def _met(flag):
    return "met" if flag else "NOT met"


def bench_rope(repeats, shape=None, last_position=None):
    """Part 2: RoPE on one batch of queries; returns whether both targets are met.

    Parameters
    ----------
    repeats : int
        Timed runs per method.
    shape : tuple of int, optional
        ``(heads, seq_len, dim)``; default ``ROPE_SHAPE``, (8, 8192, 128).
    last_position : int, optional
        The error is measured at positions up to this one; default ``ROPE_LAST_POSITION``, 2**20.

    Returns
    -------
    bool
        Whether both targets are met (the times depend on the machine).

    Examples
    --------
    >>> from posenc.bench import bench_rope
    >>> met = bench_rope(1, shape=(1, 16, 8), last_position=64)  # doctest: +ELLIPSIS
    <BLANKLINE>
    RoPE on (heads, seq_len, dim) = (1, 16, 8), float32, median of 1 runs at positions
    0 ... 15; max error against float64 at positions 49 ... 64
    method                                       ms  x formula  x floor   max error  error gain
    copy of x (memory floor)  ...
    target: RotaryEmbedding no slower than the published formula at seq_len 16 ...
    target: RotaryEmbedding, half within 2 x the memory floor ...
    target: error >= 1e+04 x smaller than the formula's up to position 64 ...
    >>> met in (True, False)
    True
    """
    import torch

    from posenc.nn import RotaryEmbedding

    shape = ROPE_SHAPE if shape is None else shape
    last_position = ROPE_LAST_POSITION if last_position is None else last_position
    _, seq_len, dim = shape
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x_torch = torch.from_numpy(x)
    far = last_position - seq_len + 1  # rows at positions far ... last_position
    modules = {
        layout: RotaryEmbedding(dim, last_position + 1, layout=layout) for layout in ("half", "interleaved")
    }
    # The interleaved methods see the same numbers, with the halves interleaved.
    perm = np.argsort(np.concatenate((np.arange(0, dim, 2), np.arange(1, dim, 2))))
    x_inter = np.ascontiguousarray(x[..., perm])
    # Per-token positions (HF's position_ids) gather rows of the tables instead of slicing them.
    positions = {offset: torch.arange(offset, offset + seq_len) for offset in (0, far)}
    methods = {
        "published formula (torch)": (lambda offset: published_rope(x_torch, offset), "half"),
        "RotaryEmbedding, half": (lambda offset: modules["half"](x_torch, offset), "half"),
        "RotaryEmbedding with positions": (
            lambda offset: modules["half"](x_torch, positions=positions[offset]),
            "half",
        ),
        "RotaryEmbedding, interleaved": (
            lambda offset: modules["interleaved"](torch.from_numpy(x_inter), offset),
            "interleaved",
        ),
        "apply_rope, half": (lambda offset: apply_rope(x, offset=offset, layout="half"), "half"),
        "apply_rope, interleaved": (lambda offset: apply_rope(x_inter, offset=offset), "interleaved"),
    }
    # transformers rotates q and k in one call: given x twice, half its time is one tensor's.
    tables = {offset: _published_cos_sin(offset, seq_len, dim) for offset in (0, far)}
    methods[HF_APPLY] = (
        lambda offset: apply_rotary_pos_emb(x_torch, x_torch, *tables[offset], unsqueeze_dim=0)[0],
        "half",
    )
    reference = reference_rope(x, far)
    seconds, errors = {}, {}
    with torch.inference_mode():
        # The memory floor: one read and one write of x into a new tensor, which any rotation that returns
        # one costs (allocation included); and the bare copy into a tensor that exists, for reference.
        floor = median_seconds(lambda offset: x_torch.clone(), (0,), repeats)
        target = torch.empty_like(x_torch)
        bare_copy = median_seconds(lambda offset: target.copy_(x_torch), (0,), repeats)
        for name, (function, layout) in methods.items():
            seconds[name] = median_seconds(function, (0,), repeats)
            out = np.asarray(function(far), dtype=np.float64)
            if layout == "interleaved":
                out = out[..., np.argsort(perm)]
            errors[name] = np.abs(out - reference).max()
    seconds[HF_APPLY] /= 2

    formula = "published formula (torch)"
    print(f"\nRoPE on (heads, seq_len, dim) = {shape}, float32, median of {repeats} runs at positions")
    print(f"0 ... {seq_len - 1}; max error against float64 at positions {far} ... {last_position}")
    print(f"{'method':<38}{'ms':>9}{'x formula':>11}{'x floor':>9}{'max error':>12}{'error gain':>12}")
    print(f"{'copy of x (memory floor)':<38}{floor * 1e3:>9.1f}{floor / seconds[formula]:>11.2f}{1:>9.2f}")
    print(
        f"{'  copy into an existing tensor':<38}{bare_copy * 1e3:>9.1f}"
        f"{bare_copy / seconds[formula]:>11.2f}{bare_copy / floor:>9.2f}"
    )
    for name in methods:
        print(
            f"{name:<38}{seconds[name] * 1e3:>9.1f}{seconds[name] / seconds[formula]:>11.2f}"
            f"{seconds[name] / floor:>9.2f}{errors[name]:>12.2e}{errors[formula] / errors[name]:>12.3g}"
        )
    rotary = [name for name in methods if name.startswith("RotaryEmbedding")]
    ratio = max(seconds[name] for name in rotary) / seconds[formula]
    gain = errors[formula] / max(errors[name] for name in methods if name not in (formula, HF_APPLY))
    floor_ratio = seconds["RotaryEmbedding, half"] / floor
    time_met, error_met = ratio <= TARGET_TIME_RATIO, gain >= TARGET_ERROR_GAIN
    floor_met = floor_ratio <= TARGET_ROPE_FLOOR_RATIO
    print(
        f"target: RotaryEmbedding no slower than the published formula at seq_len {seq_len} "
        f"(ratio <= {TARGET_TIME_RATIO:g}; got {ratio:.2f} for the slowest call): {_met(time_met)}"
    )
    print(
        f"target: RotaryEmbedding, half within {TARGET_ROPE_FLOOR_RATIO:g} x the memory floor "
        f"(got {floor_ratio:.2f}): {_met(floor_met)}"
    )
    print(
        f"target: error >= {TARGET_ERROR_GAIN:.0e} x smaller than the formula's up to position "
        f"{last_position} (got {gain:.3g} x for the least accurate posenc method): {_met(error_met)}"
    )
    return time_met and error_met and floor_met


def _published_cos_sin(offset, seq_len, dim):
    """The ``(seq_len, dim)`` cos and sin that transformers' rotary module gives apply_rotary_pos_emb."""
    import torch

    cos, sin = published_tables(offset + seq_len, dim)
    return torch.as_tensor(cos)[offset:].contiguous(), torch.as_tensor(sin)[offset:].contiguous()


def bench_tables(repeats, sizes=None):
    """Part 3: RoPE cos/sin tables; returns whether both targets are met.

    Parameters
    ----------
    repeats : int
        Timed runs per method (one for tables above 2**17 positions).
    sizes : tuple of int, optional
        Table lengths; default ``TABLE_SIZES``, (2**17, 2**20).

    Returns
    -------
    bool
        Whether both targets are met (the times depend on the machine).

    Examples
    --------
    >>> from posenc.bench import bench_tables
    >>> met = bench_tables(1, sizes=(256, 1024))  # doctest: +ELLIPSIS
    <BLANKLINE>
    RoPE cos/sin tables for 256 positions, head dim 128, median of 1 runs
    (posenc: two (256, 64) tables; the recipe: two (256, 128), as published)
    method                               ms  x recipe   max error
    posenc cos_sin_table          ...
    target: error >= 1e+04 x smaller than the float32 recipe at 1024 positions ...
    >>> met in (True, False)
    True
    """
    import torch

    sizes = TABLE_SIZES if sizes is None else sizes
    half = TABLE_DIM // 2
    theta = frequencies(TABLE_DIM)
    methods = {
        "posenc cos_sin_table": lambda n: cos_sin_table(n, theta, dtype=np.float32),
        "published recipe float32": lambda n: published_tables(n, TABLE_DIM),
        "published recipe bfloat16": lambda n: published_tables(n, TABLE_DIM, torch.bfloat16),
    }
    met_all = True
    for num_positions in sizes:
        # The largest tables take seconds per run: one run each keeps the benchmark short.
        big = num_positions > 2**17
        runs = 1 if big else repeats
        seconds, tables = {}, {}
        for name, fn in methods.items():
            seconds[name], (cos, sin) = timed(fn, (num_positions,), runs, warm_up=not big)
            # The recipe repeats its columns (cat); its first half is the table proper.
            tables[name] = tuple(np.asarray(torch.as_tensor(t)[:, :half].float()) for t in (cos, sin))
            del cos, sin
        errors = table_errors(tables, theta)
        del tables
        recipe = "published recipe float32"
        print(
            f"\nRoPE cos/sin tables for {num_positions} positions, head dim {TABLE_DIM}, median of {runs} "
            f"runs\n(posenc: two ({num_positions}, {half}) tables; the recipe: two ({num_positions}, "
            f"{TABLE_DIM}), as published)"
        )
        print(f"{'method':<30}{'ms':>9}{'x recipe':>10}{'max error':>12}")
        for name in methods:
            ratio = seconds[name] / seconds[recipe]
            print(f"{name:<30}{seconds[name] * 1e3:>9.1f}{ratio:>10.2f}{errors[name]:>12.2e}")
        ours = "posenc cos_sin_table"
        if num_positions == sizes[0]:
            ratio = seconds[ours] / seconds[recipe]
            met = ratio <= TARGET_TIME_RATIO
            print(
                f"target: posenc no slower than the float32 recipe at {num_positions} positions "
                f"(ratio <= {TARGET_TIME_RATIO:g}; got {ratio:.2f}): {_met(met)}"
            )
            met_all &= met
        if num_positions == sizes[-1]:
            gain = errors[recipe] / errors[ours]
            met = gain >= TARGET_ERROR_GAIN
            print(
                f"target: error >= {TARGET_ERROR_GAIN:.0e} x smaller than the float32 recipe at "
                f"{num_positions} positions (got {gain:.3g} x): {_met(met)}"
            )
            met_all &= met
    return met_all


def main(argv=None):
    """Run the three parts of the benchmark (``python -m posenc.bench``) and print their tables.

    Parameters
    ----------
    argv : list of str, optional
        The command line (``--repeats N``, ``--quick``); default ``sys.argv[1:]``.

    Returns
    -------
    int
        0 if every target is met, 1 otherwise: the exit status.

    Examples
    --------
    >>> from posenc.bench import main
    >>> status = main(["--quick", "--repeats", "1"])  # doctest: +ELLIPSIS
    quick run: small sizes, so the targets below are not the real ones
    <BLANKLINE>
    (num_positions, d_model) = (1024, 64), median of 1 runs
    ...
    >>> status in (0, 1)
    True
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per method (default 5)")
    parser.add_argument("--quick", action="store_true", help="small sizes, to check that it runs")
    args = parser.parse_args(argv)
    sizes = {"SIZES": SIZES, "TARGET_SIZE": TARGET_SIZE, "ROPE_SHAPE": ROPE_SHAPE}
    sizes |= {"ROPE_LAST_POSITION": ROPE_LAST_POSITION, "TABLE_SIZES": TABLE_SIZES}
    if args.quick:
        sizes |= QUICK
        print("quick run: small sizes, so the targets below are not the real ones")

    import torch

    torch.set_num_threads(1)  # NumPy uses one thread; so does torch, for a fair ratio
    met_all = True
    for size in sizes["SIZES"]:
        reference = numpy_formula(*size)
        seconds = {name: median_seconds(fn, size, args.repeats) for name, fn in METHODS.items()}
        ours, floor = seconds["posenc float32"], seconds["fill (memory floor)"]
        print(f"\n(num_positions, d_model) = {size}, median of {args.repeats} runs")
        print(f"{'method':<24}{'ms':>9}{'x posenc':>10}{'x fill':>9}{'max error':>12}")
        for name, fn in METHODS.items():
            error = "-" if name.startswith("fill") else f"{np.abs(fn(*size) - reference).max():.2e}"
            print(
                f"{name:<24}{seconds[name] * 1e3:>9.1f}{seconds[name] / ours:>10.2f}"
                f"{seconds[name] / floor:>9.2f}{error:>12}"
            )
        if size == sizes["TARGET_SIZE"]:
            speedup = seconds["numpy float64 formula"] / ours
            floor_ratio = ours / floor
            met = speedup >= TARGET_SPEEDUP and floor_ratio <= TARGET_FLOOR_RATIO
            met_all &= met
            print(
                f"target: >= {TARGET_SPEEDUP:g}x faster than the numpy formula (got {speedup:.1f}x), "
                f"<= {TARGET_FLOOR_RATIO:g}x the fill floor (got {floor_ratio:.1f}x): "
                f"{_met(met)}"
            )
    met_all &= bench_rope(args.repeats, sizes["ROPE_SHAPE"], sizes["ROPE_LAST_POSITION"])
    met_all &= bench_tables(args.repeats, sizes["TABLE_SIZES"])
    return 0 if met_all else 1
