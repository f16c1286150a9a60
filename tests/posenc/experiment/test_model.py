"""posenc.experiment.model: every variant of the small Transformer, and what each one can and cannot see."""

import numpy as np
import pytest
import torch

from posenc import alibi_slopes
from posenc.experiment.model import POSITIONS, TinyTransformer
from posenc.experiment.tasks import make_batch


def rng(seed=0):
    return np.random.default_rng(seed)


def model(position, **options):
    torch.manual_seed(0)
    return TinyTransformer(16, position=position, **options)


@pytest.mark.parametrize("position", POSITIONS)
def test_every_variant_gives_one_logit_per_class(position):
    tokens, _ = make_batch("order", rng(), 5, 16)
    logits = model(position)(tokens)
    assert logits.shape == (5, 2) and torch.isfinite(logits).all()


@pytest.mark.parametrize("position", [p for p in POSITIONS if p != "learned"])
def test_formula_variants_run_at_four_times_the_training_length(position):
    tokens, _ = make_batch("order", rng(), 3, 64)
    assert model(position, max_seq_length=16)(tokens).shape == (3, 2)


def test_learned_table_refuses_longer_sequences_and_names_the_lengths():
    layer = model("learned", max_seq_length=16)
    tokens, _ = make_batch("order", rng(), 3, 17)
    with pytest.raises(ValueError, match=r"sequence length 17 exceeds max_seq_length 16"):
        layer(tokens)
    assert layer.position_embedding.weight.shape == (16, 32)


def test_without_positions_the_model_cannot_see_order():
    tokens, _ = make_batch("order", rng(), 8, 12)
    shuffled = tokens[:, torch.randperm(12, generator=torch.Generator().manual_seed(0))]
    for position in POSITIONS:
        layer = model(position)
        same = torch.allclose(layer(tokens), layer(shuffled), atol=1e-5)
        assert same == (position == "none"), position


def hidden_states(layer, tokens):
    """The residual stream after the last block, caught on its way into the final norm."""
    caught = []
    handle = layer.norm.register_forward_hook(lambda module, args, output: caught.append(args[0]))
    layer(tokens)
    handle.remove()
    return caught[0]


@pytest.mark.parametrize("position", POSITIONS)
def test_causal_variants_ignore_what_comes_after_a_token(position):
    layer = model(position)
    tokens, _ = make_batch("order", rng(), 4, 10)
    changed = tokens.clone()
    changed[:, -1] = (changed[:, -1] + 1) % 16
    before, after = hidden_states(layer, tokens), hidden_states(layer, changed)
    assert not torch.allclose(before[:, -1], after[:, -1])
    # Without a mask every token sees the changed one; with it, none before it does.
    assert torch.equal(before[:, :-1], after[:, :-1]) == (position != "none"), position


def test_attention_bias_of_each_variant():
    seq_len, future = 5, torch.ones(5, 5, dtype=torch.bool).triu(1)
    assert torch.equal(model("none").attention_bias(seq_len), torch.zeros(4, seq_len, seq_len))
    causal = model("nope").attention_bias(seq_len)
    assert torch.isneginf(causal[:, future]).all() and torch.equal(causal[:, ~future], torch.zeros(4, 15))
    alibi = model("alibi").attention_bias(seq_len)
    i, j = torch.tril_indices(seq_len, seq_len)
    slopes = torch.from_numpy(alibi_slopes(4)).float()
    expected = -slopes[:, None] * (i - j).float()
    torch.testing.assert_close(alibi[:, i, j], expected)
    assert torch.isneginf(alibi[:, future]).all()


def test_rope_rotates_queries_and_keys_in_every_layer():
    layer = model("rope")
    heads = [block.attention.rope for block in layer.blocks]
    assert all(rope is not None and rope.dim == 8 for rope in heads)
    assert all(block.attention.rope is None for block in model("sinusoidal").blocks)


@pytest.mark.parametrize(
    ("options", "error", "words"),
    [
        ({"position": "relative"}, ValueError, "position must be one of"),
        ({"position": "rope", "d_model": 36}, ValueError, "d_model must be a multiple of 2 \\* num_heads"),
        ({"position": "rope", "num_heads": 0}, ValueError, "num_heads"),
        ({"position": "learned", "max_seq_length": 0}, ValueError, "max_seq_length"),
        ({"position": "nope", "num_layers": 1.5}, TypeError, "num_layers"),
    ],
)
def test_bad_model_input_names_the_argument(options, error, words):
    with pytest.raises(error, match=words):
        TinyTransformer(16, **options)


def test_bad_token_shape():
    with pytest.raises(ValueError, match="tokens must have shape"):
        model("nope")(torch.zeros(16, dtype=torch.int64))
