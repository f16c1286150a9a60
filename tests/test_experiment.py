import copy
import subprocess
import sys

import numpy as np
import pytest
import torch

from posenc import alibi_bias, alibi_slopes
from posenc import experiment as ex
from posenc import results as R
from posenc.nn import RotaryEmbedding


def rng(seed=0):
    return np.random.default_rng(seed)


# ----------------------------------------------------------------------------- tasks


@pytest.mark.parametrize("task", ["order", "relative"])
def test_same_seed_same_batch_other_seed_other_batch(task):
    first = ex.make_batch(task, rng(1), 64, 12)
    again = ex.make_batch(task, rng(1), 64, 12)
    other = ex.make_batch(task, rng(2), 64, 12)
    assert all(torch.equal(a, b) for a, b in zip(first, again, strict=True))
    assert not torch.equal(first[0], other[0])
    tokens, labels = first
    assert tokens.shape == (64, 12) and labels.shape == (64,)
    assert tokens.dtype == labels.dtype == torch.int64
    assert int(tokens.min()) >= 0 and int(tokens.max()) < ex.TASKS[task][1]


def test_order_labels_compare_first_and_last_and_never_tie():
    tokens, labels = ex.order_task(rng(), 4000, 9, vocab_size=5)
    assert np.all(tokens[:, 0] != tokens[:, -1])
    np.testing.assert_array_equal(labels, tokens[:, 0] < tokens[:, -1])
    assert 0.45 < labels.mean() < 0.55
    # The last token is uniform over the other tokens: every value occurs.
    assert set(np.unique(tokens[:, -1])) == set(range(5))


def test_relative_labels_say_whether_the_one_earlier_copy_is_offset_steps_back():
    offset, seq_len = 3, 10
    tokens, labels = ex.relative_task(rng(), 4000, seq_len, vocab_size=6, offset=offset)
    np.testing.assert_array_equal(labels, tokens[:, -1] == tokens[:, -1 - offset])
    copies = tokens[:, :-1] == tokens[:, -1:]
    assert np.all(copies.sum(axis=1) == 1), "the last token occurs exactly once before"
    distance = seq_len - 1 - np.argmax(copies, axis=1)
    assert set(distance[labels == 1]) == {offset}
    assert set(distance[labels == 0]) == set(range(1, seq_len)) - {offset}
    assert 0.45 < labels.mean() < 0.55


def test_relative_multiset_does_not_depend_on_the_label():
    # The count of the most frequent token is what a model without positions could use; it must not
    # differ between the classes (it is 2 for the repeated token, plus chance repeats of the others).
    tokens, labels = ex.relative_task(rng(), 20000, 12)
    top = np.array([np.bincount(row, minlength=16).max() for row in tokens])
    assert abs(top[labels == 1].mean() - top[labels == 0].mean()) < 0.05


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: ex.order_task(0, 4, 8), TypeError, "rng"),
        (lambda: ex.order_task(rng(), 0, 8), ValueError, "batch_size"),
        (lambda: ex.order_task(rng(), True, 8), TypeError, "batch_size"),
        (lambda: ex.order_task(rng(), 4, 1), ValueError, "seq_len"),
        (lambda: ex.order_task(rng(), 4, 8, vocab_size=1), ValueError, "vocab_size"),
        (lambda: ex.relative_task(rng(), 4, 4, offset=3), ValueError, "seq_len must be >= 5"),
        (lambda: ex.relative_task(rng(), 4, 8, offset=0), ValueError, "offset"),
        (lambda: ex.relative_task(rng(), 4, 8.0), TypeError, "seq_len"),
        (lambda: ex.make_batch("copy", rng(), 4, 8), ValueError, "task must be one of"),
    ],
)
def test_bad_task_input_names_the_argument(call, error, words):
    with pytest.raises(error, match=words):
        call()


# ----------------------------------------------------------------------------- model


def model(position, **options):
    torch.manual_seed(0)
    return ex.TinyTransformer(16, position=position, **options)


@pytest.mark.parametrize("position", ex.POSITIONS)
def test_every_variant_gives_one_logit_per_class(position):
    tokens, _ = ex.make_batch("order", rng(), 5, 16)
    logits = model(position)(tokens)
    assert logits.shape == (5, 2) and torch.isfinite(logits).all()


@pytest.mark.parametrize("position", [p for p in ex.POSITIONS if p != "learned"])
def test_formula_variants_run_at_four_times_the_training_length(position):
    tokens, _ = ex.make_batch("order", rng(), 3, 64)
    assert model(position, max_seq_length=16)(tokens).shape == (3, 2)


