import numpy as np

from posenc import bench, sinusoidal_encoding


def test_reference_formulas_agree_with_posenc():
    expected = sinusoidal_encoding(300, 16)
    np.testing.assert_allclose(bench.numpy_formula(300, 16), expected, atol=1e-12)
    np.testing.assert_allclose(bench.torch_formula(300, 16), expected, atol=1e-5)
    assert bench.fill_floor(300, 16).shape == expected.shape


def test_main_prints_a_table_for_every_size(capsys, monkeypatch):
    monkeypatch.setattr(bench, "SIZES", ((64, 8), (128, 8)))
    monkeypatch.setattr(bench, "TARGET_SIZE", (128, 8))
    bench.main(["--repeats", "1"])
    out = capsys.readouterr().out
    for name in bench.METHODS:
        assert out.count(name) == 2
    assert "target:" in out
