import math

import numpy as np
import pytest
import torch

from posenc import apply_rope, cos_sin_table, rope_frequencies, sinusoidal_encoding
from posenc.nn import InputEmbeddings, PositionalEncoding, RotaryEmbedding


def test_input_embeddings_scale_by_sqrt_d_model():
    torch.manual_seed(0)
    layer = InputEmbeddings(vocab_size=10, d_model=16)
    ids = torch.tensor([[1, 2, 3], [4, 5, 6]])
    out = layer(ids)
    assert out.shape == (2, 3, 16)
    torch.testing.assert_close(out, layer.embedding.weight[ids] * math.sqrt(16))


def test_source_batch_shapes():
    torch.manual_seed(0)
    embedded = InputEmbeddings(10_000, 512)(torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]]))
    out = PositionalEncoding(d_model=512, max_seq_length=4)(embedded)
    assert out.shape == torch.Size([2, 4, 512])


def test_adds_the_numpy_table():
    layer = PositionalEncoding(d_model=8, max_seq_length=10)
    x = torch.zeros(3, 7, 8)
    expected = torch.from_numpy(sinusoidal_encoding(7, 8, dtype=np.float32))
    for row in layer(x):
        torch.testing.assert_close(row, expected, rtol=0, atol=0)


def test_table_is_a_buffer_not_a_parameter():
    layer = PositionalEncoding(d_model=8, max_seq_length=5)
    assert list(layer.state_dict()) == ["pe"]
    assert layer.state_dict()["pe"].shape == (1, 5, 8)
    assert list(layer.parameters()) == []


def test_follows_dtype_and_device():
    layer = PositionalEncoding(d_model=8, max_seq_length=5).to(torch.float64)
    assert layer.pe.dtype == torch.float64
    out = layer(torch.zeros(1, 5, 8, dtype=torch.float64))
    assert out.dtype == torch.float64
    layer = layer.to("cpu")
    assert layer.pe.device.type == "cpu"


def test_state_dict_round_trip():
    source = PositionalEncoding(d_model=8, max_seq_length=5)
    target = PositionalEncoding(d_model=8, max_seq_length=5)
    target.pe.zero_()
    target.load_state_dict(source.state_dict())
    torch.testing.assert_close(target.pe, source.pe)


def test_too_long_sequence_names_both_numbers():
    layer = PositionalEncoding(d_model=8, max_seq_length=4)
    with pytest.raises(ValueError, match=r"sequence length 6 exceeds max_seq_length 4"):
        layer(torch.zeros(1, 6, 8))


def test_wrong_width_or_rank():
    layer = PositionalEncoding(d_model=8, max_seq_length=4)
    with pytest.raises(ValueError, match=r"d_model=8"):
        layer(torch.zeros(1, 3, 6))
    with pytest.raises(ValueError, match=r"\(batch, seq, d_model=8\)"):
        layer(torch.zeros(3, 8))


@pytest.mark.parametrize(
    ("build", "error", "words"),
    [
        (lambda: InputEmbeddings(0, 8), ValueError, "vocab_size must be >= 1"),
        (lambda: InputEmbeddings(10, 7), ValueError, "d_model must be even"),
        (lambda: InputEmbeddings(10.0, 8), TypeError, "vocab_size must be an integer"),
        (lambda: PositionalEncoding(8, 0), ValueError, "max_seq_length must be >= 1"),
        (lambda: PositionalEncoding(-2, 4), ValueError, "d_model must be >= 1"),
        (lambda: PositionalEncoding(8, "4"), TypeError, "max_seq_length must be an integer"),
    ],
)
def test_bad_constructor_arguments(build, error, words):
    with pytest.raises(error, match=words):
        build()


