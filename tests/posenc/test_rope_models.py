"""posenc's RoPE where models live (issue 33): built on the meta device and loaded by transformers'
from_pretrained, compiled with bad positions, without host reads, on strided and (batch, seq, heads,
dim) tensors, with an attention factor, and the one ``apply_rope`` for NumPy arrays and torch tensors."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from hf_reference import transformers_or_skip
from rope_configs import CONFIGS
from torch.utils._python_dispatch import TorchDispatchMode

import posenc
from posenc.nn import RotaryEmbedding


def inputs(shape, seed=0, dtype=torch.float32):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


# ----------------------------------------------------------------------------- the meta device


def test_a_module_built_on_the_meta_device_is_computed_when_materialised():
    reference = RotaryEmbedding(16, 64, layout="half")
    with torch.device("meta"):
        rope = RotaryEmbedding(16, 64, layout="half")
    assert rope.cos.is_meta and rope.sin.is_meta  # nothing computed, nothing on another device
    rope = rope.to_empty(device="cpu")
    assert torch.equal(rope.cos, reference.cos) and torch.equal(rope.sin, reference.sin)


def test_to_empty_recomputes_tables_built_on_a_real_device():
    # to_empty gives every buffer uninitialised memory, wherever the module was built (2.7e38 before).
    rope = RotaryEmbedding(64, 64, layout="half")
    x = inputs((1, 2, 8, 64))
    expected = rope(x)
    moved = RotaryEmbedding(64, 64, layout="half").to_empty(device="cpu")
    torch.testing.assert_close(moved.cos, rope.cos, rtol=0, atol=0)
    torch.testing.assert_close(moved(x), expected, rtol=0, atol=0)


def test_tables_replaced_by_empty_ones_are_rebuilt_at_the_next_call():
    """What transformers' from_pretrained does to every non-persistent buffer: torch.empty_like."""
    rope = RotaryEmbedding(16, 64, layout="half")
    x = inputs((1, 2, 5, 16))
    expected = rope(x)
    rope.cos = torch.full_like(rope.cos, -4.7e9)  # "uninitialised memory"
    rope.sin = torch.full_like(rope.sin, 4.6e-41)
    torch.testing.assert_close(rope(x), expected, rtol=0, atol=0)


def test_from_pretrained_round_trip(tmp_path):
    transformers = transformers_or_skip()

    class ToyConfig(transformers.PretrainedConfig):
        model_type = "posenc_toy"

        def __init__(self, width=32, **kwargs):
            self.width = width
            super().__init__(**kwargs)

    class Toy(transformers.PreTrainedModel):
        config_class = ToyConfig

        def __init__(self, config):
            super().__init__(config)
            self.proj = torch.nn.Linear(config.width, config.width)
            self.rope = RotaryEmbedding(config.width, 128, layout="half", attention_factor=1.25)
            self.post_init()

        def forward(self, x, positions=None):
            return self.rope(self.proj(x), positions=positions)

    torch.manual_seed(0)
    model = Toy(ToyConfig())
    x = inputs((1, 2, 8, 32))
    positions = torch.tensor([3, 4, 5, 6, 7, 8, 9, 127])
    expected = model(x, positions)
    model.save_pretrained(tmp_path)
    loaded = Toy.from_pretrained(tmp_path)
    # from_pretrained leaves torch.empty_like tables (uninitialised memory): the first call rebuilds them.
    torch.testing.assert_close(loaded(x, positions), expected, rtol=0, atol=0)
    torch.testing.assert_close(loaded.rope.cos, model.rope.cos, rtol=0, atol=0)


# ----------------------------------------------------------------------------- positions out of the table

COMPILED_BAD_POSITIONS = """
import torch
from posenc.nn import RotaryEmbedding

torch.set_num_threads(2)
rope = RotaryEmbedding(64, 128, layout="half")
compiled = torch.compile(rope)
q = torch.randn(2, 4, 16, 64)
good = compiled(q, positions=torch.arange(16))
print("good", float((good - rope(q, positions=torch.arange(16))).abs().max()))
try:
    compiled(q, positions=torch.full((16,), 200))
except RuntimeError as error:
    print("raised", type(error).__name__, error)
"""


