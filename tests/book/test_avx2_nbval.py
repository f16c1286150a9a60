"""Chapter 8's stored outputs, and the interactive figures', survive NumPy and torch limited to AVX2 kernels.

A trained model's accuracy depends on the rounding of every sum in training, and
the rounding depends on the CPU's vector kernels. Chapter 8 therefore shows the
stored results of its whole experiment (``posenc.experiment.results``; a re-run of the
experiment is checked against them in tests/posenc/experiment/test_chapter_sweep.py), and the
runs it makes itself print only what holds on any CPU: exact agreement between
two runs in the same process, or agreement with the stored results within the
stated tolerance. This test runs nbval over the English edition with NumPy's
AVX-512 dispatch disabled and PyTorch's ATen kernels capped at AVX2, so that a
machine without AVX-512 is checked too. The three editions share code and
outputs (tests/book/test_parity.py), so one edition is enough.

The interactive figures of chapters 2, 5 and 6 store their numbers, rounded, in
JSON, and a PNG drawn from them: the second test re-runs those three chapters
the same way (about 30 seconds), and so is chapter 9, whose serving demonstrations
generate text greedily (about 10 seconds).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from book_files import BOOK, ROOT
from cpu_limits import AVX2_ONLY

# Each test re-runs notebooks under nbval: 15 to 35 s each on two cores.
pytestmark = pytest.mark.slow

NOTEBOOK = BOOK / "en" / "08_experiment.ipynb"
LIMITED = AVX2_ONLY


INTERACTIVE = [BOOK / "en" / f"{name}.ipynb" for name in ("02_formula", "05_rotation", "06_rope")]


def nbval_with_avx2(notebooks) -> subprocess.CompletedProcess:
    env = {**os.environ, **LIMITED, "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
    command += ["--nbval", "--nbval-current-env"]
    command += [str(path.relative_to(ROOT)) for path in notebooks]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)


def test_chapter_8_outputs_are_the_same_with_avx2_kernels():
    done = nbval_with_avx2([NOTEBOOK])
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_chapter_9_outputs_are_the_same_with_avx2_kernels():
    """Chapter 9's serving demonstrations run in float64, so that greedy choices do not depend on the CPU."""
    done = nbval_with_avx2([BOOK / "en" / "09_rope_today.ipynb"])
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout, done.stdout[-2000:]


def test_interactive_figures_are_the_same_with_avx2_kernels():
    done = nbval_with_avx2(INTERACTIVE)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout, done.stdout[-2000:]
