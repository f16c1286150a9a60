import numpy as np
import pytest

from posenc import bench, cos_sin_table, frequencies
from posenc.bench import baselines


def test_table_errors_in_chunks_equal_the_whole():
    theta = frequencies(8)
    cos, sin = cos_sin_table(1000, theta, dtype=np.float32)
    errors = bench.table_errors({"posenc": (cos, sin), "zeros": (0 * cos, 0 * sin)}, theta, rows=64)
    exact_cos, exact_sin = baselines.reference_tables(1000, 8)
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
    for name in ("published formula (torch)", "apply_rope, interleaved", "copy of x (memory floor)"):
        assert out.count(name) == 1
    assert out.count("RotaryEmbedding, half") == 2  # its row and its floor target
    assert out.count("transformers apply_rotary_pos_emb / 2") == 1
    for name in ("posenc cos_sin_table", "published recipe float32", "published recipe bfloat16"):
        assert out.count(name) == 2
    assert out.count("target:") == 6
    assert "quick run" in out
    # The targets are checked, not printed: every line states met or NOT met.
    targets = [line for line in out.splitlines() if line.startswith("target:")]
    assert all(line.endswith((": met", ": NOT met")) for line in targets)