def test_under_torch_compile_a_bad_position_raises_and_never_aborts():
    env = {**os.environ, "OMP_NUM_THREADS": "2"}
    done = subprocess.run(
        [sys.executable, "-c", COMPILED_BAD_POSITIONS],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode != 134, done.stderr[-2000:]  # SIGABRT: "index out of bounds" in the kernel
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("good") and float(lines[0].split()[1]) < 1e-5, done.stdout
    assert "positions must be in 0 ... max_seq_length - 1 = 127" in lines[-1], done.stdout


COMPILED_STATE = """
import tempfile

import torch
import transformers
from posenc.nn import RotaryEmbedding

torch.manual_seed(0)
phi3 = {
    "model_type": "phi3", "hidden_size": 128, "num_attention_heads": 4, "max_position_embeddings": 1024,
    "original_max_position_embeddings": 128, "rope_theta": 10000.0,
    "rope_scaling": {"type": "longrope", "short_factor": [1.0 + 0.05 * i for i in range(16)],
                     "long_factor": [1.0 + 1.5 * i for i in range(16)]},
}
dynamic = {
    "model_type": "llama", "hidden_size": 128, "num_attention_heads": 4, "max_position_embeddings": 64,
    "rope_theta": 10000.0, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0},
}
for name, config, lengths in (("longrope", phi3, (100, 300, 100)), ("dynamic", dynamic, (32, 300, 40))):
    eager, compiled = RotaryEmbedding.from_config(config, 1024), RotaryEmbedding.from_config(config, 1024)
    compiled = torch.compile(compiled)
    for length in lengths:
        q = torch.randn(1, 4, length, 32)
        positions = torch.arange(length)[None]
        error = (compiled(q, positions=positions) - eager(q, positions=positions)).abs().max()
        print(name, length, float(error))


class Toy(transformers.PreTrainedModel):
    config_class = transformers.LlamaConfig

    def __init__(self, config):
        super().__init__(config)
        self.q = torch.nn.Linear(64, 64, bias=False)
        self.rope = RotaryEmbedding.from_config(config)
        self.post_init()

    def forward(self, x, positions):
        return self.rope(self.q(x).view(1, -1, 4, 16), positions=positions, seq_dim=1)


config = transformers.LlamaConfig(hidden_size=64, num_attention_heads=4, max_position_embeddings=256)
model = Toy(config).eval()
x, positions = torch.randn(1, 10, 64), torch.arange(10)[None] + 50
with torch.no_grad(), tempfile.TemporaryDirectory() as folder:
    expected = model(x, positions)
    model.save_pretrained(folder)
    compiled = torch.compile(Toy.from_pretrained(folder).eval())
    print("from_pretrained", float((compiled(x, positions) - expected).abs().max()))
"""


def test_under_torch_compile_lengths_and_loaded_tables_are_followed():
    # Compiled: LongRoPE switches to its long factors, dynamic NTK grows with the length, and the first
    # call after from_pretrained rebuilds the tables (each in an eager step: a graph break). Before, the
    # compiled module kept the last eager frequencies (errors 10.1 and 7.9) and read the loader's
    # uninitialised tables (0.61).
    transformers_or_skip()
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", COMPILED_STATE], capture_output=True, text=True, env=env, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line.split() for line in done.stdout.splitlines()]
    assert [line[:-1] for line in lines] == [
        ["longrope", "100"], ["longrope", "300"], ["longrope", "100"],
        ["dynamic", "32"], ["dynamic", "300"], ["dynamic", "40"], ["from_pretrained"],
    ], done.stdout  # fmt: skip
    assert all(float(line[-1]) < 1e-5 for line in lines), done.stdout


class Ops(TorchDispatchMode):
    """The ATen operators a call runs."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(str(func))
        return func(*args, **(kwargs or {}))


def test_check_positions_false_skips_the_host_read():
    x = inputs((1, 2, 3, 8))
    checked, unchecked = RotaryEmbedding(8, 16), RotaryEmbedding(8, 16, check_positions=False)
    with Ops() as ops:
        expected = checked(x, positions=torch.tensor([1, 5, 2]))
    # One reduction, read back once: a single synchronisation on a GPU.
    assert ops.names.count("aten.aminmax.default") == 1
    with Ops() as ops:
        out = unchecked(x, positions=torch.tensor([1, 5, 2]))
    assert "aten.aminmax.default" not in ops.names and torch.equal(out, expected)
    with pytest.raises(ValueError, match="positions must be < max_seq_length = 16"):
        checked(x, positions=torch.tensor([1, 16, 2]))
    with pytest.raises(IndexError):  # embedding's own check, not ours
        unchecked(x, positions=torch.tensor([1, 16, 2]))
    with pytest.raises(TypeError, match="check_positions must be True or False"):
        RotaryEmbedding(8, 16, check_positions=1)


def test_a_vector_offset_points_to_positions():
    with pytest.raises(TypeError, match=r"go in positions="):
        RotaryEmbedding(8, 16)(inputs((2, 1, 3, 8)), torch.tensor([3, 4]))


# ----------------------------------------------------------------------------- layouts of x


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_strided_input(layout):
    """tech.md P6: a last axis of stride 2 (a transposed, sliced tensor) crashed view_as_complex."""
    rope = RotaryEmbedding(8, 16, layout=layout)
    for x in (inputs((8, 12))[:, ::2].t(), inputs((3, 8, 5))[..., ::2].transpose(-1, -2)):
        assert x.stride(-1) != 1
        torch.testing.assert_close(rope(x), rope(x.contiguous()), rtol=0, atol=0)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_batch_seq_heads_dim_input_with_seq_dim(layout):
    rope = RotaryEmbedding(16, 64, layout=layout)
    bhsd = inputs((2, 3, 7, 16))
    bshd = bhsd.transpose(1, 2).contiguous()
    positions = torch.tensor([[0, 0, 1, 2, 3, 4, 5], [0, 1, 2, 0, 1, 2, 3]])
    for kwargs in ({}, {"offset": 5}, {"offset": torch.tensor(5)}, {"positions": positions}):
        expected = rope(bhsd, **kwargs).transpose(1, 2)
        for seq_dim in (1, -3):
            torch.testing.assert_close(rope(bshd, seq_dim=seq_dim, **kwargs), expected, rtol=0, atol=0)
        numpy_kwargs = {k: v.tolist() if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}
        numpy_out = posenc.apply_rope(bshd.numpy(), seq_dim=1, layout=layout, **numpy_kwargs)
        np.testing.assert_allclose(numpy_out, expected.numpy(), rtol=1e-6, atol=1e-6)
    # Without seq_dim the heads axis would be read as the sequence: positions of 7 rows do not fit 3.
    with pytest.raises(ValueError, match=r"positions must have shape \(seq_len,\) = \(3,\)"):
        rope(bshd, positions=torch.arange(7))


def test_hugging_face_position_ids_of_one_row_serve_the_batch():
    rope = RotaryEmbedding(8, 16, layout="half")
    x = inputs((3, 2, 4, 8))
    one_row = torch.tensor([[2, 3, 4, 5]])
    torch.testing.assert_close(rope(x, positions=one_row), rope(x, offset=2), rtol=0, atol=1e-7)


def test_bad_seq_dim_names_the_rule():
    rope = RotaryEmbedding(8, 16)
    with pytest.raises(ValueError, match="seq_dim must name an axis of x before its last"):
        rope(inputs((2, 3, 8)), seq_dim=2)
    with pytest.raises(TypeError, match="seq_dim must be an integer"):
        rope(inputs((2, 3, 8)), seq_dim=1.0)


# ----------------------------------------------------------------------------- attention factor, frequencies


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_attention_factor_scales_the_result(layout):
    x = inputs((2, 2, 9, 16), dtype=torch.float64)
    plain = RotaryEmbedding(16, 32, layout=layout).double()
    scaled = RotaryEmbedding(16, 32, layout=layout, attention_factor=1.1386).double()
    # The factor multiplies the float64 tables before they are rounded to float32: float32 rounding.
    torch.testing.assert_close(scaled(x, offset=3), 1.1386 * plain(x, offset=3), rtol=1e-6, atol=1e-6)
    assert "attention_factor=1.1386" in repr(scaled)
    with pytest.raises(ValueError, match="attention_factor must be > 0"):
        RotaryEmbedding(16, 32, attention_factor=0.0)


def test_set_frequencies_rebuilds_the_tables():
    theta = posenc.scaled_frequencies(16, 4.0, method="linear")
    rope = RotaryEmbedding(16, 32, layout="half")
    rope.set_frequencies(theta, attention_factor=1.5)
    fresh = RotaryEmbedding(16, 32, layout="half", frequencies=theta, attention_factor=1.5)
    assert torch.equal(rope.cos, fresh.cos) and torch.equal(rope.sin, fresh.sin)


# ----------------------------------------------------------------------------- one apply_rope


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_apply_rope_on_a_tensor_returns_a_tensor(dtype, layout):
    x = inputs((2, 3, 6, 8), seed=4).to(dtype)
    positions = np.array([[0, 0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 5]])
    for kwargs in ({"offset": 7}, {"positions": positions}, {"positions": torch.from_numpy(positions)}):
        out = posenc.apply_rope(x, layout=layout, rotary_dim=6, attention_factor=1.2, **kwargs)
        assert isinstance(out, torch.Tensor) and out.dtype == dtype and out.device == x.device
        numpy_kwargs = {k: np.asarray(v) if k == "positions" else v for k, v in kwargs.items()}
        expected = posenc.apply_rope(
            x.float().numpy(), layout=layout, rotary_dim=6, attention_factor=1.2, **numpy_kwargs
        )
        tolerance = 1e-2 if dtype == torch.bfloat16 else 1e-6
        np.testing.assert_allclose(out.float().numpy(), expected, rtol=tolerance, atol=tolerance)


def test_apply_rope_on_a_tensor_has_gradients():
    x = inputs((2, 5, 8), dtype=torch.float64).requires_grad_()
    assert torch.autograd.gradcheck(lambda t: posenc.apply_rope(t, offset=3, layout="half"), (x,))


def test_apply_rope_on_an_array_does_not_import_torch():
    code = "import sys, numpy, posenc; out = posenc.apply_rope(numpy.ones((2, 4)));"
    code += "assert type(out) is numpy.ndarray and 'torch' not in sys.modules, sorted(sys.modules)"
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


# ----------------------------------------------------------------------------- from_config vs transformers


def hf_rotary(transformers, config_dict, module_name, class_name):
    """transformers' rotary module for a config dict, and a function q, position_ids -> rotated q."""
    import copy
    import importlib

    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    config = copy.deepcopy(config_dict)
    config = transformers.AutoConfig.for_model(config.pop("model_type"), **config)
    module = importlib.import_module(f"transformers.models.{module_name}.modeling_{module_name}")
    rotary = getattr(module, class_name)(config)

    def rotate(q, position_ids):
        cos, sin = rotary(q, position_ids)
        return apply_rotary_pos_emb(q, q, cos, sin)[0]

    return rotate


QWEN_YARN = {
    "model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
    "max_position_embeddings": 32768, "rope_theta": 1000000.0,
    "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"},
}  # fmt: skip


