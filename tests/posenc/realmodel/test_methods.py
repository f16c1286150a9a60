"""posenc.realmodel.methods: each setting for SmolLM2 equals transformers' for the same rope_parameters."""

from __future__ import annotations

import numpy as np
import pytest
from hf_reference import transformers_or_skip

from posenc.realmodel import FACTOR, METHODS, read_config, rope_setting
from posenc.rope import rope_frequencies

LENGTH = 16_384
# transformers computes inv_freq in float32; posenc in float64.
RTOL = 1e-6


@pytest.fixture(scope="module")
def config():
    return read_config()


def hf_setting(config, rope_parameters, seq_len):
    transformers_or_skip()
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    hf_config = LlamaConfig(
        hidden_size=config.hidden_size,
        num_attention_heads=config.num_heads,
        head_dim=config.head_dim,
        max_position_embeddings=config.context_length,
        rope_parameters={"rope_theta": config.rope_base, **rope_parameters},
    )
    rope_type = rope_parameters["rope_type"]
    if rope_type == "default":  # not in the registry: each model's rotary class computes it
        from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

        inv_freq, attention = LlamaRotaryEmbedding.compute_default_rope_parameters(hf_config)
    else:
        inv_freq, attention = ROPE_INIT_FUNCTIONS[rope_type](hf_config, "cpu", seq_len=seq_len)
    return inv_freq.double().numpy(), attention


L = 8192
HF_PARAMETERS = {
    "none": {"rope_type": "default"},
    "linear": {"rope_type": "linear", "factor": FACTOR},
    "dynamic_hf": {"rope_type": "dynamic", "factor": FACTOR},
    "yarn": {"rope_type": "yarn", "factor": FACTOR, "original_max_position_embeddings": L},
    "llama3": {
        "rope_type": "llama3",
        "factor": FACTOR,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": L,
    },
}


@pytest.mark.parametrize("method", sorted(HF_PARAMETERS))
@pytest.mark.parametrize("seq_len", [4096, LENGTH])
def test_methods_that_transformers_has_match_it(config, method, seq_len):
    theirs, their_attention = hf_setting(config, HF_PARAMETERS[method], seq_len)
    ours, attention = rope_setting(method, config, seq_len)
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=0)
    assert attention == pytest.approx(their_attention, rel=1e-12)


def test_yarn_without_its_factor_has_yarn_frequencies_and_factor_one(config):
    yarn, attention = rope_setting("yarn", config, LENGTH)
    bare, one = rope_setting("yarn_no_factor", config, LENGTH)
    np.testing.assert_array_equal(bare, yarn)
    assert one == 1.0 and attention == pytest.approx(0.1 * np.log(FACTOR) + 1)


def test_ntk_and_the_two_dynamic_rules_are_ntk_at_their_factors(config):
    dim, base = config.head_dim, config.rope_base

    def ntk(factor):
        return rope_frequencies(dim, base * factor ** (dim / (dim - 2)))

    np.testing.assert_allclose(rope_setting("ntk", config, 10)[0], ntk(FACTOR), rtol=1e-12)
    # At n = 2L with s = 2: transformers' rule s n / L - (s - 1) = 3, the YaRN code's n / L = 2.
    np.testing.assert_allclose(rope_setting("dynamic_hf", config, LENGTH)[0], ntk(3.0), rtol=1e-12)
    np.testing.assert_allclose(rope_setting("dynamic_yarn", config, LENGTH)[0], ntk(2.0), rtol=1e-12)
    for method in ("dynamic_hf", "dynamic_yarn"):
        np.testing.assert_array_equal(rope_setting(method, config, L)[0], ntk(1.0))


def test_every_method_gives_32_positive_frequencies(config):
    for method in METHODS:
        theta, attention = rope_setting(method, config, LENGTH)
        assert theta.shape == (32,) and np.all(theta > 0) and attention >= 1


@pytest.mark.parametrize(
    ("arguments", "error", "words"),
    [
        (("rope", None, 10), ValueError, "method must be one of none, linear"),
        (("none", "config", 10), TypeError, "config must be a posenc.realmodel.GGUFConfig"),
        (("none", None, 0), ValueError, "seq_len"),
    ],
)
def test_bad_input_is_named(config, arguments, error, words):
    method, given, seq_len = arguments
    with pytest.raises(error, match=words):
        rope_setting(method, config if given is None else given, seq_len)


def test_bad_factor_is_named(config):
    with pytest.raises(ValueError, match="factor"):
        rope_setting("linear", config, 10, factor=0.5)
