"""Benchmark ``sinusoidal_encoding`` against the straightforward formulas.

Run ``python -m posenc.bench``. It prints, for each table size, the median
time of each method, its ratio to ``sinusoidal_encoding(..., float32)``, its
ratio to the memory floor (filling an array of the same size), and its max
error against the float64 formula. Targets at (65536, 512): at least 8x
faster than the float64 NumPy formula and at most 5x the fill floor.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np

from posenc.encoding import sinusoidal_encoding

SIZES = ((8192, 512), (65536, 512))
TARGET_SIZE = (65536, 512)
TARGET_SPEEDUP = 8.0
TARGET_FLOOR_RATIO = 5.0


def numpy_formula(num_positions, d_model):
    """The formula as usually written: every angle in float64, then sin and cos."""
    table = np.zeros((num_positions, d_model))
    position = np.arange(num_positions)[:, np.newaxis]
    div_term = np.exp(np.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
    table[:, 0::2] = np.sin(position * div_term)
    table[:, 1::2] = np.cos(position * div_term)
    return table


def torch_formula(num_positions, d_model):
    """The same formula in float32 PyTorch, as most tutorials write it."""
    import torch

    table = torch.zeros(num_positions, d_model)
    position = torch.arange(num_positions, dtype=torch.float).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float) * -(math.log(10000.0) / d_model))
    table[:, 0::2] = torch.sin(position * div_term)
    table[:, 1::2] = torch.cos(position * div_term)
    return table.numpy()


def fill_floor(num_positions, d_model):
    """Allocate and fill a float32 array of the same size: the memory floor."""
    table = np.empty((num_positions, d_model), np.float32)
    table.fill(0.5)
    return table


def posenc_float32(num_positions, d_model):
    return sinusoidal_encoding(num_positions, d_model, dtype=np.float32)


METHODS = {
    "posenc float32": posenc_float32,
    "numpy float64 formula": numpy_formula,
    "torch float32 formula": torch_formula,
    "fill (memory floor)": fill_floor,
}


def median_seconds(function, size, repeats):
    function(*size)  # warm-up: imports, caches
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function(*size)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="timed runs per method (default 7)")
    args = parser.parse_args(argv)

    met_all = True
    for size in SIZES:
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
        if size == TARGET_SIZE:
            speedup = seconds["numpy float64 formula"] / ours
            floor_ratio = ours / floor
            met = speedup >= TARGET_SPEEDUP and floor_ratio <= TARGET_FLOOR_RATIO
            met_all &= met
            print(
                f"target: >= {TARGET_SPEEDUP:g}x faster than the numpy formula (got {speedup:.1f}x), "
                f"<= {TARGET_FLOOR_RATIO:g}x the fill floor (got {floor_ratio:.1f}x): "
                f"{'met' if met else 'NOT met'}"
            )
    return 0 if met_all else 1


if __name__ == "__main__":
    raise SystemExit(main())
