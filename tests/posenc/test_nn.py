import math

import numpy as np
import pytest
import torch
from hf_reference import transformers_or_skip

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


CASTS = {
    ".to(torch.bfloat16)": lambda module: module.to(torch.bfloat16),
    ".half()": lambda module: module.half(),
    "a parent's .bfloat16()": lambda module: torch.nn.Sequential(torch.nn.Linear(16, 16), module).bfloat16(),
    ".to('meta', torch.float16)": lambda module: module.to("meta", torch.float16),
    ".double().half()": lambda module: module.double().half(),
}


@pytest.mark.parametrize("cast", CASTS)
def test_tables_stay_float32_under_casts(cast):
    layer = RotaryEmbedding(16, 400)
    cos, sin = layer.cos.clone(), layer.sin.clone()
    model = CASTS[cast](layer)
    assert layer.cos.dtype == torch.float32 and layer.sin.dtype == torch.float32
    if "meta" in cast:
        # A device move still applies: the tables follow the module to the new device.
        assert layer.cos.device.type == "meta" and layer.sin.device.type == "meta"
        return
    # The same float32 numbers, not bfloat16 ones cast back.
    torch.testing.assert_close(layer.cos, cos, rtol=0, atol=0)
    torch.testing.assert_close(layer.sin, sin, rtol=0, atol=0)
    if isinstance(model, torch.nn.Sequential):
        assert model[0].weight.dtype == torch.bfloat16  # the rest of the model was cast


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_a_module_cast_to_bfloat16_rotates_in_float32_and_rounds_once(layout):
    layer = RotaryEmbedding(16, 400, layout=layout).to(torch.bfloat16)
    x = torch.from_numpy(rope_inputs((2, 300, 16), seed=6)).to(torch.bfloat16)
    out = layer(x, offset=100)
    assert out.dtype == torch.bfloat16
    fresh = RotaryEmbedding(16, 400, layout=layout)
    torch.testing.assert_close(out, fresh(x.float(), offset=100).to(torch.bfloat16), rtol=0, atol=0)


def bfloat16_rotation(x, cos, sin):
    """The half-layout rotation in bfloat16, as this module computed it before its tables stayed float32."""
    cos, sin = cos.to(torch.bfloat16), sin.to(torch.bfloat16)
    first, second = x[..., :64], x[..., 64:]
    rotated = (torch.addcmul(first * cos, second, sin, value=-1), torch.addcmul(first * sin, second, cos))
    return torch.cat(rotated, dim=-1)


def test_bfloat16_error_against_float64_with_float32_tables():
    # Chapter 7's fix #3 under a model's cast: bfloat16 input at 8,192 positions, dim 128.
    torch.manual_seed(0)
    x = torch.randn(8192, 128).to(torch.bfloat16)
    exact = torch.from_numpy(apply_rope(x.double().numpy(), layout="half"))
    layer = RotaryEmbedding(128, 8192, layout="half").to(torch.bfloat16)
    kept = (layer(x).double() - exact).abs().max().item()
    cast = (bfloat16_rotation(x, layer.cos, layer.sin).double() - exact).abs().max().item()
    print(
        f"\nbf16 input, 8192 positions: max error {kept:.2e} with float32 tables, {cast:.2e} with bf16 ones"
    )
    # One rounding to bfloat16 (half a step, 2 ** -8 relative, of entries up to ~4.5): about 1.5e-2.
    largest = exact.abs().max().item()
    assert kept <= largest * 2**-8 * 1.01
    assert kept < 0.02 < cast


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
        (lambda: RotaryEmbedding(8, 16, base=-1.0), ValueError, "base must be > 1"),
        (lambda: RotaryEmbedding(8, 16, frequencies=[1.0]), ValueError, "frequencies must have length"),
        (lambda: RotaryEmbedding(4, 16, frequencies=[1.0, -1.0]), ValueError, "finite and >= 0"),
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
        (lambda: RotaryEmbedding(8, 16, rotary_dim=10), ValueError, "rotary_dim must be <= dim = 8"),
        (lambda: RotaryEmbedding(8, 16, rotary_dim=3), ValueError, "rotary_dim must be even"),
        (
            lambda: RotaryEmbedding(8, 16, rotary_dim=4, frequencies=[1.0] * 4),
            ValueError,
            "length dim // 2 = 2",
        ),
    ],
)
def test_rotary_bad_arguments(call, error, words):
    with pytest.raises(error, match=words):
        call()


