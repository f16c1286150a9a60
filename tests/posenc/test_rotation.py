import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc import frequencies, rotation_matrix, sinusoidal_encoding

d_models = st.integers(1, 32).map(lambda half: 2 * half)
offsets = st.floats(-500, 500, allow_nan=False)


def encode(pos, d_model):
    """PE at a real-valued position, straight from the formula."""
    angles = pos * frequencies(d_model)
    return np.ravel(np.column_stack([np.sin(angles), np.cos(angles)]))


@given(d_model=d_models, pos=st.floats(-1000, 1000), k=offsets)
def test_rotation_shifts_position(d_model, pos, k):
    np.testing.assert_allclose(
        rotation_matrix(k, d_model) @ encode(pos, d_model), encode(pos + k, d_model), atol=1e-9
    )


@given(d_model=d_models, k=st.integers(-50, 50))
def test_rotation_shifts_every_row_of_the_table(d_model, k):
    table = sinusoidal_encoding(150, d_model)
    shifted = table[60:100] @ rotation_matrix(k, d_model).T
    np.testing.assert_allclose(shifted, table[60 + k : 100 + k], atol=1e-10)


@given(d_model=d_models, k=offsets)
def test_rotation_is_orthogonal(d_model, k):
    matrix = rotation_matrix(k, d_model)
    np.testing.assert_allclose(matrix @ matrix.T, np.eye(d_model), atol=1e-12)
    assert np.linalg.det(matrix) == pytest.approx(1.0)


@given(d_model=d_models, a=offsets, b=offsets)
def test_rotations_compose(d_model, a, b):
    np.testing.assert_allclose(
        rotation_matrix(a, d_model) @ rotation_matrix(b, d_model), rotation_matrix(a + b, d_model), atol=1e-10
    )


def test_block_structure():
    k, d_model = 3, 6
    matrix = rotation_matrix(k, d_model)
    for i, omega in enumerate(frequencies(d_model)):
        block = matrix[2 * i : 2 * i + 2, 2 * i : 2 * i + 2]
        c, s = np.cos(k * omega), np.sin(k * omega)
        # np.cos of a scalar and of the whole array may take different (SIMD or scalar) kernels.
        np.testing.assert_allclose(block, [[c, s], [-s, c]], rtol=0, atol=1e-15)
    off_diagonal = matrix.copy()
    for i in range(d_model // 2):
        off_diagonal[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = 0
    assert not off_diagonal.any()
    assert matrix.dtype == np.float64 and matrix.shape == (6, 6)


@pytest.mark.parametrize(
    ("k", "d_model", "error", "words"),
    [
        (np.inf, 4, ValueError, "k must be finite"),
        (np.nan, 4, ValueError, "k must be finite"),
        ("1", 4, TypeError, "k must be a real number"),
        (True, 4, TypeError, "k must be a real number"),
        (1, 3, ValueError, "d_model must be even"),
        (1, 0, ValueError, "d_model must be >= 1"),
        (1, 2.0, TypeError, "d_model must be an integer"),
    ],
)
def test_bad_input(k, d_model, error, words):
    with pytest.raises(error, match=words):
        rotation_matrix(k, d_model)


def test_bad_base():
    with pytest.raises(ValueError, match="base must be > 1"):
        rotation_matrix(1, 4, base=0)
