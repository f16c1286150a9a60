import numpy as np
import pytest
import torch

from posenc import apply_rope, bench, cos_sin_table, frequencies, sinusoidal_encoding


def test_reference_formulas_agree_with_posenc():
    expected = sinusoidal_encoding(300, 16)
    np.testing.assert_allclose(bench.numpy_formula(300, 16), expected, atol=1e-12)
    np.testing.assert_allclose(bench.torch_formula(300, 16), expected, atol=1e-5)
    assert bench.fill_floor(300, 16).shape == expected.shape


def test_published_rope_is_the_half_layout():
    x = np.random.default_rng(0).standard_normal((2, 50, 16)).astype(np.float32)
    expected = apply_rope(x.astype(np.float64), offset=7, layout="half")
    np.testing.assert_allclose(bench.published_rope(torch.from_numpy(x), 7).numpy(), expected, atol=1e-5)
    np.testing.assert_allclose(bench.reference_rope(x, 7), expected, rtol=0, atol=1e-12)


def test_published_tables_repeat_the_posenc_columns():
    cos, sin = cos_sin_table(300, frequencies(16))
    published = bench.published_tables(300, 16)
    assert published[0].shape == (300, 16) and published[0].dtype == torch.float32
    for table, expected in zip(published, (cos, sin), strict=True):
        np.testing.assert_allclose(table[:, :8].numpy(), expected, atol=1e-4)
        # The same angles in both halves; a vector kernel and its scalar tail may round them differently.
        np.testing.assert_allclose(table[:, :8].numpy(), table[:, 8:].numpy(), rtol=0, atol=1e-7)
    bf16 = bench.published_tables(300, 16, torch.bfloat16)
    assert bf16[0].dtype == torch.bfloat16
    reference = bench.reference_tables(300, 16)
    np.testing.assert_allclose(reference[0], cos, atol=1e-12)
    np.testing.assert_allclose(reference[1], sin, atol=1e-12)


def test_table_errors_in_chunks_equal_the_whole():
    theta = frequencies(8)
    cos, sin = cos_sin_table(1000, theta, dtype=np.float32)
    errors = bench.table_errors({"posenc": (cos, sin), "zeros": (0 * cos, 0 * sin)}, theta, rows=64)
    exact_cos, exact_sin = bench.reference_tables(1000, 8)
    whole = max(np.abs(cos - exact_cos).max(), np.abs(sin - exact_sin).max())
    # np.cos of a chunk and of the whole array can differ in the last bit (a vector kernel's tail).
    assert errors["posenc"] == pytest.approx(whole, rel=0, abs=1e-15)
    assert errors["zeros"] == 1.0


def test_main_prints_every_part(capsys, monkeypatch):
    monkeypatch.setattr(bench, "QUICK", bench.QUICK | {"ROPE_SHAPE": (2, 64, 16), "TABLE_SIZES": (256, 1024)})
    bench.main(["--quick", "--repeats", "1"])
    out = capsys.readouterr().out
    for name in bench.METHODS:
        assert out.count(name) == 2
    for name in ("published formula (torch)", "RotaryEmbedding, half", "apply_rope, interleaved"):
        assert out.count(name) == 1
    for name in ("posenc cos_sin_table", "published recipe float32", "published recipe bfloat16"):
        assert out.count(name) == 2
    assert out.count("target:") == 5
    assert "quick run" in out
    # The targets are checked, not printed: every line states met or NOT met.
    targets = [line for line in out.splitlines() if line.startswith("target:")]
    assert all(line.endswith((": met", ": NOT met")) for line in targets)