def test_from_config_equals_transformers_with_the_attention_factor():
    transformers = transformers_or_skip()
    hf = hf_rotary(transformers, QWEN_YARN, "qwen2", "Qwen2RotaryEmbedding")
    rope = RotaryEmbedding.from_config(QWEN_YARN, 2048)
    assert (rope.dim, rope.layout, round(rope.attention_factor, 6)) == (128, "half", 1.138629)
    q = inputs((2, 2, 9, 128), seed=5)
    position_ids = torch.tensor(
        [[0, 1, 2, 3, 4, 5, 6, 7, 8], [1000, 1001, 1002, 1003, 1004, 1005, 1006, 2040, 2047]]
    )
    # transformers' float32 angles drift by about 1e-4 at position 2000 (posenc's tables are float64-exact).
    torch.testing.assert_close(rope(q, positions=position_ids), hf(q, position_ids), rtol=0, atol=3e-4)


@pytest.mark.parametrize(("model_type", "rotary"), [
    ("glm", "GlmRotaryEmbedding"), ("glm4", "Glm4RotaryEmbedding"), ("ernie4_5", "Ernie4_5RotaryEmbedding"),
    ("helium", "HeliumRotaryEmbedding"),
])  # fmt: skip
def test_from_config_takes_the_interleaved_layout_of_these_families(model_type, rotary):
    # Each family's own rotary module and apply_rotary_pos_emb: with "half" the error was 6 to 8.
    import copy
    import importlib

    transformers = transformers_or_skip()
    fields = {"hidden_size": 128, "num_attention_heads": 4, "max_position_embeddings": 256}
    config = transformers.AutoConfig.for_model(model_type, **copy.deepcopy(fields))
    module = importlib.import_module(f"transformers.models.{model_type}.modeling_{model_type}")
    rope = RotaryEmbedding.from_config(config, 256)
    assert rope.layout == "interleaved"
    q = inputs((1, 4, 7, rope.dim), seed=11)
    position_ids = torch.tensor([[0, 1, 2, 50, 100, 200, 255]])
    cos, sin = getattr(module, rotary)(config)(q, position_ids)
    theirs = module.apply_rotary_pos_emb(q, q, cos, sin)[0]
    torch.testing.assert_close(rope(q, positions=position_ids), theirs, rtol=0, atol=1e-4)