# ----------------------------------------------------------------------------- per-token positions


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_positions_and_tensor_offsets_equal_the_int_offset(layout):
    layer = RotaryEmbedding(16, 64, layout=layout)
    x = torch.from_numpy(rope_inputs((2, 3, 10, 16), seed=9))
    expected = layer(x, offset=7)
    # The same rows of the same tables, gathered instead of sliced: the same bits.
    for kwargs in (
        {"positions": torch.arange(7, 17)},
        {"positions": torch.arange(7, 17).expand(2, 10)},
        {"positions": np.arange(7, 17, dtype=np.int32)},
        {"offset": torch.tensor(7)},
        {"offset": torch.tensor(7, dtype=torch.int32)},
    ):
        torch.testing.assert_close(layer(x, **kwargs), expected, rtol=0, atol=0)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_positions_per_sequence_equal_apply_rope(layout):
    layer = RotaryEmbedding(16, 64, layout=layout)
    x = rope_inputs((2, 3, 6, 16), seed=10)
    positions = np.array([[1, 1, 0, 1, 2, 3], [0, 1, 2, 0, 1, 2]])
    out = layer(torch.from_numpy(x), positions=torch.from_numpy(positions))
    expected = apply_rope(x, positions=positions, layout=layout)
    torch.testing.assert_close(out, torch.from_numpy(expected), rtol=1e-6, atol=1e-6)


@pytest.fixture(scope="module")
def hf_llama():
    """HF's Llama rotary (``LlamaRotaryEmbedding`` and ``apply_rotary_pos_emb``) for a head of 16."""
    transformers_or_skip()
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    config = LlamaConfig(hidden_size=64, num_attention_heads=4, head_dim=16, max_position_embeddings=64)
    config.rope_parameters["rope_theta"] = 500.0
    rotary = LlamaRotaryEmbedding(config)

    def rotate(q, position_ids):
        cos, sin = rotary(q, position_ids)
        return apply_rotary_pos_emb(q, q, cos, sin)[0]

    return rotate


def left_padded_position_ids(mask):
    # What HF's generate() builds from the attention mask (transformers 5.23, generation/utils.py): positions
    # count the real tokens only, and pads get 0 (transformers 4 wrote 1 there; the pads are masked anyway).
    return (mask.cumsum(-1) - 1).masked_fill(mask == 0, 0)


BATCHES = {
    "left-padded": left_padded_position_ids(torch.tensor([[0, 0, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1]])),
    # Three documents packed in one row, two in the other: positions restart at 0 for each.
    "packed": torch.tensor([[0, 1, 2, 0, 1, 0, 1], [0, 1, 2, 3, 0, 1, 2]]),
}


