import math

import numpy as np
import pytest
import torch

from posenc import sinusoidal_encoding
from posenc.nn import InputEmbeddings, PositionalEncoding


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
