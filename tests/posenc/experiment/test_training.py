"""posenc.experiment.training: reproducible training, a model learns what its positions allow,
evaluation counts."""

import numpy as np
import pytest
import torch

from posenc import alibi_bias
from posenc.experiment.model import TinyTransformer
from posenc.experiment.tasks import make_batch
from posenc.experiment.training import answers_by_distance, evaluate, evaluate_by_label, run, train


def model(position, **options):
    torch.manual_seed(0)
    return TinyTransformer(16, position=position, **options)


def test_training_is_reproducible():
    first = run("order", "rope", steps=20, record_every=5)
    again = run("order", "rope", steps=20, record_every=5)
    assert first.curve == again.curve and first.accuracy == again.accuracy
    assert first.curve.steps == [5, 10, 15, 20]
    assert all(0 <= a <= 1 for a in first.curve.accuracy)


def test_a_causal_model_learns_order_and_one_without_positions_does_not():
    learned = run("order", "nope", steps=150, test_factors=(1,))
    blind = run("order", "none", steps=150, test_factors=(1,))
    assert learned.accuracy[16] > 0.8, learned.accuracy
    assert 0.4 < blind.accuracy[16] < 0.6, blind.accuracy
    assert learned.curve.loss[-1] < learned.curve.loss[0]


def test_run_reports_the_learned_tables_error_at_longer_lengths():
    result = run("relative", "learned", steps=2)
    assert list(result.accuracy) == [16, 32, 64]
    assert result.accuracy[16] is not None and result.accuracy[32] is None and result.accuracy[64] is None
    assert "sequence length 32 exceeds max_seq_length 16" in result.error


class HandMadeAlibi(TinyTransformer):
    """ALiBi added by a subclass, the way the capstone project adds a method."""

    def __init__(self, vocab_size, **options):
        super().__init__(vocab_size, position="nope", **options)

    def attention_bias(self, seq_len):
        return super().attention_bias(seq_len) + torch.from_numpy(alibi_bias(self.num_heads, seq_len)).float()


def test_run_trains_the_model_that_build_makes():
    built = run("relative", "hand-made alibi", steps=20, record_every=5, build=HandMadeAlibi)
    alibi = run("relative", "alibi", steps=20, record_every=5)
    nope = run("relative", "nope", steps=20, record_every=5)
    assert isinstance(built.model, HandMadeAlibi) and built.position == "hand-made alibi"
    # Same weights (the seed), same batches, same scores: the same numbers as the built-in ALiBi.
    assert built.curve == alibi.curve and built.accuracy == alibi.accuracy
    assert built.curve != nope.curve


def test_run_checks_what_build_is_and_makes():
    with pytest.raises(TypeError, match="build must be callable"):
        run("order", "mine", steps=1, build="rope")
    with pytest.raises(TypeError, match="build must return a TinyTransformer"):
        run("order", "mine", steps=1, build=lambda vocab, **options: torch.nn.Linear(2, 2))


def test_evaluate_scores_every_variant_on_the_same_sequences():
    # A model that always answers 1 scores the share of label 1 of the test set, whatever it is.
    class Always(torch.nn.Module):
        def forward(self, tokens):
            return torch.tensor([0.0, 1.0]).expand(tokens.size(0), 2)

    _, labels = make_batch("relative", np.random.default_rng([0, 1, 32]), 500, 32)
    assert evaluate(Always(), "relative", 32) == labels.double().mean().item()


@pytest.mark.parametrize(
    ("options", "error", "words"),
    [
        ({"steps": 0}, ValueError, "steps"),
        ({"lengths": (16, 8)}, ValueError, "lengths must be"),
        ({"lengths": (1, 8)}, ValueError, "lengths"),
        ({"lr": 0.0}, ValueError, "lr must be > 0"),
        ({"lr": "fast"}, TypeError, "lr"),
        ({"record_every": 0}, ValueError, "record_every"),
    ],
)
def test_bad_training_input_names_the_argument(options, error, words):
    with pytest.raises(error, match=words):
        train(model("nope"), "order", **options)


def test_bad_run_input_names_the_argument():
    with pytest.raises(ValueError, match="train_length"):
        run("order", "nope", train_length=2)
    with pytest.raises(ValueError, match="test_factors"):
        run("order", "nope", steps=1, test_factors=(0,))
    with pytest.raises(ValueError, match="task must be one of"):
        evaluate(model("nope"), "sorting", 8)


def test_run_counts_right_answers_per_label():
    result = run("relative", "nope", steps=2)
    for length, counts in result.correct.items():
        assert sum(total for _, total in counts) == 500
        assert sum(right for right, _ in counts) / 500 == result.accuracy[length]
    _, labels = make_batch("relative", np.random.default_rng([0, 1, 16]), 500, 16)
    assert result.correct[16][1][1] == int(labels.sum())


def test_evaluate_by_label_splits_an_always_no_model():
    class AlwaysNo(torch.nn.Module):
        def forward(self, tokens):
            return torch.tensor([1.0, 0.0]).expand(tokens.size(0), 2)

    (right0, n0), (right1, n1) = evaluate_by_label(AlwaysNo(), "relative", 16)
    assert right0 == n0 and right1 == 0 and n0 + n1 == 500


def test_the_test_stream_cannot_be_used_for_training():
    with pytest.raises(ValueError, match="stream must not be 1"):
        train(model("nope"), "order", steps=1, stream=1)


def test_answers_by_distance_counts_yes_answers():
    class AlwaysYes(torch.nn.Module):
        def forward(self, tokens):
            return torch.tensor([0.0, 1.0]).expand(tokens.size(0), 2)

    assert answers_by_distance(AlwaysYes(), 16, (1, 3), num_sequences=7) == {1: (7, 7), 3: (7, 7)}
    with pytest.raises(ValueError, match="distances must be >= 1"):
        answers_by_distance(AlwaysYes(), 16, (0,))
