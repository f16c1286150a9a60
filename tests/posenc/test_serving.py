"""Tests of posenc.serving: the tiny decoder against transformers' Llama, its cache against a full forward."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hf_reference import transformers_or_skip

import posenc
from posenc.serving import KVCache, TinyDecoder, greedy_generate

transformers = transformers_or_skip()

VOCAB, D, HEADS, LAYERS = 64, 32, 4, 2


def tiny(**kwargs):
    return TinyDecoder(VOCAB, D, HEADS, LAYERS, seed=0, **kwargs)


def llama(model, *, kv_heads=HEADS, tied=False, **rope):
    config = transformers.LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=D,
        intermediate_size=4 * D,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        num_key_value_heads=kv_heads,
        tie_word_embeddings=tied,
        rms_norm_eps=1e-6,
        max_position_embeddings=4096,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, **rope},
        attn_implementation="eager",
        pad_token_id=0,
    )
    hf = transformers.LlamaForCausalLM(config).eval()
    hf.load_state_dict(model.state_dict(), strict=True)
    return hf


def tokens(batch, length, seed=1):
    return torch.randint(1, VOCAB, (batch, length), generator=torch.Generator().manual_seed(seed))


def test_import_posenc_does_not_import_torch_code():
    assert not hasattr(posenc, "TinyDecoder")
    # One name per object: the position helpers are posenc's, and posenc.serving does not repeat them.
    assert not hasattr(posenc.serving, "positions_from_mask")


def test_same_seed_same_model_and_float64():
    a, b = tiny(), tiny()
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))
    c = tiny(dtype=torch.float64)
    assert c.lm_head.weight.dtype == torch.float64
    assert torch.allclose(c.lm_head.weight.float(), a.lm_head.weight)
    assert not torch.equal(TinyDecoder(VOCAB, D, HEADS, LAYERS, seed=1).lm_head.weight, a.lm_head.weight)


def test_logits_equal_llama_full_forward_and_left_padded():
    model = tiny()
    hf = llama(model)
    ids = tokens(2, 12)
    with torch.no_grad():
        assert torch.allclose(model(ids), hf(ids).logits, atol=1e-5)
        mask = torch.ones(2, 12, dtype=torch.long)
        mask[0, :4] = 0
        positions = torch.from_numpy(posenc.positions_from_mask(mask.numpy()))
        ours = model(ids, attention_mask=mask, position_ids=positions)
        theirs = hf(ids, attention_mask=mask, position_ids=positions).logits
    real = mask.bool()
    assert torch.allclose(ours[real], theirs[real], atol=1e-5)


def test_greedy_generate_equals_llama_generate_on_a_left_padded_batch():
    model = tiny()
    hf = llama(model)
    ids = tokens(2, 10, seed=2)
    mask = torch.ones(2, 10, dtype=torch.long)
    mask[0, :3] = 0
    ids[0, :3] = 0
    with torch.no_grad():
        expected = hf.generate(ids, attention_mask=mask, max_new_tokens=8, do_sample=False)[:, 10:]
    assert torch.equal(greedy_generate(model, ids, steps=8, attention_mask=mask).tokens, expected)


@pytest.mark.parametrize(("kv_heads", "tied"), [(1, False), (2, True), (HEADS, True)])
def test_grouped_query_attention_and_tied_embeddings_equal_llama(kv_heads, tied):
    model = tiny(num_kv_heads=kv_heads, tie_embeddings=tied)
    assert model.model.layers[0].self_attn.k_proj.weight.shape == (kv_heads * D // HEADS, D)
    assert (model.lm_head.weight is model.model.embed_tokens.weight) == tied
    hf = llama(model, kv_heads=kv_heads, tied=tied)
    ids = tokens(2, 12, seed=6)
    with torch.no_grad():
        assert torch.allclose(model(ids), hf(ids).logits, atol=1e-5)
        expected = hf.generate(ids, max_new_tokens=6, do_sample=False)[:, 12:]
    assert torch.equal(greedy_generate(model, ids, steps=6).tokens, expected)


def test_multi_head_defaults_are_unchanged_by_the_new_options():
    # num_kv_heads = num_heads and untied embeddings draw the same weights as before the options existed.
    a, b = tiny(), tiny(num_kv_heads=HEADS, tie_embeddings=False)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))
    assert len(list(tiny(tie_embeddings=True).parameters())) == len(list(a.parameters())) - 1


def test_seed_none_draws_nothing_and_loads_weights():
    source = tiny(num_kv_heads=2)
    empty = TinyDecoder(VOCAB, D, HEADS, LAYERS, seed=None, num_kv_heads=2)
    empty.load_state_dict(source.state_dict())
    ids = tokens(1, 7)
    with torch.no_grad():
        assert torch.equal(empty(ids), source(ids))


def test_attention_in_query_blocks_equals_one_block(monkeypatch):
    model = tiny(dtype=torch.float64, num_kv_heads=2)
    ids = tokens(2, 23, seed=7)
    mask = torch.ones(2, 23, dtype=torch.long)
    mask[0, :10] = 0  # left padding: queries that see no key, in the first three blocks
    with torch.no_grad():
        whole, padded = model(ids), model(ids, attention_mask=mask)
        # Blocks of 4 queries, each over the keys up to its last query (the causal mask's future left out).
        monkeypatch.setattr("posenc.serving.decoder.ATTENTION_BLOCK", 23 * 4)
        blocks, padded_blocks = model(ids), model(ids, attention_mask=mask)
    assert torch.allclose(blocks, whole, atol=1e-12)
    assert torch.allclose(padded_blocks, padded, atol=1e-12)
    assert model.hidden_states(ids).shape == (2, 23, D)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_fused_attention_equals_the_written_out_softmax(monkeypatch, dtype):
    ids = tokens(2, 23, seed=8)
    mask = torch.ones(2, 23, dtype=torch.long)
    mask[0, :10] = 0  # queries that see no key: weights spread evenly in both forms, no NaN
    written = tiny(dtype=dtype, num_kv_heads=2)
    fused = tiny(dtype=dtype, num_kv_heads=2, fused_attention=True)
    atol = 1e-5 if dtype == torch.float32 else 1e-12
    with torch.no_grad():
        for _ in range(2):  # one block, then blocks of 4 queries
            for kwargs in ({}, {"attention_mask": mask}):
                assert torch.allclose(fused(ids, **kwargs), written(ids, **kwargs), atol=atol)
            monkeypatch.setattr("posenc.serving.decoder.ATTENTION_BLOCK", 23 * 4)
    assert greedy_generate(fused, ids, steps=5).tokens.equal(greedy_generate(written, ids, steps=5).tokens)


def test_cache_equals_the_full_forward_and_the_unpadded_sequence():
    model = tiny(dtype=torch.float64)
    ids = tokens(1, 9, seed=3)
    generation = greedy_generate(model, ids, steps=7)
    full = torch.cat((ids, generation.tokens), dim=1)
    with torch.no_grad():
        logits = model(full)[:, 8:15]
    assert torch.allclose(generation.logits, logits, atol=1e-10)
    # left-padded with positions from the mask: the same tokens as alone
    padded = torch.cat((torch.zeros(1, 4, dtype=torch.long), ids), dim=1)
    mask = torch.cat((torch.zeros(1, 4, dtype=torch.long), torch.ones(1, 9, dtype=torch.long)), dim=1)
    batch = greedy_generate(model, padded, steps=7, attention_mask=mask)
    assert torch.allclose(batch.logits, generation.logits, atol=1e-10)
    # positions shifted by the padding: RoPE is shift-invariant up to the float32 rounding of its tables
    shifted = greedy_generate(model, padded, steps=7, attention_mask=mask, positions="cache")
    assert 0 < (shifted.logits - generation.logits).abs().max() < 1e-5
    assert greedy_generate(model, padded, steps=7, attention_mask=mask).positions[0, 0] == 9
    assert (
        greedy_generate(model, padded, steps=7, attention_mask=mask, positions="cache").positions[0, 0] == 13
    )


def test_packed_documents_equal_separate_documents():
    model = tiny(dtype=torch.float64)
    lengths = [5, 3, 6]
    ids = tokens(1, sum(lengths), seed=4)
    with torch.no_grad():
        packed = model(
            ids,
            position_ids=posenc.packed_position_ids(lengths),
            pair_mask=torch.from_numpy(posenc.packed_attention_mask(lengths)),
        )
        starts = np.cumsum([0, *lengths])
        separate = torch.cat([model(ids[:, a:b]) for a, b in itertools.pairwise(starts)], dim=1)
    assert torch.allclose(packed, separate, atol=1e-10)


def test_sliding_window_cache_equals_a_banded_mask():
    model = tiny(dtype=torch.float64)
    window = 5
    ids = tokens(1, 4, seed=5)
    cache = KVCache(LAYERS, window=window)
    generation = greedy_generate(model, ids, steps=10, cache=cache)
    assert len(cache) == window - 1
    full = torch.cat((ids, generation.tokens), dim=1)
    n = full.shape[1]
    index = torch.arange(n)
    band = index[:, None] - index[None, :] < window
    with torch.no_grad():
        logits = model(full, pair_mask=band)[:, 3 : 3 + 10]
    assert torch.allclose(generation.logits, logits, atol=1e-10)
    # the same with sinks: the first two tokens stay visible
    cache = KVCache(LAYERS, window=window, sinks=2)
    generation = greedy_generate(model, ids, steps=10, cache=cache)
    assert cache.stream[:2].tolist() == [0, 1] and len(cache) == window + 1
    full = torch.cat((ids, generation.tokens), dim=1)
    with torch.no_grad():
        logits = model(full, pair_mask=band | (index[None, :] < 2))[:, 3 : 3 + 10]
    assert torch.allclose(generation.logits, logits, atol=1e-10)


def test_reordered_cache_gives_the_same_next_steps_and_leaves_the_original():
    model = tiny(dtype=torch.float64)
    ids = tokens(1, 4, seed=5)
    cache = KVCache(LAYERS, window=5, sinks=1)
    greedy_generate(model, ids, steps=6, cache=cache)
    before = cache.positions.clone()
    order = torch.arange(len(cache), dtype=torch.int32).flip(0)  # any integer dtype
    rolled = cache.reordered(order)
    assert rolled.positions[0].tolist() == before[0].flip(0).tolist()
    assert torch.equal(cache.positions, before)  # the original keeps its order
    assert rolled.seen == cache.seen and len(rolled) == len(cache) == 5
    # several more steps, with evictions: both caches compute the same logits
    for token in (3, 1, 4):
        step = torch.tensor([[token]])
        with torch.no_grad():
            assert torch.allclose(model(step, cache=cache), model(step, cache=rolled), atol=1e-12)
    assert sorted(rolled.stream.tolist()) == sorted(cache.stream.tolist())


@pytest.mark.parametrize(
    ("order", "match"),
    [
        ([0, 1, 1, 2], "permutation of 0 ... 3"),
        ([0, 1, 2], "permutation of 0 ... 3"),
        ([0.0, 1.0, 2.0, 3.0], "1-d sequence of slot indices"),
        ([[0, 1, 2, 3]], "1-d sequence of slot indices"),
    ],
)
def test_reordered_refuses_an_order_that_is_not_a_permutation(order, match):
    cache = KVCache(LAYERS)
    tiny()(torch.ones(1, 4, dtype=torch.long), cache=cache)
    with pytest.raises(ValueError, match=match):
        cache.reordered(order)


def test_reordered_refuses_an_empty_or_reindexing_cache():
    with pytest.raises(ValueError, match="empty cache"):
        KVCache(LAYERS).reordered([])
    cache = KVCache(LAYERS, rotated=False, reindex=True)
    tiny()(torch.ones(1, 1, dtype=torch.long), cache=cache)
    with pytest.raises(ValueError, match="cannot be reordered"):
        cache.reordered([0])


def test_reindexing_cache_keeps_positions_in_the_cache():
    model = tiny(dtype=torch.float64)
    ids = tokens(1, 6, seed=6)
    plain = greedy_generate(model, ids, steps=8)
    # nothing dropped: the slots are the positions, the same as a plain cache
    same = greedy_generate(model, ids, steps=8, cache=KVCache(LAYERS, rotated=False, reindex=True))
    assert torch.allclose(same.logits, plain.logits, atol=1e-10)
    cache = KVCache(LAYERS, window=4, sinks=2, rotated=False, reindex=True)
    streamed = greedy_generate(model, ids, steps=20, cache=cache)
    assert int(streamed.positions.max()) == 2 + 4 - 1
    assert cache.positions.max() == 6 + 20 - 1  # the text positions are still recorded


def test_pre_rotation_cache_follows_changing_frequencies_and_a_rotated_one_goes_stale():
    # One layer: deeper layers' cached keys also carry hidden states computed with the old frequencies.
    model = TinyDecoder(VOCAB, D, HEADS, 1, seed=0, dtype=torch.float64)
    ids = tokens(1, 6, seed=7)

    def dynamic(n):
        return posenc.scaled_frequencies(
            model.head_dim, 2.0, method="dynamic", original_max_position=8, seq_len=n
        )

    fresh = greedy_generate(model, ids, steps=10, cache=KVCache(1, rotated=False), frequencies_for=dynamic)
    full = torch.cat((ids, fresh.tokens), dim=1)
    for step in range(10):
        n = 6 + step  # the token chosen at this step was predicted from positions 0 ... n - 1
        model.set_frequencies(dynamic(n))
        with torch.no_grad():
            logits = model(full[:, :n])[:, -1]
        assert torch.allclose(fresh.logits[:, step], logits, atol=1e-10), step
    model.set_frequencies(None)
    stale = greedy_generate(model, ids, steps=10, frequencies_for=dynamic)
    assert (stale.logits - fresh.logits).abs().max() > 1e-3


def test_nope_and_partial_rotation():
    ids = tokens(1, 8, seed=8)
    nope = tiny(nope_layers=range(LAYERS), dtype=torch.float64)
    with torch.no_grad():
        a = nope(ids)
        b = nope(ids, position_ids=torch.arange(8) + 100)
    assert torch.allclose(a, b, atol=1e-10)  # no rotation: positions do not matter
    partial = tiny(rotary_dim=4)
    assert partial.rotary.rotary_dim == 4 and partial.frequencies.size == 2
    q = torch.randn(1, HEADS, 8, D // HEADS, generator=torch.Generator().manual_seed(9))
    rotated = partial.rotary(q, positions=torch.arange(8))
    assert torch.equal(rotated[..., 4:], q[..., 4:])
    expected = posenc.apply_rope(q.numpy(), layout="half", rotary_dim=4)
    assert np.allclose(rotated.numpy(), expected, atol=1e-6)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"seed": -1}, ValueError, "seed must be >= 0"),
        ({"seed": 0.5}, TypeError, "seed must be an integer"),
        ({"seed": 0, "rotary_dim": 3}, ValueError, "rotary_dim must be even"),
        ({"seed": 0, "rotary_dim": 10}, ValueError, "rotary_dim must be <= dim = 8"),
        ({"seed": 0, "nope_layers": [2]}, ValueError, "nope_layers must be layer indices < num_layers = 2"),
        ({"seed": 0, "nope_layers": 1}, TypeError, "nope_layers must be a sequence"),
        ({"seed": 0, "dtype": torch.float16}, TypeError, "dtype must be torch.float32 or torch.float64"),
        ({"seed": 0, "base": -1.0}, ValueError, "base must be > 1"),
        ({"seed": 0, "eps": 0}, ValueError, "eps must be a number"),
        ({"seed": 0, "frequencies": [1.0]}, ValueError, "frequencies must have length dim // 2 = 4"),
        ({"seed": 0, "num_kv_heads": 3}, ValueError, "num_kv_heads must divide num_heads = 4"),
        ({"seed": 0, "num_kv_heads": 0}, ValueError, "num_kv_heads must be >= 1"),
        ({"seed": 0, "tie_embeddings": 1}, TypeError, "tie_embeddings must be True or False"),
        ({"seed": 0, "fused_attention": None}, TypeError, "fused_attention must be True or False"),
    ],
)
def test_tiny_decoder_rejects(kwargs, error, match):
    with pytest.raises(error, match=match):
        TinyDecoder(VOCAB, D, HEADS, LAYERS, **kwargs)


def test_tiny_decoder_rejects_bad_shapes():
    with pytest.raises(ValueError, match="d_model must be a multiple of num_heads = 3"):
        TinyDecoder(VOCAB, D, 3, LAYERS, seed=0)
    with pytest.raises(ValueError, match="head dimension"):
        TinyDecoder(VOCAB, 12, 4, LAYERS, seed=0)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda m: m(torch.ones(2, 3)), TypeError, "token_ids must be an integer tensor"),
        (lambda m: m(torch.ones(3, dtype=torch.long)), ValueError, r"shape \(batch, seq_len\)"),
        (
            lambda m: m(torch.full((1, 2), VOCAB)),
            ValueError,
            "token_ids must lie in 0 ... vocab_size - 1 = 63",
        ),
        (
            lambda m: m(torch.ones(1, 3, dtype=torch.long), position_ids=torch.tensor([0, 1])),
            ValueError,
            r"position_ids must have shape \(3,\)",
        ),
        (
            lambda m: m(torch.ones(1, 2, dtype=torch.long), position_ids=torch.tensor([[0, -1]])),
            ValueError,
            "position_ids must be >= 0",
        ),
        (
            lambda m: m(torch.ones(1, 2, dtype=torch.long), position_ids=torch.tensor([[0.0, 1.0]])),
            TypeError,
            "position_ids must hold integers",
        ),
        (
            lambda m: m(torch.ones(1, 2, dtype=torch.long), position_ids=torch.tensor([[0, 4096]])),
            ValueError,
            "not below max_seq_length = 4096",
        ),
        (
            lambda m: m(torch.ones(1, 2, dtype=torch.long), attention_mask=torch.tensor([[0, 2]])),
            ValueError,
            "attention_mask must hold only 0",
        ),
        (
            lambda m: m(torch.ones(1, 2, dtype=torch.long), pair_mask=torch.ones(2, 2)),
            TypeError,
            "pair_mask must hold booleans",
        ),
        (lambda m: m(torch.ones(1, 2, dtype=torch.long), cache="cache"), TypeError, "cache must be a posenc"),
        (lambda m: m(torch.ones(1, 2, dtype=torch.long), cache=KVCache(3)), ValueError, "cache has 3 layers"),
        (
            lambda m: m(torch.ones(1, 2, dtype=torch.long), cache=KVCache(2, rotated=False, reindex=True)),
            ValueError,
            "one token per call",
        ),
        (
            lambda m: greedy_generate(m, torch.ones(1, 2, dtype=torch.long), steps=0),
            ValueError,
            "steps must be >= 1",
        ),
        (
            lambda m: greedy_generate(m, torch.ones(1, 2, dtype=torch.long), steps=1, positions="slots"),
            ValueError,
            "positions must be one of",
        ),
        (
            lambda m: greedy_generate(m, torch.ones(1, 2, dtype=torch.long), steps=1, frequencies_for=3),
            TypeError,
            "frequencies_for must be callable",
        ),
        (
            lambda m: greedy_generate("model", torch.ones(1, 2, dtype=torch.long), steps=1),
            TypeError,
            "model must be a posenc.serving.TinyDecoder",
        ),
    ],
)
def test_forward_and_generate_reject(call, error, match):
    with pytest.raises(error, match=match):
        call(tiny())


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"window": 0}, ValueError, "window must be >= 1"),
        ({"sinks": 2}, ValueError, "sinks needs a window"),
        ({"sinks": -1, "window": 3}, ValueError, "sinks must be >= 0"),
        ({"rotated": 1}, TypeError, "rotated must be True or False"),
        ({"reindex": True}, ValueError, "reindex=True needs rotated=False"),
    ],
)
def test_cache_rejects(kwargs, error, match):
    with pytest.raises(error, match=match):
        KVCache(2, **kwargs)


def test_a_used_cache_is_refused_by_generate():
    model = tiny()
    cache = KVCache(LAYERS)
    model(torch.ones(1, 2, dtype=torch.long), cache=cache)
    with pytest.raises(ValueError, match="cache must be empty"):
        greedy_generate(model, torch.ones(1, 2, dtype=torch.long), steps=1, cache=cache)
