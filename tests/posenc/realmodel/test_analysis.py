"""posenc.realmodel.analysis: pair norm shares, queries and keys per layer, attention by distance."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from posenc.realmodel.analysis import (
    HEAD_CLASSES,
    attention_by_distance,
    attention_weights,
    classify_heads,
    pair_norm_shares,
    queries_and_keys,
    sink_shares,
)
from posenc.rope import apply_rope
from posenc.serving import TinyDecoder


def small_model(**options):
    return TinyDecoder(vocab_size=32, d_model=32, num_heads=4, num_layers=2, seed=0, **options)


def test_pair_norm_shares_add_up_to_one_and_survive_the_rotation():
    x = torch.randn(50, 16, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    shares = pair_norm_shares(x)
    assert shares.shape == (8,) and shares.sum() == pytest.approx(1.0)
    # RoPE keeps every pair's length: the shares do not move.
    rotated = apply_rope(x[None], layout="half", positions=np.arange(50))[0]
    np.testing.assert_allclose(pair_norm_shares(rotated), shares, rtol=1e-12)


def test_pair_norm_shares_layouts_are_one_permutation():
    x = np.random.default_rng(1).normal(size=(7, 8))
    half_to_interleaved = np.arange(8).reshape(2, 4).T.ravel()  # 0 4 1 5 2 6 3 7
    np.testing.assert_allclose(
        pair_norm_shares(x), pair_norm_shares(x[:, half_to_interleaved], layout="interleaved")
    )


@pytest.mark.parametrize(
    ("x", "layout", "message"),
    [
        (np.ones(3), "half", "even last axis"),
        (np.ones(4), "rows", "layout"),
        (np.zeros(4), "half", "nonzero"),
    ],
)
def test_pair_norm_shares_names_bad_input(x, layout, message):
    with pytest.raises(ValueError, match=message):
        pair_norm_shares(x, layout=layout)


def test_queries_and_keys_reproduce_the_decoders_output():
    model = small_model(num_kv_heads=2, dtype=torch.float64)
    ids = torch.tensor([[3, 1, 4, 1, 5, 9, 2, 6]])
    found = queries_and_keys(model, ids)
    assert len(found) == 2
    q, k = found[0]
    assert q.shape == (4, 8, 8) and k.shape == (2, 8, 8)
    # Layer 0's attention output, rebuilt from its queries and keys, is the decoder's own.
    attn = model.model.layers[0].self_attn
    with torch.no_grad():
        h = model.model.layers[0].input_layernorm(model.model.embed_tokens(ids))
        values = attn.heads(attn.v_proj(h))[0].repeat_interleave(2, dim=0)
        weights = attention_weights(q, k, model.frequencies)
        out = attn.o_proj((weights @ values).transpose(0, 1).flatten(-2))
        captured = []
        hook = attn.o_proj.register_forward_hook(lambda m, i, o: captured.append(o))
        model(ids)
        hook.remove()
    torch.testing.assert_close(out, captured[0][0], rtol=1e-10, atol=1e-10)


def test_queries_and_keys_names_bad_input():
    with pytest.raises(TypeError, match="model"):
        queries_and_keys(torch.nn.Linear(2, 2), torch.tensor([1, 2]))
    with pytest.raises(ValueError, match="token_ids"):
        queries_and_keys(small_model(), torch.ones(2, 3, dtype=torch.long))


def test_attention_weights_are_causal_and_depend_on_the_offset_only():
    generator = torch.Generator().manual_seed(2)
    q, k = torch.randn(2, 6, 8, generator=generator), torch.randn(1, 6, 8, generator=generator)
    weights = attention_weights(q, k, [1.0, 0.1, 0.01, 0.001])
    assert weights.shape == (2, 6, 6)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 6))
    assert bool((weights.triu(diagonal=1) == 0).all())
    # The same query and key vector at every position: the scores depend on m - n only.
    same = torch.randn(1, 1, 8, generator=generator).expand(1, 6, 8)
    scores = attention_weights(same, same, [1.0, 0.1, 0.01, 0.001])[0]
    torch.testing.assert_close(scores[5, 3] / scores[5, 5], scores[4, 2] / scores[4, 4])


def test_attention_weights_name_bad_shapes():
    with pytest.raises(ValueError, match="shapes"):
        attention_weights(torch.zeros(2, 3, 4), torch.zeros(1, 3, 6), [1.0, 0.1])
    with pytest.raises(ValueError, match="multiple"):
        attention_weights(torch.zeros(3, 3, 4), torch.zeros(2, 3, 4), [1.0, 0.1])


def test_distance_sink_and_classes_on_made_up_heads():
    seq = 40
    sink = torch.zeros(seq, seq)
    sink[:, 0] = 1.0
    previous = torch.diag(torch.ones(seq - 1), -1)
    previous[0, 0] = 1.0
    spread = torch.ones(seq, seq).tril() / torch.arange(1, seq + 1)[:, None]
    weights = torch.stack([sink, previous, spread])
    by_distance = attention_by_distance(weights, 3)
    assert by_distance.shape == (3, 4)
    np.testing.assert_allclose(by_distance[1], [0, 1, 0, 0])
    np.testing.assert_allclose(sink_shares(weights), [1.0, 0.0, np.mean(1 / np.arange(17, seq + 1))])
    assert classify_heads(weights) == ["sink", "local", "content"]
    assert set(classify_heads(weights)) <= set(HEAD_CLASSES)
    # A window of 0 leaves the previous token out: that head becomes a content head.
    assert classify_heads(weights, window=0) == ["sink", "content", "content"]


@pytest.mark.parametrize(
    ("options", "message"),
    [({"threshold": 1.0}, "threshold"), ({"start": 3}, "start"), ({"window": -1}, "window")],
)
def test_classify_heads_names_bad_input(options, message):
    with pytest.raises((ValueError, TypeError), match=message):
        classify_heads(torch.ones(1, 20, 20).tril() / 20, **options)


def test_attention_by_distance_names_bad_input():
    with pytest.raises(ValueError, match="weights"):
        attention_by_distance(torch.ones(3, 4), 1)
    with pytest.raises(ValueError, match="start"):
        attention_by_distance(torch.ones(1, 8, 8), 4, start=2)
    with pytest.raises(ValueError, match="start"):
        sink_shares(torch.ones(1, 8, 8), start=8)