def test_learned_table_refuses_longer_sequences_and_names_the_lengths():
    layer = model("learned", max_seq_length=16)
    tokens, _ = ex.make_batch("order", rng(), 3, 17)
    with pytest.raises(ValueError, match=r"sequence length 17 exceeds max_seq_length 16"):
        layer(tokens)
    assert layer.position_embedding.weight.shape == (16, 32)


def test_without_positions_the_model_cannot_see_order():
    tokens, _ = ex.make_batch("order", rng(), 8, 12)
    shuffled = tokens[:, torch.randperm(12, generator=torch.Generator().manual_seed(0))]
    for position in ex.POSITIONS:
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


@pytest.mark.parametrize("position", ex.POSITIONS)
def test_causal_variants_ignore_what_comes_after_a_token(position):
    layer = model(position)
    tokens, _ = ex.make_batch("order", rng(), 4, 10)
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
        ex.TinyTransformer(16, **options)


def test_bad_token_shape():
    with pytest.raises(ValueError, match="tokens must have shape"):
        model("nope")(torch.zeros(16, dtype=torch.int64))


# ----------------------------------------------------------------------------- training


def test_training_is_reproducible():
    first = ex.run("order", "rope", steps=20, record_every=5)
    again = ex.run("order", "rope", steps=20, record_every=5)
    assert first.curve == again.curve and first.accuracy == again.accuracy
    assert first.curve.steps == [5, 10, 15, 20]
    assert all(0 <= a <= 1 for a in first.curve.accuracy)


def test_a_causal_model_learns_order_and_one_without_positions_does_not():
    learned = ex.run("order", "nope", steps=150, test_factors=(1,))
    blind = ex.run("order", "none", steps=150, test_factors=(1,))
    assert learned.accuracy[16] > 0.8, learned.accuracy
    assert 0.4 < blind.accuracy[16] < 0.6, blind.accuracy
    assert learned.curve.loss[-1] < learned.curve.loss[0]


def test_run_reports_the_learned_tables_error_at_longer_lengths():
    result = ex.run("relative", "learned", steps=2)
    assert list(result.accuracy) == [16, 32, 64]
    assert result.accuracy[16] is not None and result.accuracy[32] is None and result.accuracy[64] is None
    assert "sequence length 32 exceeds max_seq_length 16" in result.error


class HandMadeAlibi(ex.TinyTransformer):
    """ALiBi added by a subclass, the way the capstone project adds a method."""

    def __init__(self, vocab_size, **options):
        super().__init__(vocab_size, position="nope", **options)

    def attention_bias(self, seq_len):
        return super().attention_bias(seq_len) + torch.from_numpy(alibi_bias(self.num_heads, seq_len)).float()


def test_run_trains_the_model_that_build_makes():
    built = ex.run("relative", "hand-made alibi", steps=20, record_every=5, build=HandMadeAlibi)
    alibi = ex.run("relative", "alibi", steps=20, record_every=5)
    nope = ex.run("relative", "nope", steps=20, record_every=5)
    assert isinstance(built.model, HandMadeAlibi) and built.position == "hand-made alibi"
    # Same weights (the seed), same batches, same scores: the same numbers as the built-in ALiBi.
    assert built.curve == alibi.curve and built.accuracy == alibi.accuracy
    assert built.curve != nope.curve


def test_run_checks_what_build_is_and_makes():
    with pytest.raises(TypeError, match="build must be callable"):
        ex.run("order", "mine", steps=1, build="rope")
    with pytest.raises(TypeError, match="build must return a TinyTransformer"):
        ex.run("order", "mine", steps=1, build=lambda vocab, **options: torch.nn.Linear(2, 2))


def test_evaluate_scores_every_variant_on_the_same_sequences():
    # A model that always answers 1 scores the share of label 1 of the test set, whatever it is.
    class Always(torch.nn.Module):
        def forward(self, tokens):
            return torch.tensor([0.0, 1.0]).expand(tokens.size(0), 2)

    _, labels = ex.make_batch("relative", np.random.default_rng([0, 1, 32]), 500, 32)
    assert ex.evaluate(Always(), "relative", 32) == labels.double().mean().item()


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
        ex.train(model("nope"), "order", **options)


def test_bad_run_input_names_the_argument():
    with pytest.raises(ValueError, match="train_length"):
        ex.run("order", "nope", train_length=2)
    with pytest.raises(ValueError, match="test_factors"):
        ex.run("order", "nope", steps=1, test_factors=(0,))
    with pytest.raises(ValueError, match="task must be one of"):
        ex.evaluate(model("nope"), "sorting", 8)


