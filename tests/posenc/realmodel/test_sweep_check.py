"""Chapter 10's committed sweep is current: the checked methods are re-run over all 16,384 tokens.

The three editions of chapter 10 show ``src/posenc/realmodel/data/sweep_results.json`` instead of running
its 16,384-token passes, so this is where their perplexities are recomputed: ``none`` and ``yarn``
(:data:`posenc.realmodel.sweep.CHECKED_METHODS`), each segment within
:data:`~posenc.realmodel.sweep.NLL_TOLERANCE` nats. Marked ``solo``: it keeps both cores busy, after the pool.
"""

from __future__ import annotations

import pytest
import torch

from posenc.realmodel import load_decoder, load_tokenizer, sweep

pytestmark = [pytest.mark.slow, pytest.mark.solo]  # about 5 min on two cores


def test_the_committed_perplexities_are_what_the_model_computes_now(capsys):
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        fresh = sweep.run_sweep(
            load_decoder(), load_tokenizer(), methods=sweep.CHECKED_METHODS, passkey=False
        )
    finally:
        torch.set_num_threads(threads)
    stored = sweep.load()
    with capsys.disabled():
        move = sweep.largest_move(stored, fresh)
        print(f"\nreal-model sweep: largest move {move:.2e} nats of {sweep.NLL_TOLERANCE}")
    assert sweep.compare(stored, fresh) == []
