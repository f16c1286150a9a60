"""posenc.experiment.tasks: the seeded batches of chapter 8's two tasks, and what their labels say."""

import numpy as np
import pytest
import torch

from posenc.experiment.tasks import TASKS, make_batch, order_task, relative_task


def rng(seed=0):
    return np.random.default_rng(seed)


@pytest.mark.parametrize("task", ["order", "relative"])
def test_same_seed_same_batch_other_seed_other_batch(task):
    first = make_batch(task, rng(1), 64, 12)
    again = make_batch(task, rng(1), 64, 12)
    other = make_batch(task, rng(2), 64, 12)
    assert all(torch.equal(a, b) for a, b in zip(first, again, strict=True))
    assert not torch.equal(first[0], other[0])
    tokens, labels = first
    assert tokens.shape == (64, 12) and labels.shape == (64,)
    assert tokens.dtype == labels.dtype == torch.int64
    assert int(tokens.min()) >= 0 and int(tokens.max()) < TASKS[task][1]


def test_order_labels_compare_first_and_last_and_never_tie():
    tokens, labels = order_task(rng(), 4000, 9, vocab_size=5)
    assert np.all(tokens[:, 0] != tokens[:, -1])
    np.testing.assert_array_equal(labels, tokens[:, 0] < tokens[:, -1])
    assert 0.45 < labels.mean() < 0.55
    # The last token is uniform over the other tokens: every value occurs.
    assert set(np.unique(tokens[:, -1])) == set(range(5))


def test_relative_labels_say_whether_the_one_earlier_copy_is_offset_steps_back():
    offset, seq_len = 3, 10
    tokens, labels = relative_task(rng(), 4000, seq_len, vocab_size=6, offset=offset)
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
    tokens, labels = relative_task(rng(), 20000, 12)
    top = np.array([np.bincount(row, minlength=16).max() for row in tokens])
    assert abs(top[labels == 1].mean() - top[labels == 0].mean()) < 0.05


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: order_task(0, 4, 8), TypeError, "rng"),
        (lambda: order_task(rng(), 0, 8), ValueError, "batch_size"),
        (lambda: order_task(rng(), True, 8), TypeError, "batch_size"),
        (lambda: order_task(rng(), 4, 1), ValueError, "seq_len"),
        (lambda: order_task(rng(), 4, 8, vocab_size=1), ValueError, "vocab_size"),
        (lambda: relative_task(rng(), 4, 4, offset=3), ValueError, "seq_len must be >= 5"),
        (lambda: relative_task(rng(), 4, 8, offset=0), ValueError, "offset"),
        (lambda: relative_task(rng(), 4, 8.0), TypeError, "seq_len"),
        (lambda: make_batch("copy", rng(), 4, 8), ValueError, "task must be one of"),
    ],
)
def test_bad_task_input_names_the_argument(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_relative_task_can_put_every_copy_at_one_distance():
    for distance in (1, 3, 12):
        tokens, labels = relative_task(rng(), 200, 32, distance=distance)
        last = tokens[:, -1]
        earlier = tokens[:, :-1] == last[:, np.newaxis]
        assert np.all(earlier.sum(axis=1) == 1) and np.all(earlier[:, 31 - distance])
        assert np.all(labels == int(distance == 3))
    with pytest.raises(ValueError, match=r"distance must be <= seq_len - 1 = 15"):
        relative_task(rng(), 2, 16, distance=16)
    with pytest.raises(ValueError, match="distance must be >= 1"):
        relative_task(rng(), 2, 16, distance=0)