@pytest.mark.parametrize("batch", BATCHES)
def test_positions_equal_hugging_face_position_ids(hf_llama, batch):
    position_ids = BATCHES[batch]
    q = torch.from_numpy(rope_inputs((2, 4, 7, 16), seed=11))
    expected = hf_llama(q, position_ids)
    ours = RotaryEmbedding(16, 64, base=500.0, layout="half")(q, positions=position_ids)
    # HF's angles are float32 products (relative error 6e-8 at positions below 8): within 1e-6.
    torch.testing.assert_close(ours, expected, rtol=0, atol=1e-6)
    numpy = apply_rope(q.double().numpy(), positions=position_ids.numpy(), base=500.0, layout="half")
    torch.testing.assert_close(torch.from_numpy(numpy).float(), expected, rtol=0, atol=1e-6)
    # And it is not the cache-length (offset) rotation, which ignores the padding and the resets.
    assert (RotaryEmbedding(16, 64, base=500.0, layout="half")(q) - expected).abs().max() > 0.1


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"positions": torch.tensor([0, 1, -1])}, ValueError, "positions must be >= 0, got minimum -1"),
        ({"positions": torch.tensor([0.0, 1.0, 2.0])}, TypeError, "positions must be an integer tensor"),
        ({"positions": torch.tensor([True, False, True])}, TypeError, "positions must be an integer tensor"),
        ({"positions": torch.tensor([0, 1, 16])}, ValueError, "positions must be < max_seq_length = 16"),
        ({"positions": torch.tensor([0, 1])}, ValueError, r"positions must have shape \(seq_len,\) = \(3,\)"),
        ({"positions": torch.zeros(2, 3, dtype=torch.long)}, ValueError, "positions must have shape"),
        ({"positions": torch.arange(3), "offset": 2}, ValueError, "give offset or positions, not both"),
        ({"positions": torch.arange(3), "offset": torch.tensor(0)}, ValueError, "not both"),
        ({"positions": [0.5, 1.0, 2.0]}, TypeError, "positions must be an integer tensor"),
        (
            {"offset": torch.tensor(14)},
            ValueError,
            r"offset \+ t must be < max_seq_length = 16 \(the rows of the tables; build the module with a "
            r"larger max_seq_length\), got maximum 16",
        ),
        ({"offset": torch.tensor(-1)}, ValueError, r"offset \+ t must be >= 0"),
        ({"offset": torch.tensor([1])}, TypeError, "offset must be an integer or a 0-d integer tensor"),
        ({"offset": torch.tensor(1.0)}, TypeError, "0-d integer tensor, got a tensor of dtype torch.float32"),
    ],
)
def test_bad_positions_name_the_argument(kwargs, error, words):
    with pytest.raises(error, match=words):
        RotaryEmbedding(8, 16)(torch.zeros(1, 2, 3, 8), **kwargs)


def test_two_dimensional_positions_need_a_batch_axis():
    layer = RotaryEmbedding(8, 16)
    # x without a batch axis: only (seq_len,) is named, not a two-dimensional form it cannot take.
    with pytest.raises(
        ValueError, match=r"= \(3,\); got positions of shape \(2, 3\) for x of shape \(3, 8\)"
    ):
        layer(torch.zeros(3, 8), positions=torch.zeros(2, 3, dtype=torch.long))
    with pytest.raises(
        ValueError, match=r"or \(batch, seq_len\) = \(2, 3\) or \(1, 3\), one row per sequence"
    ):
        layer(torch.zeros(2, 3, 8), positions=torch.zeros(3, 3, dtype=torch.long))
    with pytest.raises(ValueError, match=r"got positions of shape \(3, 3\) for x of shape \(2, 3, 8\)"):
        layer(torch.zeros(2, 3, 8), positions=torch.zeros(3, 3, dtype=torch.long))


def test_two_dimensional_positions_for_batch_seq_dim():
    """(batch, seq_len, dim) input takes one row of positions per sequence, as the 4-D input does."""
    layer = RotaryEmbedding(8, 16, layout="half")
    x = torch.from_numpy(rope_inputs((2, 5, 8), seed=3))
    positions = torch.tensor([[0, 0, 1, 2, 3], [0, 1, 2, 3, 4]])
    expected = torch.stack([layer(x[row], positions=positions[row]) for row in range(2)])
    torch.testing.assert_close(layer(x, positions=positions), expected, rtol=0, atol=0)


# ----------------------------------------------------------------------------- partial rotary


@pytest.fixture(scope="module")
def hf_neox():
    """HF's GPT-NeoX rotary with ``rotary_pct = 0.25`` (``partial_rotary_factor``) for a head of 32."""
    transformers_or_skip()
    from transformers import GPTNeoXConfig
    from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding, apply_rotary_pos_emb

    config = GPTNeoXConfig(
        hidden_size=128, num_attention_heads=4, rotary_pct=0.25, max_position_embeddings=64
    )
    assert config.rope_parameters["partial_rotary_factor"] == 0.25
    rotary = GPTNeoXRotaryEmbedding(config)

    def rotate(q, position_ids):
        cos, sin = rotary(q, position_ids)
        return apply_rotary_pos_emb(q, q, cos, sin)[0]

    return rotate


