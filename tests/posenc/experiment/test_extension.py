"""posenc.experiment.extension: a RoPE model read with each recipe is the one built with its frequencies
by hand."""

import copy

import numpy as np
import pytest
import torch

from posenc.experiment.extension import RECIPES, fine_tune, recipe_frequencies, rescaled
from posenc.experiment.model import TinyTransformer
from posenc.experiment.tasks import make_batch
from posenc.experiment.training import run
from posenc.nn import RotaryEmbedding


def model(position, **options):
    torch.manual_seed(0)
    return TinyTransformer(16, position=position, **options)


@pytest.fixture(scope="module")
def rope_model():
    return run("relative", "rope", steps=30).model


def test_the_unscaled_recipe_is_the_trained_model(rope_model):
    tokens, _ = make_batch("relative", np.random.default_rng(7), 8, 64)
    with torch.no_grad():
        expected = rope_model(tokens)
        same = rescaled(rope_model, "unscaled")(tokens)
    torch.testing.assert_close(same, expected, rtol=1e-6, atol=1e-6)


class Scaled(torch.nn.Module):
    def __init__(self, rope, scale):
        super().__init__()
        self.rope, self.scale = rope, scale

    def forward(self, x):
        return self.rope(x) * self.scale


@pytest.mark.parametrize("recipe", [r for r in RECIPES if r != "unscaled"])
def test_each_recipe_rotates_with_scaled_frequencies(rope_model, recipe):
    """The rescaled model equals a TinyTransformer built with the recipe's frequencies by hand."""
    from posenc import scaled_frequencies, yarn_attention_factor

    seq_len = 64
    method = "yarn" if recipe.startswith("yarn") else recipe
    options = {"original_max_position": 16}
    if recipe == "dynamic":
        options["seq_len"] = seq_len
    if method == "yarn":
        options["ramp"] = "paper" if recipe == "yarn-paper" else "code"
    theta = scaled_frequencies(8, 4.0, method=method, **options)
    scale = yarn_attention_factor(4.0) if method == "yarn" else 1.0
    by_hand = copy.deepcopy(rope_model)
    for block in by_hand.blocks:
        block.attention.rope = Scaled(RotaryEmbedding(8, seq_len, frequencies=theta), scale)
    tokens, _ = make_batch("relative", np.random.default_rng(8), 8, seq_len)
    with torch.no_grad():
        torch.testing.assert_close(rescaled(rope_model, recipe)(tokens), by_hand(tokens))
        assert not torch.allclose(rescaled(rope_model, recipe)(tokens), rope_model(tokens))


def test_dynamic_ntk_leaves_the_trained_length_alone(rope_model):
    tokens, _ = make_batch("relative", np.random.default_rng(9), 8, 16)
    with torch.no_grad():
        torch.testing.assert_close(rescaled(rope_model, "dynamic")(tokens), rope_model(tokens))


def test_rescaled_copies_and_fine_tune_trains_the_copy(rope_model):
    before = [p.clone() for p in rope_model.parameters()]
    copied = rescaled(rope_model, "ntk")
    curve = fine_tune(copied, "relative", steps=3)
    assert curve.steps == [3]
    assert all(torch.equal(a, b) for a, b in zip(before, rope_model.parameters(), strict=True))
    assert any(not torch.equal(a, b) for a, b in zip(before, copied.parameters(), strict=True))


def test_bad_rescaling_input_names_the_argument(rope_model):
    with pytest.raises(ValueError, match="recipe must be one of"):
        rescaled(rope_model, "stretch")
    with pytest.raises(ValueError, match="position='rope'"):
        rescaled(model("nope"), "ntk")
    # 1 is allowed (no extension, as transformers allows it: review P16); below 1 is not.
    with pytest.raises(ValueError, match="factor must be >= 1"):
        rescaled(rope_model, "linear", factor=0.5)


def test_the_two_probes_split_position_interpolation_between_them():
    linear, _ = recipe_frequencies("linear", 8, 64, factor=4.0, original_max_position=16)
    unscaled, _ = recipe_frequencies("unscaled", 8, 64, factor=4.0, original_max_position=16)
    fastest, _ = recipe_frequencies("pi-fastest", 8, 64, factor=4.0, original_max_position=16)
    others, _ = recipe_frequencies("pi-others", 8, 64, factor=4.0, original_max_position=16)
    np.testing.assert_allclose(fastest, [linear[0], *unscaled[1:]], rtol=1e-15)
    np.testing.assert_allclose(others, [unscaled[0], *linear[1:]], rtol=1e-15)


def test_ntk_longest_is_ntk_with_dynamic_ntks_factor_at_the_longest_length():
    from posenc import scaled_frequencies

    probe, _ = recipe_frequencies("ntk-longest", 8, 16, factor=4.0, original_max_position=16)
    dynamic, _ = recipe_frequencies("dynamic", 8, 64, factor=4.0, original_max_position=16)
    np.testing.assert_allclose(probe, scaled_frequencies(8, 13.0, method="ntk"), rtol=1e-15)
    np.testing.assert_allclose(probe, dynamic, rtol=1e-12)
