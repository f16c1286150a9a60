"""posenc.rope_parameters against transformers' ROPE_INIT_FUNCTIONS on real configurations (issue 33).

The configurations are the RoPE fields of each checkpoint's config.json as published (the older
``rope_scaling`` form most of them still ship), written here as dicts: nothing is downloaded. Run with
``-s`` to see the largest differences per configuration.
"""

import copy
import json

import numpy as np
import pytest
from hf_reference import transformers_or_skip
from rope_configs import CONFIGS

import posenc
from posenc import rope_parameters
from posenc.config import ROPE_TYPES

# (configuration, layer_type, seq_len): every seq_len where the rope_type's frequencies change.
CASES = [
    ("Llama-3.1-8B", None, None),
    ("Qwen2.5-7B-Instruct+YaRN", None, None),
    ("DeepSeek-V3", None, None),
    ("Gemma-3-4b", "full_attention", None),
    ("Gemma-3-4b", "sliding_attention", None),
    ("Phi-3-mini-128k", None, None),
    ("Phi-3-mini-128k", None, 4096),
    ("Phi-3-mini-128k", None, 4097),
    ("Phi-3-mini-128k", None, 131072),
    ("gpt-oss-20b", None, None),
    ("SmolLM2-135M", None, None),
    ("Llama-2-7B+dynamic2", None, None),
    ("Llama-2-7B+dynamic2", None, 6000),
    ("Llama-2-7B+dynamic2", None, 16384),
    ("Gemma-4-global", None, None),
    ("Llama-4-Scout", None, None),
]

LAYOUTS = {
    "DeepSeek-V3": "interleaved"
}  # transformers' apply_rotary_pos_emb_interleave; the rest rotate_half


@pytest.fixture(scope="module")
def transformers():
    return transformers_or_skip()


def hf_config(transformers, name):
    config = copy.deepcopy(CONFIGS[name])
    return transformers.AutoConfig.for_model(config.pop("model_type"), **config)


def hf_rope(transformers, config, layer_type, seq_len):
    """transformers' (inv_freq, attention_scaling), as float64 and float."""
    import torch
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    block = config.rope_parameters[layer_type] if layer_type else config.rope_parameters
    kwargs = {"layer_type": layer_type} if layer_type else {}
    if block["rope_type"] == "default":
        from transformers.models.gemma3.modeling_gemma3 import Gemma3RotaryEmbedding
        from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

        rotary = Gemma3RotaryEmbedding if layer_type else LlamaRotaryEmbedding
        inv_freq, attention = rotary.compute_default_rope_parameters(
            config, device=torch.device("cpu"), **kwargs
        )
    else:
        inv_freq, attention = ROPE_INIT_FUNCTIONS[block["rope_type"]](
            config, "cpu", seq_len=seq_len, **kwargs
        )
    return inv_freq.double().numpy(), float(attention)


@pytest.mark.parametrize(("name", "layer_type", "seq_len"), CASES)
def test_equals_transformers_on_real_configurations(transformers, name, layer_type, seq_len):
    ours = rope_parameters(CONFIGS[name], seq_len, layer_type=layer_type)
    theirs, attention = hf_rope(transformers, hf_config(transformers, name), layer_type, seq_len)
    # proportional RoPE's unrotated pairs have frequency 0 in both.
    rotated = theirs > 0
    np.testing.assert_array_equal(ours.frequencies[~rotated], 0.0)
    relative = float(np.max(np.abs(ours.frequencies[rotated] - theirs[rotated]) / theirs[rotated]))
    print(
        f"\n{name:26s} {layer_type or '':17s} seq_len={seq_len!s:6s} {ours.rope_type:8s} "
        f"pairs={ours.frequencies.size:3d} max rel diff frequencies {relative:.2e}  "
        f"attention_factor {ours.attention_factor:.9f} vs {attention:.9f}"
    )
    assert ours.frequencies.dtype == np.float64 and ours.frequencies.shape == theirs.shape
    # transformers computes in float32: one float32 rounding (6e-8) per operation, a few operations.
    assert relative < 5e-7
    assert ours.attention_factor == pytest.approx(attention, rel=1e-12, abs=1e-12)
    assert ours.layout == LAYOUTS.get(name, "half")


@pytest.mark.parametrize("seq_len", [None, 4096, 10000])
def test_dynamic_with_factor_one_equals_transformers(transformers, seq_len):
    """Review P16: transformers' dynamic rule with factor 1 still grows the base beyond the trained length
    ((seq_len / L) ** (dim / (dim - 2))); posenc returned the unscaled frequencies there."""
    config = copy.deepcopy(CONFIGS["Llama-2-7B+dynamic2"])
    config["rope_scaling"]["factor"] = 1.0
    ours = rope_parameters(config, seq_len)
    hf = transformers.AutoConfig.for_model(config.pop("model_type"), **config)
    theirs, attention = hf_rope(transformers, hf, None, seq_len)
    np.testing.assert_allclose(ours.frequencies, theirs, rtol=5e-7, atol=0)
    assert ours.attention_factor == attention == 1.0


def test_forgetting_a_field_is_what_it_costs(transformers):
    """Without the check on fields, gpt-oss without truncate: false is what a hand mapping gives: 76 % off."""
    theirs, _ = hf_rope(transformers, hf_config(transformers, "gpt-oss-20b"), None, None)
    forgotten = copy.deepcopy(CONFIGS["gpt-oss-20b"])
    del forgotten["rope_scaling"]["truncate"]
    relative = np.max(np.abs(rope_parameters(forgotten).frequencies - theirs) / theirs)
    assert relative > 0.7