def test_sweep_prints_one_line_per_run_and_seed_and_the_table_shows_every_variant(capsys):
    results = ex.sweep(["order"], ["none", "learned"], seeds=(0, 1), steps=2)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and lines[0].startswith("order     none") and "32:     --" in lines[2]
    assert [r.seed for r in results] == [0, 1, 0, 1]
    expected = [
        word for length in (16, 32, 64) for word in (f"{length}:", ex.band([results[0].accuracy[length]]))
    ]
    assert lines[0].split()[2:] == expected
    table = ex.format_table(results).splitlines()
    assert "order" in table[0] and table[1].split() == ["length", "|", "16", "32", "64"]
    assert table[-1].startswith("learned") and table[-1].count("--") == 2
    percent = ex.format_table(results, percent=True).splitlines()
    assert percent[-2].split()[2] == f"{round(100 * results[0].accuracy[16])}%"


def test_run_counts_right_answers_per_label():
    result = ex.run("relative", "nope", steps=2)
    for length, counts in result.correct.items():
        assert sum(total for _, total in counts) == 500
        assert sum(right for right, _ in counts) / 500 == result.accuracy[length]
    _, labels = ex.make_batch("relative", np.random.default_rng([0, 1, 16]), 500, 16)
    assert result.correct[16][1][1] == int(labels.sum())


def test_evaluate_by_label_splits_an_always_no_model():
    class AlwaysNo(torch.nn.Module):
        def forward(self, tokens):
            return torch.tensor([1.0, 0.0]).expand(tokens.size(0), 2)

    (right0, n0), (right1, n1) = ex.evaluate_by_label(AlwaysNo(), "relative", 16)
    assert right0 == n0 and right1 == 0 and n0 + n1 == 500


def test_the_test_stream_cannot_be_used_for_training():
    with pytest.raises(ValueError, match="stream must not be 1"):
        ex.train(model("nope"), "order", steps=1, stream=1)


# ----------------------------------------------------------------------------- longer than trained


@pytest.fixture(scope="module")
def rope_model():
    return ex.run("relative", "rope", steps=30).model


def test_the_none_recipe_is_the_trained_model(rope_model):
    tokens, _ = ex.make_batch("relative", np.random.default_rng(7), 8, 64)
    with torch.no_grad():
        expected = rope_model(tokens)
        same = ex.rescaled(rope_model, "none")(tokens)
    torch.testing.assert_close(same, expected, rtol=1e-6, atol=1e-6)


class Scaled(torch.nn.Module):
    def __init__(self, rope, scale):
        super().__init__()
        self.rope, self.scale = rope, scale

    def forward(self, x):
        return self.rope(x) * self.scale


@pytest.mark.parametrize("recipe", [r for r in ex.RECIPES if r != "none"])
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
    tokens, _ = ex.make_batch("relative", np.random.default_rng(8), 8, seq_len)
    with torch.no_grad():
        torch.testing.assert_close(ex.rescaled(rope_model, recipe)(tokens), by_hand(tokens))
        assert not torch.allclose(ex.rescaled(rope_model, recipe)(tokens), rope_model(tokens))


def test_dynamic_ntk_leaves_the_trained_length_alone(rope_model):
    tokens, _ = ex.make_batch("relative", np.random.default_rng(9), 8, 16)
    with torch.no_grad():
        torch.testing.assert_close(ex.rescaled(rope_model, "dynamic")(tokens), rope_model(tokens))


def test_rescaled_copies_and_fine_tune_trains_the_copy(rope_model):
    before = [p.clone() for p in rope_model.parameters()]
    copied = ex.rescaled(rope_model, "ntk")
    curve = ex.fine_tune(copied, "relative", steps=3)
    assert curve.steps == [3]
    assert all(torch.equal(a, b) for a, b in zip(before, rope_model.parameters(), strict=True))
    assert any(not torch.equal(a, b) for a, b in zip(before, copied.parameters(), strict=True))


def test_bad_rescaling_input_names_the_argument(rope_model):
    with pytest.raises(ValueError, match="recipe must be one of"):
        ex.rescaled(rope_model, "stretch")
    with pytest.raises(ValueError, match="position='rope'"):
        ex.rescaled(model("nope"), "ntk")
    with pytest.raises(ValueError, match="factor must be > 1"):
        ex.rescaled(rope_model, "linear", factor=1.0)


def test_chapter_sweep_checks_its_arguments():
    with pytest.raises(ValueError, match="workers must be >= 1"):
        ex.chapter_sweep(workers=0)
    with pytest.raises(TypeError, match="seeds must be an integer"):
        ex.chapter_sweep(seeds=("a",))


