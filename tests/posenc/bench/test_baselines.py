"""posenc.bench.baselines: the published formulas agree with posenc, and the references with both."""

import numpy as np
import torch
from hf_reference import transformers_or_skip

from posenc import apply_rope, cos_sin_table, frequencies, sinusoidal_encoding
from posenc.bench import baselines


def test_reference_formulas_agree_with_posenc():
    expected = sinusoidal_encoding(300, 16)
    np.testing.assert_allclose(baselines.numpy_formula(300, 16), expected, atol=1e-12)
    np.testing.assert_allclose(baselines.torch_formula(300, 16), expected, atol=1e-5)
    assert baselines.fill_floor(300, 16).shape == expected.shape


def test_published_rope_is_the_half_layout():
    x = np.random.default_rng(0).standard_normal((2, 50, 16)).astype(np.float32)
    expected = apply_rope(x.astype(np.float64), offset=7, layout="half")
    np.testing.assert_allclose(baselines.published_rope(torch.from_numpy(x), 7).numpy(), expected, atol=1e-5)
    np.testing.assert_allclose(baselines.reference_rope(x, 7), expected, rtol=0, atol=1e-12)


def test_published_tables_repeat_the_posenc_columns():
    cos, sin = cos_sin_table(300, frequencies(16))
    published = baselines.published_tables(300, 16)
    assert published[0].shape == (300, 16) and published[0].dtype == torch.float32
    for table, expected in zip(published, (cos, sin), strict=True):
        np.testing.assert_allclose(table[:, :8].numpy(), expected, atol=1e-4)
        # The same angles in both halves; a vector kernel and its scalar tail may round them differently.
        np.testing.assert_allclose(table[:, :8].numpy(), table[:, 8:].numpy(), rtol=0, atol=1e-7)
    bf16 = baselines.published_tables(300, 16, torch.bfloat16)
    assert bf16[0].dtype == torch.bfloat16
    reference = baselines.reference_tables(300, 16)
    np.testing.assert_allclose(reference[0], cos, atol=1e-12)
    np.testing.assert_allclose(reference[1], sin, atol=1e-12)


def test_apply_rotary_pos_emb_is_transformers():
    """The transcription the benchmark times returns what transformers' own function returns."""
    transformers_or_skip()
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    generator = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 2, 3, 5, 8, generator=generator)
    cos, sin = torch.randn(2, 2, 5, 8, generator=generator)
    for ours, theirs in zip(
        baselines.apply_rotary_pos_emb(q, k, cos, sin), apply_rotary_pos_emb(q, k, cos, sin), strict=True
    ):
        assert torch.equal(ours, theirs)