def test_from_config_takes_llama_4s_complex_rotation():
    transformers = transformers_or_skip()
    from transformers.models.llama4 import modeling_llama4

    config = transformers.Llama4TextConfig(
        hidden_size=128, num_attention_heads=4, head_dim=32, max_position_embeddings=256, rope_scaling=None
    )
    rope = RotaryEmbedding.from_config(config, 256)
    assert rope.layout == "interleaved"
    q = inputs((1, 7, 4, 32), seed=12)  # Llama 4 rotates (batch, seq, heads, dim)
    position_ids = torch.tensor([[0, 1, 2, 50, 100, 200, 255]])
    freqs_cis = modeling_llama4.Llama4TextRotaryEmbedding(config)(q, position_ids)
    theirs = modeling_llama4.apply_rotary_emb(q, q, freqs_cis)[0]
    torch.testing.assert_close(rope(q, positions=position_ids, seq_dim=1), theirs, rtol=0, atol=1e-4)


def test_from_config_proportional_leaves_the_last_pairs_of_the_head_unrotated():
    transformers = transformers_or_skip()
    gemma4 = CONFIGS["Gemma-4-global"]
    hf = hf_rotary(transformers, gemma4, "llama", "LlamaRotaryEmbedding")
    rope = RotaryEmbedding.from_config(gemma4, 4096)
    assert (rope.dim, rope.rotary_dim, rope.layout) == (512, 512, "half")
    q = inputs((1, 2, 6, 512), seed=7)
    position_ids = torch.tensor([[0, 1, 2, 100, 1000, 4095]])
    ours = rope(q, positions=position_ids)
    torch.testing.assert_close(ours, hf(q, position_ids), rtol=0, atol=3e-4)
    # rotate_half pairs feature i with i + 256: the first 64 pairs turn, the other 192 do not.
    still = torch.cat((torch.arange(64, 256), torch.arange(320, 512)))
    torch.testing.assert_close(ours[..., still], q[..., still], rtol=0, atol=0)
    assert not torch.allclose(ours[..., 1:64], q[..., 1:64])


