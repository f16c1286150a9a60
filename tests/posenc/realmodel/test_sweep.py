"""posenc.realmodel.sweep: the results file, its comparison, and a cheap re-computation of its start.

The whole check (every segment of the checked methods at 16,384 tokens) is test_sweep_check.py.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re

import pytest
import torch

from posenc.realmodel import (
    PasskeyResult,
    load_decoder,
    load_text,
    load_tokenizer,
    rope_setting,
    sweep,
    token_nll,
)
from posenc.realmodel.methods import METHODS

pytestmark = pytest.mark.slow


def results(nll=(3.0, 3.5), correct=6):
    trial = PasskeyResult(length=4096, depth=0.5, answer=" 68213", correct=correct, tokens=6, log_prob=-0.1)
    return sweep.SweepResults(nll={"none": list(nll)}, passkey={"none": [trial]}, length=4096)


def test_the_file_holds_every_method_at_its_settings():
    stored = sweep.load()
    assert list(stored.nll) == list(METHODS) == list(stored.passkey)
    assert (stored.length, stored.segment, stored.trained_length) == (16384, 2048, 8192)
    for method in METHODS:
        assert len(stored.nll[method]) == 8 and all(0 < value < 20 for value in stored.nll[method])
        trials = [(trial.length, trial.depth) for trial in stored.passkey[method]]
        expected = [(n, d) for n in sweep.PASSKEY_LENGTHS for d in sweep.PASSKEY_DEPTHS]
        # A prompt is whole filler sentences (24 tokens each) short of its length, at its depth.
        assert all(
            0 <= n - got < 24 and d == depth for (n, d), (got, depth) in zip(expected, trials, strict=True)
        )


def test_perplexity_reads_the_file_and_names_bad_input():
    stored = results()
    assert stored.perplexity("none") == [math.exp(3.0), math.exp(3.5)]
    assert stored.perplexity("none", 2048) == [math.exp(3.0)]
    with pytest.raises(
        ValueError, match=re.escape("method must be one of none (the stored ones), got 'yarn'")
    ):
        stored.perplexity("yarn")
    with pytest.raises(ValueError, match=re.escape("length must be at most 4096 (the sweep's), got 8192")):
        stored.perplexity("none", 8192)


def test_dump_and_load_give_the_same_results(tmp_path):
    path = tmp_path / "results.json"
    results().dump(path)
    assert sweep.load(path) == results()
    data = json.loads(path.read_text())
    data["text_sha256"] = "0" * 64
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="another model or text"):
        sweep.load(path)


def test_compare_finds_moved_losses_changed_passkeys_and_missing_segments():
    assert sweep.compare(results(), results(nll=(3.0, 3.5 + sweep.NLL_TOLERANCE / 2))) == []
    moved = sweep.compare(results(), results(nll=(3.0, 3.5 + 2 * sweep.NLL_TOLERANCE)))
    assert moved == [f"none, segment 2: loss {3.5 + 2 * sweep.NLL_TOLERANCE:.5f}, the file 3.50000"]
    assert "passkey at 4096 tokens" in sweep.compare(results(), results(correct=5))[0]
    assert sweep.compare(results(), results(nll=(3.0,))) == ["none: 1 segments, the file 2"]
    other = dataclasses.replace(results(), nll={"rope": [3.0, 3.5]}, passkey={})
    assert sweep.compare(results(), other) == ["rope: 2 segments, the file 0"]


def test_largest_move_is_the_largest_segment_move_over_the_methods_both_hold():
    assert sweep.largest_move(results(), results(nll=(2.9, 3.504))) == pytest.approx(0.1)
    assert sweep.largest_move(results(), dataclasses.replace(results(), nll={"rope": [9.0]})) == 0.0


def test_segment_means():
    losses = torch.arange(7, dtype=torch.float32)
    assert sweep.segment_nll(losses, 3) == [1.0, 4.0, 6.0]


def test_run_sweep_names_bad_input():
    model = load_decoder(max_seq_length=4096)
    with pytest.raises(ValueError, match="methods must be among none, linear"):
        sweep.run_sweep(model, None, methods=["rope"])
    with pytest.raises(ValueError, match="length must be a multiple of 2048 and at most 4096, got 8192"):
        sweep.run_sweep(model, None, length=8192)


def test_the_first_segment_of_the_static_methods_is_what_2049_tokens_give():
    # A causal model's first 2,048 losses do not depend on what follows, and the static methods' frequencies
    # do not depend on the length: one pass over 2,049 tokens reproduces the file's first segment.
    stored = sweep.load()
    model = load_decoder(max_seq_length=2049)
    ids = load_tokenizer()(load_text(), return_tensors="pt").input_ids[:, :2049]
    for method in ("none", "yarn"):
        frequencies, attention = rope_setting(method, model.gguf_config, 2049)
        model.set_frequencies(frequencies, attention_factor=attention)
        (first,) = sweep.segment_nll(token_nll(model, ids))
        assert abs(first - stored.nll[method][0]) < sweep.NLL_TOLERANCE, method