def test_bench_prints_times_and_the_table(capsys):
    ex.main(["--bench", "--steps", "2", "--tasks", "order", "--positions", "alibi"])
    out = capsys.readouterr().out
    assert "order     alibi" in out and " s " in out and "training time: total" in out
    assert out.rstrip().splitlines()[-1].startswith("alibi")


def test_import_posenc_still_does_not_import_torch():
    code = "import sys, posenc; print('torch' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "False"


def test_the_two_probes_split_position_interpolation_between_them():
    linear, _ = ex.recipe_frequencies("linear", 8, 64, factor=4.0, original_max_position=16)
    none, _ = ex.recipe_frequencies("none", 8, 64, factor=4.0, original_max_position=16)
    fastest, _ = ex.recipe_frequencies("pi-fastest", 8, 64, factor=4.0, original_max_position=16)
    others, _ = ex.recipe_frequencies("pi-others", 8, 64, factor=4.0, original_max_position=16)
    np.testing.assert_allclose(fastest, [linear[0], *none[1:]], rtol=1e-15)
    np.testing.assert_allclose(others, [none[0], *linear[1:]], rtol=1e-15)


def test_the_command_line_writes_the_sweep_and_checks_a_file_against_it(tmp_path, monkeypatch, capsys):
    record = R.Record("main", "order", "nope", 0, 600, "", {16: ((240, 250), (250, 250))})
    made = R.Results({"seeds": [0]}, [record])
    monkeypatch.setattr(ex, "chapter_sweep", lambda **options: made)
    path = tmp_path / "results.json"
    assert ex.main(["sweep", "--output", str(path)]) == 0 and R.load(path) == made
    assert ex.main(["check", "--output", str(path)]) == 0
    assert "0 differences beyond the tolerance (mean 10%, seed 25%, label 30%)" in capsys.readouterr().out
    moved = R.Record("main", "order", "nope", 0, 600, "", {16: ((100, 250), (250, 250))})
    R.Results({"seeds": [0]}, [moved]).dump(path)
    assert ex.main(["check", "--output", str(path)]) == 1
    assert "label 0: 0.400 -> 0.960" in capsys.readouterr().out


def test_relative_task_can_put_every_copy_at_one_distance():
    for distance in (1, 3, 12):
        tokens, labels = ex.relative_task(rng(), 200, 32, distance=distance)
        last = tokens[:, -1]
        earlier = tokens[:, :-1] == last[:, np.newaxis]
        assert np.all(earlier.sum(axis=1) == 1) and np.all(earlier[:, 31 - distance])
        assert np.all(labels == int(distance == 3))
    with pytest.raises(ValueError, match=r"distance must be <= seq_len - 1 = 15"):
        ex.relative_task(rng(), 2, 16, distance=16)
    with pytest.raises(ValueError, match="distance must be >= 1"):
        ex.relative_task(rng(), 2, 16, distance=0)


def test_answers_by_distance_counts_yes_answers():
    class AlwaysYes(torch.nn.Module):
        def forward(self, tokens):
            return torch.tensor([0.0, 1.0]).expand(tokens.size(0), 2)

    assert ex.answers_by_distance(AlwaysYes(), 16, (1, 3), num_sequences=7) == {1: (7, 7), 3: (7, 7)}
    with pytest.raises(ValueError, match="distances must be >= 1"):
        ex.answers_by_distance(AlwaysYes(), 16, (0,))


def test_ntk_longest_is_ntk_with_dynamic_ntks_factor_at_the_longest_length():
    from posenc import scaled_frequencies

    probe, _ = ex.recipe_frequencies("ntk-longest", 8, 16, factor=4.0, original_max_position=16)
    dynamic, _ = ex.recipe_frequencies("dynamic", 8, 64, factor=4.0, original_max_position=16)
    np.testing.assert_allclose(probe, scaled_frequencies(8, 13.0, method="ntk"), rtol=1e-15)
    np.testing.assert_allclose(probe, dynamic, rtol=1e-12)


def test_to_results_summarises_runs_over_seeds():
    runs = ex.sweep(["order"], ["nope"], seeds=(0, 1), steps=2, verbose=False)
    summary = R.format_summary(ex.to_results(runs))
    values = [runs[0].accuracy[16], runs[1].accuracy[16]]
    assert summary.splitlines()[0] == "order (main, 2 steps, seeds 0, 1)"
    assert summary.splitlines()[2].split()[1] == f"{100 * sum(values) / 2:.0f}"
    with pytest.raises(TypeError, match="RunResult"):
        ex.to_results([object()])
    with pytest.raises(ValueError, match="at least one"):
        ex.to_results([])