@pytest.mark.parametrize(
    "name", ["Llama-3.1-8B", "DeepSeek-V3", "Phi-3-mini-128k", "gpt-oss-20b", "Gemma-3-4b"]
)
def test_reads_a_config_object_a_transformers_5_dict_and_a_path(transformers, name, tmp_path):
    layer_type = "full_attention" if name.startswith("Gemma") else None
    expected = rope_parameters(CONFIGS[name], 5000, layer_type=layer_type)
    config = hf_config(transformers, name)
    # The object (read through to_dict: transformers 5's rope_parameters form), and that form as a file.
    from_object = rope_parameters(config, 5000, layer_type=layer_type)
    assert "rope_parameters" in config.to_dict()
    (tmp_path / "config.json").write_text(json.dumps(config.to_dict()), encoding="utf-8")
    from_path = rope_parameters(tmp_path / "config.json", 5000, layer_type=layer_type)
    from_folder = rope_parameters(str(tmp_path), 5000, layer_type=layer_type)
    for other in (from_object, from_path, from_folder):
        np.testing.assert_array_equal(other.frequencies, expected.frequencies)
        assert other._replace(frequencies=None) == expected._replace(frequencies=None)


def test_gemma_4s_full_attention_layers_take_their_own_head_size(transformers):
    # per_layer_config gives Gemma 4's full-attention layers head_dim 512 (the others: 256).
    config = transformers.AutoConfig.for_model("gemma4_text")
    theirs, _ = hf_rope(transformers, config, "full_attention", None)
    for form in (config, config.to_dict()):
        ours = rope_parameters(form, layer_type="full_attention")
        assert (ours.head_dim, ours.rotary_dim, ours.rope_type) == (512, 512, "proportional")
        np.testing.assert_array_equal(ours.frequencies == 0, theirs == 0)
        rotated = theirs > 0
        assert np.max(np.abs(ours.frequencies[rotated] / theirs[rotated] - 1)) < 5e-7
    assert rope_parameters(config, layer_type="sliding_attention").head_dim == 256


def test_a_multimodal_config_reads_its_text_config():
    gemma = {"model_type": "gemma3", "text_config": CONFIGS["Gemma-3-4b"]}
    read = rope_parameters(gemma, layer_type="sliding_attention")
    np.testing.assert_array_equal(read.frequencies, posenc.rope_frequencies(256, 10000.0))


def test_every_rope_type_of_transformers_has_a_function(transformers):
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    assert sorted(ROPE_TYPES) == sorted({"default", *ROPE_INIT_FUNCTIONS})


def llama_with(**block):
    return {"hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 64, "rope_scaling": block}


@pytest.mark.parametrize(
    ("config", "kwargs", "error", "words"),
    [
        (llama_with(rope_type="yarn", factor=4.0, beta=32), {}, ValueError, "the field 'beta', which rope_type 'yarn'"),  # noqa: E501
        (llama_with(rope_type="mrope", mrope_section=[2, 3, 3]), {}, ValueError, r"\['rope_type'\] must be one of"),  # noqa: E501
        (llama_with(rope_type="llama3", factor=8.0, low_freq_factor=1.0), {}, ValueError,
         r"needs rope_scaling\['high_freq_factor'\], which is missing"),
        (llama_with(rope_type="linear"), {}, ValueError, r"needs rope_scaling\['factor'\]"),
        (llama_with(rope_type="linear", factor="8"), {}, TypeError, r"rope_scaling\['factor'\] must be a real number"),  # noqa: E501
        (llama_with(rope_type="yarn", factor=4.0, truncate="no"), {}, TypeError, "truncate'] must be true or false"),  # noqa: E501
        (llama_with(rope_type="longrope", short_factor=[1.0] * 8, long_factor=[2.0] * 7), {}, ValueError,
         r"long_factor'\] must have length dim // 2 = 8"),
        (CONFIGS["Gemma-3-4b"], {}, ValueError, "layer_type must be one of .'full_attention', 'sliding_attention'."),  # noqa: E501
        (CONFIGS["Llama-3.1-8B"], {"layer_type": "full_attention"}, ValueError, "layer_type must be None"),
        (CONFIGS["Llama-3.1-8B"], {"seq_len": 0}, ValueError, "seq_len must be >= 1"),
        ({"rope_theta": 10.0}, {}, ValueError, "needs head_dim, or hidden_size and num_attention_heads"),
        ({"head_dim": 8, "partial_rotary_factor": 1.5}, {}, ValueError, r"partial_rotary_factor must be in \(0, 1\]"),  # noqa: E501
        (42, {}, TypeError, "config must be a path to config.json, a dict or a transformers config object"),
        ("/nonexistent/config.json", {}, FileNotFoundError, "no such file"),
    ],
)  # fmt: skip
def test_bad_configurations_name_the_field(config, kwargs, error, words):
    with pytest.raises(error, match=words):
        rope_parameters(config, **kwargs)


def test_partial_rotary_and_defaults():
    neox = {"model_type": "gpt_neox", "hidden_size": 2048, "num_attention_heads": 16, "rotary_pct": 0.25,
            "rotary_emb_base": 10000}  # fmt: skip
    read = rope_parameters(neox)
    assert (read.head_dim, read.rotary_dim, read.rope_type, read.attention_factor) == (
        128,
        32,
        "default",
        1.0,
    )
    np.testing.assert_array_equal(read.frequencies, posenc.rope_frequencies(32))
