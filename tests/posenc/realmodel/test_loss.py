"""posenc.realmodel.loss: the chunked per-token loss equals the loss of the whole logits."""

from __future__ import annotations

import pytest
import torch

from posenc.realmodel import token_nll
from posenc.serving import TinyDecoder


def model():
    return TinyDecoder(50, 16, 4, 2, seed=0, num_kv_heads=2, tie_embeddings=True, dtype=torch.float64)


@pytest.mark.parametrize("chunk_size", [1, 3, 1024])
def test_chunks_equal_the_whole_logits(chunk_size):
    decoder = model()
    ids = torch.randint(0, 50, (1, 17), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        logits = decoder(ids)[0, :-1]
    expected = torch.nn.functional.cross_entropy(logits, ids[0, 1:], reduction="none")
    got = token_nll(decoder, ids, chunk_size=chunk_size)
    assert got.shape == (16,)
    assert torch.allclose(got, expected, atol=1e-12)
    assert torch.allclose(token_nll(decoder, ids[0], chunk_size=chunk_size), expected, atol=1e-12)


def test_positions_are_passed_on():
    decoder = model()
    ids = torch.randint(0, 50, (1, 9), generator=torch.Generator().manual_seed(1))
    shifted = token_nll(decoder, ids, position_ids=torch.arange(100, 109))
    # RoPE sees differences only: the same loss at positions 100 ... 108.
    assert torch.allclose(shifted, token_nll(decoder, ids), atol=1e-10)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (("model", torch.tensor([1, 2])), {}, TypeError, "model must be a posenc.serving.TinyDecoder"),
        ((None, torch.tensor([1])), {}, ValueError, "seq_len >= 2"),
        ((None, torch.ones(2, 3, dtype=torch.long)), {}, ValueError, r"\(1, seq_len\)"),
        ((None, torch.tensor([1, 2])), {"chunk_size": 0}, ValueError, "chunk_size must be >= 1"),
        ((None, torch.tensor([1.0, 2.0])), {}, TypeError, "token_ids must be an integer tensor"),
    ],
)
def test_bad_input_is_named(args, kwargs, error, match):
    decoder, ids = args
    with pytest.raises(error, match=match):
        token_nll(model() if decoder is None else decoder, ids, **kwargs)
