import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc import frequencies, sinusoidal_encoding

d_models = st.integers(1, 64).map(lambda half: 2 * half)
bases = st.floats(1.5, 1e5)


def formula(pos, column, d_model, base=10000.0):
    """The paper's formula for one entry, written out with math, not NumPy."""
    i = column // 2
    angle = pos / base ** (2 * i / d_model)
    return math.sin(angle) if column % 2 == 0 else math.cos(angle)


@given(d_model=d_models, base=bases)
def test_frequencies_match_definition(d_model, base):
    omega = frequencies(d_model, base)
    assert omega.dtype == np.float64
    assert omega.shape == (d_model // 2,)
    expected = [base ** (-2 * i / d_model) for i in range(d_model // 2)]
    np.testing.assert_allclose(omega, expected, rtol=1e-14)


def test_wavelengths_span_two_pi_to_base_times_two_pi():
    wavelength = 2 * np.pi / frequencies(512)
    assert wavelength[0] == pytest.approx(2 * np.pi)
    assert wavelength[-1] < 10000 * 2 * np.pi
    assert wavelength[-1] == pytest.approx(10000 ** (510 / 512) * 2 * np.pi)
    assert np.all(np.diff(wavelength) > 0)


@given(num_positions=st.integers(0, 300), d_model=d_models, base=bases, data=st.data())
def test_encoding_matches_formula(num_positions, d_model, base, data):
    table = sinusoidal_encoding(num_positions, d_model, base=base)
    assert table.shape == (num_positions, d_model)
    assert table.dtype == np.float64
    if num_positions:
        pos = data.draw(st.integers(0, num_positions - 1))
        column = data.draw(st.integers(0, d_model - 1))
        assert table[pos, column] == pytest.approx(formula(pos, column, d_model, base), abs=1e-12)


@pytest.mark.parametrize("num_positions", [0, 1, 2, 3, 15, 16, 17, 1000, 4097])
def test_every_row_matches_formula(num_positions):
    table = sinusoidal_encoding(num_positions, 8)
    expected = [[formula(p, c, 8) for c in range(8)] for p in range(num_positions)]
    np.testing.assert_allclose(table, np.reshape(expected, (num_positions, 8)), rtol=0, atol=1e-12)


def test_float32_error_bound_up_to_a_million_positions():
    num_positions, d_model = 10**6, 64
    reference = np.arange(num_positions)[:, None] * frequencies(d_model)
    table = sinusoidal_encoding(num_positions, d_model, dtype=np.float32)
    assert table.dtype == np.float32
    assert np.abs(table[:, 0::2] - np.sin(reference)).max() <= 2.5e-7
    assert np.abs(table[:, 1::2] - np.cos(reference)).max() <= 2.5e-7


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.longdouble, "float32"])
def test_every_floating_dtype(dtype):
    table = sinusoidal_encoding(50, 6, dtype=dtype)
    assert table.dtype == np.dtype(dtype)
    tolerance = {2: 1e-3, 4: 1e-7}.get(np.dtype(dtype).itemsize, 1e-12)
    np.testing.assert_allclose(table.astype(np.float64), sinusoidal_encoding(50, 6), atol=tolerance)


def test_values_bounded_and_rows_distinct():
    table = sinusoidal_encoding(2000, 32)
    assert np.abs(table).max() <= 1.0
    squared_norms = (table**2).sum(axis=1)
    np.testing.assert_allclose(squared_norms, 16.0)
    assert len(np.unique(table.round(9), axis=0)) == 2000


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"d_model": 5}, ValueError, "d_model must be even"),
        ({"d_model": 0}, ValueError, "d_model must be >= 1"),
        ({"d_model": -4}, ValueError, "d_model must be >= 1"),
        ({"d_model": 4.0}, TypeError, "d_model must be an integer"),
        ({"d_model": "8"}, TypeError, "d_model must be an integer"),
        ({"d_model": True}, TypeError, "d_model must be an integer"),
        ({"num_positions": -1}, ValueError, "num_positions must be >= 0"),
        ({"num_positions": 3.0}, TypeError, "num_positions must be an integer"),
        ({"num_positions": "3"}, TypeError, "num_positions must be an integer"),
        ({"num_positions": False}, TypeError, "num_positions must be an integer"),
        ({"base": 0.0}, ValueError, "base must be > 1"),
        ({"base": -10.0}, ValueError, "base must be > 1"),
        ({"base": math.inf}, ValueError, "base must be finite"),
        ({"base": math.nan}, ValueError, "base must be finite"),
        ({"base": "10000"}, TypeError, "base must be a real number"),
        ({"base": True}, TypeError, "base must be a real number"),
        ({"dtype": np.int32}, TypeError, "dtype must be a NumPy floating type"),
        ({"dtype": np.complex128}, TypeError, "dtype must be a NumPy floating type"),
        ({"dtype": "banana"}, TypeError, "dtype must be a NumPy floating type"),
    ],
)
def test_bad_input_names_argument_and_rule(kwargs, error, words):
    arguments = {"num_positions": 4, "d_model": 8} | kwargs
    with pytest.raises(error, match=words):
        sinusoidal_encoding(arguments.pop("num_positions"), arguments.pop("d_model"), **arguments)


def test_frequencies_reject_bad_input():
    with pytest.raises(ValueError, match="d_model must be even"):
        frequencies(7)
    with pytest.raises(ValueError, match="base must be > 1"):
        frequencies(8, base=-1.0)


def test_numpy_integers_are_accepted():
    table = sinusoidal_encoding(np.int64(3), np.int32(4))
    assert table.shape == (3, 4)


def test_import_posenc_does_not_import_torch():
    code = "import sys, posenc; posenc.sinusoidal_encoding(3, 4); print('torch' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