def test_from_config_longrope_switches_factors_as_transformers():
    transformers = transformers_or_skip()
    phi3 = CONFIGS["Phi-3-mini-128k"]
    hf = hf_rotary(transformers, phi3, "phi3", "Phi3RotaryEmbedding")
    rope = RotaryEmbedding.from_config(phi3, 8192)
    assert (rope.dim, rope.rotary_dim, rope.layout) == (96, 96, "half")
    q = inputs((1, 2, 4, 96), seed=6)
    # short, long (max position 4099 > 4096), short again: the factors follow each call's length.
    for start in (0, 4096, 0, 4092, 4093):
        position_ids = torch.arange(start, start + 4)[None]
        ours, theirs = rope(q, positions=position_ids), hf(q, position_ids)
        # transformers' float32 angles near position 4099 are off by about 2.5e-4 rad (x |q| ~ 3, x 1.19).
        torch.testing.assert_close(ours, theirs, rtol=0, atol=3e-3)
        other = (posenc.rope_parameters(phi3, 1).frequencies, posenc.rope_parameters(phi3, 8192).frequencies)
        expected = other[1] if start + 4 > 4096 else other[0]
        np.testing.assert_array_equal(rope.frequencies, expected)


def test_from_config_dynamic_keeps_transformers_state():
    """tech.md P3: after a long call, a shorter one above max_position_embeddings keeps its frequencies."""
    transformers = transformers_or_skip()
    dynamic = {
        "model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 16,
        "rope_theta": 10000.0, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0},
    }  # fmt: skip
    hf = hf_rotary(transformers, dynamic, "llama", "LlamaRotaryEmbedding")
    rope = RotaryEmbedding.from_config(dynamic, 64)
    fresh = posenc.rope_parameters(dynamic).frequencies
    history = []
    for length in (10, 40, 20, 10, 20):  # grow to 40; 20 keeps 40's; 10 < 16 resets; 20 grows again
        q = inputs((1, 2, length, 16), seed=length)
        position_ids = torch.arange(length)[None]
        torch.testing.assert_close(rope(q, positions=position_ids), hf(q, position_ids), rtol=0, atol=2e-6)
        history.append(rope.frequencies.copy())
    for_40, for_20 = (posenc.rope_parameters(dynamic, n).frequencies for n in (40, 20))
    np.testing.assert_array_equal(history[0], fresh)
    np.testing.assert_array_equal(history[1], for_40)
    np.testing.assert_array_equal(history[2], for_40)  # the state: not for_20
    np.testing.assert_array_equal(history[3], fresh)
    np.testing.assert_array_equal(history[4], for_20)
    rope.reset_length()
    np.testing.assert_array_equal(rope.frequencies, fresh)
    # The rows recomputed for a length are those a fresh module with these frequencies has.
    rope(inputs((1, 2, 40, 16)))
    full = RotaryEmbedding(16, 64, layout="half", frequencies=for_40)
    torch.testing.assert_close(rope.cos[:40], full.cos[:40], rtol=0, atol=0)


