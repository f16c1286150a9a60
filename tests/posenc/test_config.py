"""posenc.rope_parameters against transformers' ROPE_INIT_FUNCTIONS on real configurations (issue 33).

The configurations are the RoPE fields of each checkpoint's config.json as published (the older
``rope_scaling`` form most of them still ship), written here as dicts: nothing is downloaded. Run with
``-s`` to see the largest differences per configuration.
"""

import copy
import json
import os

import numpy as np
import pytest

import posenc
from posenc import rope_parameters
from posenc.config import ROPE_TYPES

# Phi-3-mini-128k-instruct (June 2024 update) and Phi-3.5-mini-instruct: the published 48 factors each.
PHI3_LONG = [
    1.0800000429153442,
    1.1100000143051147,
    1.1399999856948853,
    1.340000033378601,
    1.5899999141693115,
    1.600000023841858,
    1.6200000047683716,
    2.620000123977661,
    3.2300000190734863,
    3.2300000190734863,
    4.789999961853027,
    7.400000095367432,
    7.700000286102295,
    9.09000015258789,
    12.199999809265137,
    17.670000076293945,
    24.46000099182129,
    28.57000160217285,
    30.420001983642578,
    30.840002059936523,
    32.590003967285156,
    32.93000411987305,
    42.320003509521484,
    44.96000289916992,
    50.340003967285156,
    50.45000457763672,
    57.55000305175781,
    57.93000411987305,
    58.21000289916992,
    60.1400032043457,
    62.61000442504883,
    62.62000274658203,
    62.71000289916992,
    63.1400032043457,
    63.1400032043457,
    63.77000427246094,
    63.93000411987305,
    63.96000289916992,
    63.970001220703125,
    64.02999877929688,
    64.06999969482422,
    64.08000183105469,
    64.12000274658203,
    64.41000366210938,
    64.4800033569336,
    64.51000213623047,
    64.52999877929688,
    64.83999633789062,
]
PHI3_SHORT = [
    1.0,
    1.0199999809265137,
    1.0299999713897705,
    1.0299999713897705,
    1.0499999523162842,
    1.0499999523162842,
    1.0499999523162842,
    1.0499999523162842,
    1.0499999523162842,
    1.0699999332427979,
    1.0999999046325684,
    1.1099998950958252,
    1.1599998474121094,
    1.1599998474121094,
    1.1699998378753662,
    1.2899998426437378,
    1.339999794960022,
    1.679999828338623,
    1.7899998426437378,
    1.8199998140335083,
    1.8499997854232788,
    1.8799997568130493,
    1.9099997282028198,
    1.9399996995925903,
    1.9899996519088745,
    2.0199997425079346,
    2.0199997425079346,
    2.0199997425079346,
    2.0199997425079346,
    2.0199997425079346,
    2.0199997425079346,
    2.0299997329711914,
    2.0299997329711914,
    2.0299997329711914,
    2.0299997329711914,
    2.0299997329711914,
    2.0299997329711914,
    2.0299997329711914,
    2.0299997329711914,
    2.0299997329711914,
    2.0799996852874756,
    2.0899996757507324,
    2.189999580383301,
    2.2199995517730713,
    2.5899994373321533,
    2.729999542236328,
    2.749999523162842,
    2.8399994373321533,
]

CONFIGS = {
    "Llama-3.1-8B": {
        "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
        "max_position_embeddings": 131072, "rope_theta": 500000.0,
        "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    },
    "Qwen2.5-7B-Instruct+YaRN": {
        "model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
        "max_position_embeddings": 32768, "rope_theta": 1000000.0,
        "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"},
    },
    "DeepSeek-V3": {
        "model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128, "v_head_dim": 128, "max_position_embeddings": 163840, "rope_theta": 10000,
        "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                         "original_max_position_embeddings": 4096, "type": "yarn"},
    },
    "Gemma-3-4b": {
        "model_type": "gemma3_text", "hidden_size": 2560, "num_attention_heads": 8, "num_key_value_heads": 4,
        "head_dim": 256, "max_position_embeddings": 131072, "rope_theta": 1000000.0,
        "rope_local_base_freq": 10000.0, "sliding_window": 1024,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
    },
    "Phi-3-mini-128k": {
        "model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,  # noqa: E501
        "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
        "rope_scaling": {"long_factor": PHI3_LONG, "short_factor": PHI3_SHORT, "type": "longrope"},
    },
    "gpt-oss-20b": {
        "model_type": "gpt_oss", "hidden_size": 2880, "num_attention_heads": 64, "num_key_value_heads": 8,
        "head_dim": 64, "max_position_embeddings": 131072, "rope_theta": 150000,
        "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0,
                         "original_max_position_embeddings": 4096, "rope_type": "yarn", "truncate": False},
    },
    "SmolLM2-135M": {
        "model_type": "llama", "hidden_size": 576, "num_attention_heads": 9, "num_key_value_heads": 3,
        "max_position_embeddings": 8192, "rope_theta": 100000, "rope_scaling": None,
    },
    # Not a published checkpoint: the one rope_type the others do not cover, on a Llama-2-sized head.
    "Llama-2-7B+dynamic2": {
        "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096,  # noqa: E501
        "rope_theta": 10000.0, "rope_scaling": {"factor": 2.0, "rope_type": "dynamic"},
    },
}  # fmt: skip

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
]

LAYOUTS = {
    "DeepSeek-V3": "interleaved"
}  # transformers' apply_rotary_pos_emb_interleave; the rest rotate_half


@pytest.fixture(scope="module")
def transformers():
    if os.environ.get("CI") == "true":
        import transformers  # noqa: F401  (CI must run these, not skip them)
    return pytest.importorskip("transformers")


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
    relative = float(np.max(np.abs(ours.frequencies - theirs) / theirs))
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


def test_a_multimodal_config_reads_its_text_config():
    gemma = {"model_type": "gemma3", "text_config": CONFIGS["Gemma-3-4b"]}
    read = rope_parameters(gemma, layer_type="sliding_attention")
    np.testing.assert_array_equal(read.frequencies, posenc.rope_frequencies(256, 10000.0))


def test_every_rope_type_has_a_function():
    assert sorted(ROPE_TYPES) == ["default", "dynamic", "linear", "llama3", "longrope", "yarn"]


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
