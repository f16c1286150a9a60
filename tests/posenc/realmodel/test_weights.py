"""posenc.realmodel.weights on a tiny GGUF file written here: the whole path without the 93 MB model.

A random TinyDecoder is written as llama.cpp writes a Llama (GGUF names, q and k rows permuted into
interleaved pairs, float32 tensors); reading it back must give the same model, the same logits.
"""

from __future__ import annotations

import gguf
import numpy as np
import pytest
import torch

from posenc.realmodel import load_decoder, load_state_dict, read_config, to_gguf_rows
from posenc.serving import TinyDecoder

VOCAB, D, HEADS, KV_HEADS, LAYERS, FFN = 40, 32, 4, 2, 2, 48
BASE, CONTEXT = 5000.0, 64
GGUF_NAMES = {
    "input_layernorm.weight": "attn_norm.weight",
    "self_attn.q_proj.weight": "attn_q.weight",
    "self_attn.k_proj.weight": "attn_k.weight",
    "self_attn.v_proj.weight": "attn_v.weight",
    "self_attn.o_proj.weight": "attn_output.weight",
    "post_attention_layernorm.weight": "ffn_norm.weight",
    "mlp.gate_proj.weight": "ffn_gate.weight",
    "mlp.up_proj.weight": "ffn_up.weight",
    "mlp.down_proj.weight": "ffn_down.weight",
}


def original(tied: bool) -> TinyDecoder:
    model = TinyDecoder(
        VOCAB, D, HEADS, LAYERS, seed=3, base=BASE, ffn_dim=FFN, eps=1e-5, num_kv_heads=KV_HEADS,
        tie_embeddings=tied, max_seq_length=2 * CONTEXT, fused_attention=True,  # as load_decoder's
    )  # fmt: skip
    with torch.no_grad():  # RMSNorm weights other than 1, so that a swapped norm shows
        for name, parameter in model.named_parameters():
            if name.endswith("norm.weight"):
                parameter.uniform_(0.5, 1.5, generator=torch.Generator().manual_seed(len(name)))
    return model


def gguf_name(name: str) -> str | None:
    if name.startswith("model.layers."):
        layer, rest = name.removeprefix("model.layers.").split(".", 1)
        return f"blk.{layer}.{GGUF_NAMES[rest]}"
    return {
        "model.embed_tokens.weight": "token_embd.weight",
        "model.norm.weight": "output_norm.weight",
        "lm_head.weight": "output.weight",
    }[name]


def write_gguf(model: TinyDecoder, path) -> None:
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_name("tiny")
    writer.add_license("apache-2.0")
    writer.add_vocab_size(VOCAB)
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(D)
    writer.add_feed_forward_length(FFN)
    writer.add_block_count(LAYERS)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(KV_HEADS)
    writer.add_rope_dimension_count(D // HEADS)
    writer.add_rope_freq_base(BASE)
    writer.add_layer_norm_rms_eps(1e-5)
    seen = set()
    for name, tensor in model.state_dict().items():
        if tensor.data_ptr() in seen:
            continue  # a tied lm_head (the embeddings' memory): llama.cpp stores no output.weight
        seen.add(tensor.data_ptr())
        values = tensor.numpy()
        if name.endswith("q_proj.weight"):
            values = to_gguf_rows(values, HEADS)
        elif name.endswith("k_proj.weight"):
            values = to_gguf_rows(values, KV_HEADS)
        writer.add_tensor(gguf_name(name), np.ascontiguousarray(values))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


@pytest.mark.parametrize("tied", [True, False], ids=["tied", "untied"])
def test_a_written_model_reads_back_with_the_same_logits(tmp_path, tied):
    model = original(tied)
    path = tmp_path / "tiny.gguf"
    write_gguf(model, path)
    config = read_config(path)
    assert (config.num_heads, config.num_kv_heads, config.head_dim, config.num_layers) == (4, 2, 8, 2)
    assert (config.rope_base, config.context_length, config.tie_embeddings) == (BASE, CONTEXT, tied)
    weights = load_state_dict(path)
    assert weights.keys() == model.state_dict().keys()
    assert (weights["lm_head.weight"] is weights["model.embed_tokens.weight"]) == tied
    loaded = load_decoder(path)
    assert loaded.gguf_config == config and not loaded.training
    assert loaded.max_seq_length == 2 * CONTEXT and loaded.num_kv_heads == KV_HEADS and loaded.fused_attention
    assert (loaded.lm_head.weight is loaded.model.embed_tokens.weight) == tied
    ids = torch.randint(0, VOCAB, (1, 20), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        assert torch.equal(loaded(ids), model(ids))


def test_rows_left_in_the_files_order_give_another_model(tmp_path):
    # The permutation matters: the interleaved rows under the half rotation are not the same model.
    model = original(True)
    path = tmp_path / "tiny.gguf"
    write_gguf(model, path)
    loaded = load_decoder(path)
    with torch.no_grad():
        for layer in loaded.model.layers:
            attention = layer.self_attn
            attention.q_proj.weight.copy_(to_gguf_rows(attention.q_proj.weight.clone(), HEADS))
            attention.k_proj.weight.copy_(to_gguf_rows(attention.k_proj.weight.clone(), KV_HEADS))
        ids = torch.randint(0, VOCAB, (1, 20), generator=torch.Generator().manual_seed(0))
        assert (loaded(ids) - model(ids)).abs().max() > 1e-3


def test_frequencies_and_length_are_passed_on(tmp_path):
    path = tmp_path / "tiny.gguf"
    write_gguf(original(True), path)
    theta = np.full(4, 0.01)
    loaded = load_decoder(path, max_seq_length=300, frequencies=theta, dtype=torch.float64)
    assert loaded.max_seq_length == 300 and loaded.lm_head.weight.dtype == torch.float64
    np.testing.assert_array_equal(loaded.frequencies, theta)