def test_from_config_layer_types_and_a_path(tmp_path):
    gemma = CONFIGS["Gemma-3-4b"]
    local = RotaryEmbedding.from_config(gemma, 32, layer_type="sliding_attention")
    np.testing.assert_array_equal(local.frequencies, posenc.rope_frequencies(256, 10000.0))
    (tmp_path / "config.json").write_text(json.dumps(gemma), encoding="utf-8")
    global_ = RotaryEmbedding.from_config(tmp_path, layer_type="full_attention", check_positions=False)
    assert global_.max_seq_length == 131072 // 1 or global_.max_seq_length == gemma["max_position_embeddings"]
    np.testing.assert_allclose(global_.frequencies, posenc.rope_frequencies(256, 1e6) / 8, rtol=1e-15)
    assert global_.check_positions is False


def test_how_far_transformers_float32_tables_drift_at_131072_positions():
    """The figure book/en/api.md quotes: Llama 3.1's cos and sin from transformers (float32 angles) against
    the exact rotation, and posenc's tables (float64 angle addition, rounded once)."""
    transformers = transformers_or_skip()
    import copy

    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    config = copy.deepcopy(CONFIGS["Llama-3.1-8B"])
    config.pop("model_type")
    hf = LlamaRotaryEmbedding(transformers.LlamaConfig(**config))
    positions = torch.arange(0, 131072, 7)
    cos, sin = hf(torch.zeros(1, 1, 1, 128), positions[None])
    ours = RotaryEmbedding.from_config(CONFIGS["Llama-3.1-8B"], 131072)
    exact = np.multiply.outer(positions.numpy().astype(np.float64), ours.frequencies)
    drift = {
        "transformers": max(
            np.abs(cos[0, :, :64].double().numpy() - np.cos(exact)).max(),
            np.abs(sin[0, :, :64].double().numpy() - np.sin(exact)).max(),
        ),
        "posenc": max(
            np.abs(ours.cos[positions].double().numpy() - np.cos(exact)).max(),
            np.abs(ours.sin[positions].double().numpy() - np.sin(exact)).max(),
        ),
    }
    print(f"\nLlama 3.1, positions < 131072: largest error of a cos or sin entry {drift}")
    assert 5e-3 < drift["transformers"] < 2e-2
    assert drift["posenc"] < 6e-8  # half a float32 step at 1


def test_from_config_names_what_it_reads_itself_and_the_length_to_raise():
    with pytest.raises(TypeError, match=r"from_config reads 'layout' from the config; .* check_positions"):
        RotaryEmbedding.from_config(CONFIGS["SmolLM2-135M"], 64, layout="interleaved")
    rope = RotaryEmbedding.from_config(CONFIGS["SmolLM2-135M"], 8)
    with pytest.raises(ValueError, match=r"exceeds max_seq_length 8, the rows of the tables \(build the"):
        rope(inputs((1, 1, 16, 64)))
