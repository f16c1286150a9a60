"""The public API's type hints, as a user's type checker reads them: mypy on code that uses posenc.

posenc ships ``py.typed`` (PEP 561), so a checker reads its annotations. Each ``assert_type`` below is an
error for mypy unless the hint says exactly that type: a NumPy array in, a NumPy array out; a torch tensor
in, a torch tensor out (``posenc.apply_rope``'s overloads).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # mypy reads NumPy's and torch's stubs: about 15 s without a cache

USAGE = """\
from typing import assert_type

import numpy as np
import torch

import posenc
from posenc.nn import RotaryEmbedding

config = {"rope_theta": 10000.0, "head_dim": 64, "rope_scaling": {"rope_type": "linear", "factor": 2.0}}
params = posenc.rope_parameters(config)
assert_type(params, posenc.RopeParameters)
assert_type(params.frequencies, np.ndarray)
assert_type(params.attention_factor, float)
assert_type(posenc.apply_rope(np.ones((2, 64)), positions=[0, 1], layout="half"), np.ndarray)
assert_type(posenc.apply_rope(torch.ones(2, 64), frequencies=params.frequencies), torch.Tensor)
cos, sin = posenc.cos_sin_table(4, params.frequencies)
assert_type(cos, np.ndarray)
assert_type(posenc.positions_from_mask([[0, 1, 1]]), np.ndarray)
assert_type(posenc.packed_position_ids([2, 3]), np.ndarray)
rope = RotaryEmbedding.from_config(config, 128)
assert_type(rope, RotaryEmbedding)
"""


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One mypy cache for both tests: the second reads NumPy's and torch's stubs from it."""
    return tmp_path_factory.mktemp("mypy-cache")


def mypy(source: str, tmp_path, cache) -> subprocess.CompletedProcess:
    (tmp_path / "usage.py").write_text(source, encoding="utf-8")
    command = [sys.executable, "-m", "mypy", "--cache-dir", str(cache), "--strict-optional"]
    command += ["--no-error-summary", str(tmp_path / "usage.py")]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path)


def test_a_checker_reads_the_types_a_user_gets(tmp_path, cache):
    done = mypy(USAGE, tmp_path, cache)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_an_unknown_layout_is_an_error(tmp_path, cache):
    # layout is Literal["interleaved", "half"]: transformers' name for the half layout is not one of them.
    wrong = USAGE + 'posenc.apply_rope(np.ones((2, 64)), layout="rotate_half")\n'
    done = mypy(wrong, tmp_path, cache)
    assert done.returncode == 1 and 'No overload variant of "apply_rope"' in done.stdout, done.stdout
    assert "[call-overload]" in done.stdout and "Literal['interleaved', 'half']" in done.stdout, done.stdout


def test_a_wrong_type_is_an_error(tmp_path, cache):
    # The same check can fail: a tensor is not what apply_rope returns for an array.
    wrong = USAGE.replace(
        'positions=[0, 1], layout="half"), np.ndarray)', 'positions=[0, 1], layout="half"), torch.Tensor)'
    )
    assert wrong != USAGE
    done = mypy(wrong, tmp_path, cache)
    assert done.returncode == 1 and "[assert-type]" in done.stdout, done.stdout[-3000:]