def test_partial_rotary_equals_gpt_neox(hf_neox):
    q = torch.from_numpy(rope_inputs((2, 4, 9, 32), seed=12))
    position_ids = torch.arange(9).expand(2, 9)
    expected = hf_neox(q, position_ids)
    ours = RotaryEmbedding(32, 64, layout="half", rotary_dim=8)(q)
    torch.testing.assert_close(ours, expected, rtol=0, atol=1e-6)
    numpy = apply_rope(q.double().numpy(), layout="half", rotary_dim=8)
    torch.testing.assert_close(torch.from_numpy(numpy).float(), expected, rtol=0, atol=1e-6)
    # The last 24 features pass through untouched; the first 8 do turn.
    torch.testing.assert_close(ours[..., 8:], q[..., 8:], rtol=0, atol=0)
    assert (ours[..., 1:, :8] - q[..., 1:, :8]).abs().max() > 0.1


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_partial_rotary_is_a_rotation_of_the_first_features(layout):
    layer = RotaryEmbedding(12, 40, layout=layout, rotary_dim=4, base=100.0)
    x = rope_inputs((3, 30, 12), seed=13)
    out = layer(torch.from_numpy(x), offset=5)
    expected = apply_rope(x[..., :4], offset=5, layout=layout, base=100.0)
    torch.testing.assert_close(out[..., :4], torch.from_numpy(expected), rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(out[..., 4:], torch.from_numpy(x[..., 4:]), rtol=0, atol=0)
    assert layer.cos.shape == (40, 2) and "rotary_dim=4" in repr(layer)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"positions": torch.tensor([2**53, 2**53 + 1])}, r"positions must be < 2\*\*53"),
        ({"offset": 2**53 - 1}, r"offset \+ the number of positions must be <= 2\*\*53"),
        ({"offset": 2**64}, r"offset \+ the number of positions must be <= 2\*\*53"),
    ],
)
def test_apply_rope_on_tensors_refuses_positions_from_2_to_the_53(kwargs, words):
    """Review P11 for torch tensors: the rows of 2**53 and 2**53 + 1 came back identical."""
    with pytest.raises(ValueError, match=words):
        apply_rope(torch.ones(2, 4), **kwargs)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_positional_encoding_keeps_the_input_dtype(dtype):
    """Review P22: float16 input came back float32 (promotion with the float32 table), unlike RotaryEmbedding
    and transformers. The sum is taken in the wider dtype and rounded once."""
    layer = PositionalEncoding(8, 16)
    x = torch.randn(2, 5, 8, generator=torch.Generator().manual_seed(0)).to(dtype)
    out = layer(x)
    assert out.dtype == dtype
    wide = torch.promote_types(dtype, torch.float32)
    torch.testing.assert_close(out, (x.to(wide) + layer.pe[:, :5].to(wide)).to(dtype), rtol=0, atol=0)


def test_positional_encoding_cast_to_float64_keeps_float32_input():
    layer = PositionalEncoding(8, 16).double()
    assert layer(torch.zeros(1, 3, 8)).dtype == torch.float32


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_float64_input_is_as_accurate_as_the_tables(layout):
    """Review P13: the docstring said float64 input "is rotated in float64"; the float32 tables make it
    float32-accurate (about 1e-7), and only a module cast with .double() is float64-accurate."""
    x = torch.randn(2, 3, 64, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    exact = torch.from_numpy(apply_rope(x.numpy(), layout=layout))
    layer = RotaryEmbedding(16, 64, layout=layout)
    error32 = float((layer(x) - exact).abs().max())
    assert 1e-9 < error32 < 2.5e-7
    assert float((layer.double()(x) - exact).abs().max()) < 1e-14
    doc = " ".join(RotaryEmbedding.__doc__.split())
    assert "float64 input is rotated in float64 arithmetic but with the float32 tables" in doc
    assert "float32-accurate (about 1e-7" in doc and "``.double()``, which builds float64 tables" in doc
