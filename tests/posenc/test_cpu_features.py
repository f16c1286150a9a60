"""The fast unit tests pass with NumPy's AVX-512 kernels disabled and PyTorch's capped at AVX2.

NumPy's float64 ``pow``, ``exp``, ``sin`` and ``cos`` take a different kernel on a CPU with AVX-512
(``X86_V4``, ``AVX512_ICL``, ``AVX512_SPR``) than on one without, and the two can differ in the last
bit; torch likewise picks its kernels by CPU capability (tests/cpu_limits.py). A test that compares
such results exactly passes on one machine and fails on the other (tests/posenc/test_scaling.py did, on
AVX-512). The main run uses the machine's own kernels; this test re-runs the unit-test modules in a
subprocess with the AVX2 ones, so both paths are checked on a machine that has AVX-512. On a machine
without it the two runs are the same. About 20 s.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cpu_limits import AVX2_ONLY

pytestmark = pytest.mark.slow  # the unit tests again, in a subprocess

ROOT = Path(__file__).resolve().parents[2]
# The same limits as tests/book/test_avx2_nbval.py, which re-runs notebooks the same way.
LIMITED = AVX2_ONLY
MODULES = ["test_encoding", "test_rope", "test_scaling", "test_relative", "test_rotation", "test_nn"]
# Set in the subprocess; a run that has it never starts another one.
NESTED = "POSENC_LIMITED_CPU_RUN"

CHECK = """
import numpy, torch
from numpy._core._multiarray_umath import __cpu_features__ as features
print(features.get("AVX512_SKX", False), features.get("AVX512_ICL", False))
print(torch.backends.cpu.get_cpu_capability())
"""


def limited_env() -> dict[str, str]:
    return {**os.environ, **LIMITED, NESTED: "1", "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}


@pytest.mark.skipif(os.environ.get(NESTED) == "1", reason="already inside the limited-CPU run")
def test_unit_tests_pass_with_avx2_kernels():
    env = limited_env()
    # The limits took hold: no AVX-512 kernel in NumPy, at most AVX2 in torch.
    probe = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, check=True)
    skx, icl, capability = probe.stdout.split()
    assert (skx, icl) == ("False", "False") and capability in {"AVX2", "DEFAULT"}, probe.stdout

    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q"]
    command += [f"tests/posenc/{name}.py" for name in MODULES]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout, done.stdout[-2000:]
