"""posenc.realmodel.layout: the GGUF file's row order of q and k is a fixed permutation of Hugging Face's."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hf_reference import transformers_or_skip

import posenc
from posenc.realmodel import from_gguf_rows, gguf_row_order, to_gguf_rows


def llama_cpp_permute(weights: np.ndarray, n_head: int) -> np.ndarray:
    """llama.cpp's convert_hf_to_gguf.py, LlamaModel.permute, as it reorders q_proj and k_proj."""
    return (
        weights.reshape(n_head, 2, weights.shape[0] // n_head // 2, *weights.shape[1:])
        .swapaxes(1, 2)
        .reshape(weights.shape)
    )


@pytest.mark.parametrize(("heads", "head_dim"), [(1, 2), (2, 4), (3, 64), (9, 64)])
def test_the_order_is_llama_cpps_permutation_and_round_trips(heads, head_dim):
    weight = np.random.default_rng(0).standard_normal((heads * head_dim, 5))
    order = gguf_row_order(heads, head_dim)
    assert sorted(order) == list(range(heads * head_dim))
    gguf = to_gguf_rows(weight, heads)
    np.testing.assert_array_equal(gguf, llama_cpp_permute(weight, heads))
    np.testing.assert_array_equal(gguf, weight[order])
    np.testing.assert_array_equal(from_gguf_rows(gguf, heads), weight)
    tensor = torch.from_numpy(weight)
    assert torch.equal(from_gguf_rows(to_gguf_rows(tensor, heads), heads), tensor)


def test_transformers_gguf_loader_undoes_the_same_permutation():
    transformers_or_skip()
    from transformers.modeling_gguf_pytorch_utils import LlamaTensorProcessor

    weight = np.random.default_rng(1).standard_normal((3 * 64, 7)).astype(np.float32)
    processor = LlamaTensorProcessor(config={"num_attention_heads": 9, "num_key_value_heads": 3})
    theirs = processor.process(to_gguf_rows(weight, 3), "blk.0.attn_k.weight").weights
    np.testing.assert_array_equal(theirs, weight)


def test_interleaved_rope_on_gguf_rows_equals_half_rope_on_hf_rows():
    # Why the file may store the rows permuted: the same permutation of q and k leaves q . k unchanged,
    # and it turns the half layout's pairs (i, i + d/2) into neighbours (2i, 2i + 1).
    rng = np.random.default_rng(2)
    heads, head_dim, seq = 2, 8, 6
    w_q, w_k = rng.standard_normal((2, heads * head_dim, 16))
    x = rng.standard_normal((seq, 16))

    def scores(wq, wk, layout):
        q = (x @ wq.T).reshape(seq, heads, head_dim).transpose(1, 0, 2)
        k = (x @ wk.T).reshape(seq, heads, head_dim).transpose(1, 0, 2)
        positions = np.arange(seq)
        q = posenc.apply_rope(q, positions=positions, layout=layout)
        k = posenc.apply_rope(k, positions=positions, layout=layout)
        return q @ k.transpose(0, 2, 1)

    half = scores(w_q, w_k, "half")
    interleaved = scores(to_gguf_rows(w_q, heads), to_gguf_rows(w_k, heads), "interleaved")
    np.testing.assert_allclose(interleaved, half, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: gguf_row_order(0, 4), ValueError, "num_heads must be"),
        (lambda: gguf_row_order(2, 3), ValueError, "head_dim must be even"),
        (lambda: to_gguf_rows(np.ones((6, 2)), 2), ValueError, "first axis of num_heads \\* head_dim"),
        (lambda: from_gguf_rows(np.ones(()), 1), ValueError, "first axis"),
    ],
)
def test_bad_input_is_named(call, error, match):
    with pytest.raises(error, match=match):
        call()
