"""Tests of posenc.positions: position ids for padded, packed and context-parallel batches."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import posenc
from posenc.positions import (
    load_balanced_positions,
    packed_attention_mask,
    packed_position_ids,
    positions_from_mask,
)


def test_exported_by_the_numpy_package():
    assert posenc.positions_from_mask is positions_from_mask
    assert posenc.packed_position_ids is packed_position_ids
    assert posenc.packed_attention_mask is packed_attention_mask
    assert posenc.load_balanced_positions is load_balanced_positions


def test_positions_from_mask_as_hugging_face_generate():
    mask = np.array([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1], [0, 1, 1, 0, 1]])
    # transformers' generate: position_ids = mask.cumsum(-1) - 1, then filled with 1 where mask == 0
    hf = np.where(mask == 0, 1, mask.cumsum(-1) - 1)
    ours = positions_from_mask(mask)
    assert ours.dtype == np.int64
    np.testing.assert_array_equal(ours[mask == 1], hf[mask == 1])
    np.testing.assert_array_equal(ours[mask == 0], 0)
    np.testing.assert_array_equal(positions_from_mask(mask.astype(bool)), ours)


@pytest.mark.parametrize(
    ("mask", "error", "match"),
    [
        ([[0.0, 1.0]], TypeError, "attention_mask must hold integers"),
        ([0, 1, 1], ValueError, r"shape \(batch, seq_len\)"),
        ([[0, 2]], ValueError, "only 0 \\(padding\\) and 1"),
    ],
)
def test_positions_from_mask_rejects(mask, error, match):
    with pytest.raises(error, match=match):
        positions_from_mask(mask)


def test_packed_ids_restart_and_mask_is_block_diagonal():
    lengths = [3, 1, 4]
    ids = packed_position_ids(lengths)
    np.testing.assert_array_equal(ids, [0, 1, 2, 0, 0, 1, 2, 3])
    mask = packed_attention_mask(lengths)
    assert mask.shape == (8, 8) and mask.dtype == np.bool_
    starts = np.cumsum([0, *lengths])
    for start, stop in itertools.pairwise(starts):
        np.testing.assert_array_equal(mask[start:stop, start:stop], np.tri(stop - start, dtype=bool))
    assert mask.sum() == sum(n * (n + 1) // 2 for n in lengths)
    full = packed_attention_mask(lengths, causal=False)
    assert full.sum() == sum(n * n for n in lengths)


@pytest.mark.parametrize(
    ("lengths", "error", "match"),
    [
        (5, TypeError, "lengths must be a sequence"),
        ("ab", TypeError, "lengths must be a sequence"),
        ([], ValueError, "at least one"),
        ([2, 0], ValueError, "lengths must be >= 1"),
        ([2, 1.5], TypeError, "lengths must hold integers"),
        ([True], TypeError, "lengths must hold integers"),
    ],
)
def test_packed_helpers_reject(lengths, error, match):
    with pytest.raises(error, match=match):
        packed_position_ids(lengths)
    with pytest.raises(error, match=match):
        packed_attention_mask(lengths)


def test_packed_mask_rejects_non_bool_causal():
    with pytest.raises(TypeError, match="causal must be True or False"):
        packed_attention_mask([2], causal=1)


def test_load_balanced_positions_cover_the_sequence_and_balance_the_work():
    for seq_len, ranks in [(8, 2), (64, 4), (6, 1), (48, 3)]:
        shards = load_balanced_positions(seq_len, ranks)
        assert shards.shape == (ranks, seq_len // ranks)
        np.testing.assert_array_equal(np.sort(shards.ravel()), np.arange(seq_len))
        # causal work of a rank: each query at position p sees p + 1 keys
        work = (shards + 1).sum(axis=1)
        assert len(set(work.tolist())) == 1
    np.testing.assert_array_equal(load_balanced_positions(8, 2), [[0, 1, 6, 7], [2, 3, 4, 5]])


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((10, 2), ValueError, "multiple of 2 \\* ranks = 4"),
        ((8, 0), ValueError, "ranks must be >= 1"),
        ((8.0, 2), TypeError, "seq_len must be an integer"),
        ((0, 1), ValueError, "seq_len must be >= 1"),
    ],
)
def test_load_balanced_positions_rejects(args, error, match):
    with pytest.raises(error, match=match):
        load_balanced_positions(*args)
