"""Chapter 8's stored outputs survive NumPy and torch limited to AVX2 kernels.

A trained model's accuracy depends on the rounding of every sum in training, and
the rounding depends on the CPU's vector kernels. The chapter prints bands, not
exact percentages, so that its outputs are the same on any CPU; this test runs
nbval over the English edition with NumPy's AVX-512 dispatch disabled and
PyTorch's ATen kernels capped at AVX2. The three editions share code and
outputs (tests/test_parity.py), so one edition is enough. It takes as long as
the notebook itself, about two minutes on one thread.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from book_files import BOOK, ROOT

NOTEBOOK = BOOK / "en" / "08_experiment.ipynb"
LIMITED = {"NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL", "ATEN_CPU_CAPABILITY": "avx2"}


@pytest.mark.skipif(not NOTEBOOK.exists(), reason="chapter 8 is not in the book yet")
def test_chapter_8_outputs_are_the_same_with_avx2_kernels():
    env = {**os.environ, **LIMITED, "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
    command += ["--nbval", "--nbval-current-env"]
    command.append(str(NOTEBOOK.relative_to(ROOT)))
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