def rope_inputs(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize(("shape", "offset"), [((2, 3, 7, 16), 0), ((5, 8), 11), ((4, 1, 2), 19)])
def test_rotary_embedding_equals_apply_rope(layout, shape, offset):
    layer = RotaryEmbedding(shape[-1], 20, layout=layout)
    x = rope_inputs(shape)
    out = layer(torch.from_numpy(x), offset=offset)
    assert out.dtype == torch.float32
    expected = apply_rope(x, offset=offset, layout=layout)
    torch.testing.assert_close(out, torch.from_numpy(expected), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rotary_embedding_with_custom_frequencies(layout):
    theta = np.array([0.7, 0.02, 3e-4])
    layer = RotaryEmbedding(6, 50, layout=layout, frequencies=theta)
    x = rope_inputs((3, 40, 6), seed=1)
    expected = apply_rope(x, offset=10, layout=layout, frequencies=theta)
    torch.testing.assert_close(layer(torch.from_numpy(x), offset=10), torch.from_numpy(expected))


def test_rotary_tables_come_from_the_accurate_table():
    layer = RotaryEmbedding(8, 3000, base=500.0)
    cos, sin = cos_sin_table(3000, rope_frequencies(8, 500.0), dtype=np.float32)
    assert layer.cos.shape == (3000, 4) and layer.cos.dtype == torch.float32
    np.testing.assert_array_equal(layer.cos.numpy(), cos)
    np.testing.assert_array_equal(layer.sin.numpy(), sin)


def test_rotary_tables_stay_out_of_state_dict():
    layer = RotaryEmbedding(8, 16)
    assert dict(layer.named_buffers()).keys() == {"cos", "sin"}
    assert list(layer.state_dict()) == []
    assert list(layer.parameters()) == []
    layer.load_state_dict(RotaryEmbedding(8, 16).state_dict())
    # Inside a model, the checkpoint holds the weights and not the tables.
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), RotaryEmbedding(8, 16))
    assert sorted(model.state_dict()) == ["0.bias", "0.weight"]


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rotary_embedding_follows_float64(layout):
    layer = RotaryEmbedding(8, 16, layout=layout).to(torch.float64)
    assert layer.cos.dtype == torch.float64 and layer.sin.dtype == torch.float64
    x = rope_inputs((2, 16, 8), seed=2, dtype=np.float64)
    out = layer(torch.from_numpy(x), offset=0)
    assert out.dtype == torch.float64
    # The tables were rounded to float32 once; the rotation then runs in float64.
    torch.testing.assert_close(out, torch.from_numpy(apply_rope(x, layout=layout)), rtol=0, atol=1e-6)
    assert layer.to("cpu").cos.device.type == "cpu"


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_precision_input_is_rotated_with_float32_tables(layout, dtype):
    layer = RotaryEmbedding(16, 400, layout=layout)
    x = torch.from_numpy(rope_inputs((2, 300, 16), seed=3)).to(dtype)
    out = layer(x, offset=100)
    assert out.dtype == dtype
    # Rotated in float32 and rounded once: exactly the float32 result, rounded.
    torch.testing.assert_close(out, layer(x.float(), offset=100).to(dtype), rtol=0, atol=0)
    expected = apply_rope(x.float().numpy(), offset=100, layout=layout)
    torch.testing.assert_close(out, torch.from_numpy(expected).to(dtype))


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_a_module_cast_to_bfloat16_rounds_its_tables(layout):
    # .to(bfloat16) casts the buffers too: the rotation then runs in bfloat16.
    layer = RotaryEmbedding(16, 400, layout=layout).to(torch.bfloat16)
    assert layer.cos.dtype == torch.bfloat16
    x = torch.from_numpy(rope_inputs((2, 300, 16), seed=6))
    out = layer(x.to(torch.bfloat16), offset=100)
    assert out.dtype == torch.bfloat16
    cos, sin = layer.cos[100:].double(), layer.sin[100:].double()
    if layout == "interleaved":
        a, b = x[..., 0::2].to(torch.bfloat16).double(), x[..., 1::2].to(torch.bfloat16).double()
        expected = torch.stack((a * cos - b * sin, a * sin + b * cos), -1).flatten(-2)
    else:
        a, b = x[..., :8].to(torch.bfloat16).double(), x[..., 8:].to(torch.bfloat16).double()
        expected = torch.cat((a * cos - b * sin, a * sin + b * cos), -1)
    torch.testing.assert_close(out.double(), expected, rtol=0, atol=0.04)
    exact = torch.from_numpy(apply_rope(x.to(torch.bfloat16).double().numpy(), offset=100, layout=layout))
    assert (out.double() - exact).abs().max() > 1e-3


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rotary_embedding_on_views_and_with_gradients(layout):
    layer = RotaryEmbedding(8, 10, layout=layout)
    # (batch, seq, heads, dim) transposed to (batch, heads, seq, dim): not contiguous.
    x = torch.from_numpy(rope_inputs((2, 10, 3, 8), seed=4)).transpose(1, 2).requires_grad_(True)
    out = layer(x)
    torch.testing.assert_close(out, layer(x.detach().contiguous()))
    # The rotation is orthogonal, so the gradient of |out|^2 / 2 is x itself.
    (out.square().sum() / 2).backward()
    torch.testing.assert_close(x.grad, x.detach(), rtol=1e-5, atol=1e-5)


def test_rotary_offset_past_the_table_names_the_numbers():
    layer = RotaryEmbedding(8, 16)
    layer(torch.zeros(1, 6, 8), offset=10)
    with pytest.raises(ValueError, match=r"offset \+ seq_len = 11 \+ 6 = 17 exceeds max_seq_length 16"):
        layer(torch.zeros(1, 6, 8), offset=11)


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: RotaryEmbedding(7, 16), ValueError, "dim must be even"),
        (lambda: RotaryEmbedding(0, 16), ValueError, "dim must be >= 1"),
        (lambda: RotaryEmbedding(8.0, 16), TypeError, "dim must be an integer"),
        (lambda: RotaryEmbedding(True, 16), TypeError, "dim must be an integer"),
        (lambda: RotaryEmbedding(8, 0), ValueError, "max_seq_length must be >= 1"),
        (lambda: RotaryEmbedding(8, 16.0), TypeError, "max_seq_length must be an integer"),
        (lambda: RotaryEmbedding(8, 16, layout="neox"), ValueError, "layout must be one of"),
        (lambda: RotaryEmbedding(8, 16, base=-1.0), ValueError, "base must be > 0"),
        (lambda: RotaryEmbedding(8, 16, frequencies=[1.0]), ValueError, "frequencies must have length"),
        (lambda: RotaryEmbedding(4, 16, frequencies=[1.0, -1.0]), ValueError, "finite and > 0"),
        (
            lambda: RotaryEmbedding(8, 16)(torch.zeros(2, 8), offset=1.0),
            TypeError,
            "offset must be an integer",
        ),
        (lambda: RotaryEmbedding(8, 16)(torch.zeros(2, 8), offset=True), TypeError, "offset must be an int"),
        (lambda: RotaryEmbedding(8, 16)(torch.zeros(2, 8), offset=-1), ValueError, "offset must be >= 0"),
        (lambda: RotaryEmbedding(8, 16)(torch.zeros(2, 6)), ValueError, r"\(\.\.\., seq_len, dim=8\)"),
        (lambda: RotaryEmbedding(8, 16)(torch.zeros(8)), ValueError, r"\(\.\.\., seq_len, dim=8\)"),
        (lambda: RotaryEmbedding(8, 16)(torch.zeros(2, 8, dtype=torch.long)), TypeError, "floating-point"),
    ],
)
def test_rotary_bad_arguments(call, error, words):
    with pytest.raises(error, match=words):
        call()
