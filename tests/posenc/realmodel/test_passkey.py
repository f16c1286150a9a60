"""posenc.realmodel.passkey: the prompt's shape, the bad input it names, and trials of the real model."""

from __future__ import annotations

import pytest
import torch

from posenc.realmodel import load_decoder, load_tokenizer, passkey_ids, passkey_test
from posenc.realmodel.passkey import KEY
from posenc.serving import TinyDecoder

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tokenizer():
    return load_tokenizer()


@pytest.mark.parametrize("length", [256, 1000, 4096])
@pytest.mark.parametrize("depth", [0.0, 0.5, 1.0])
def test_the_prompt_fills_the_length_and_ends_with_the_key(tokenizer, length, depth):
    ids, size = passkey_ids(tokenizer, length, depth)
    assert length - 24 < ids.shape[1] <= length  # 24: the filler's tokens
    assert size == 1 + len(KEY)
    assert tokenizer.decode(ids[0, -size:]) == " " + KEY
    text = tokenizer.decode(ids[0])
    assert text.count(KEY) == 3  # twice in the needle, once as the answer


def test_the_depth_moves_the_needle(tokenizer):
    places = []
    for depth in (0.0, 0.5, 1.0):
        text = tokenizer.decode(passkey_ids(tokenizer, 2048, depth)[0][0])
        places.append(text.index(KEY) / len(text))
    assert places[0] < 0.1 < places[1] < 0.9 < places[2]


@pytest.mark.parametrize(
    ("arguments", "error", "words"),
    [
        ((100, 0.5, KEY), ValueError, "length must be"),
        ((1024, 1.5, KEY), ValueError, "depth must be between 0 and 1"),
        ((1024, 0.5, "12a"), ValueError, "key must be a string of digits"),
    ],
)
def test_bad_input_is_named(tokenizer, arguments, error, words):
    length, depth, key = arguments
    with pytest.raises(error, match=words):
        passkey_ids(tokenizer, length, depth, key=key)


def test_a_model_that_is_not_a_posenc_decoder_is_named(tokenizer):
    with pytest.raises(TypeError, match=r"model must be a posenc\.serving\.TinyDecoder"):
        passkey_test(torch.nn.Linear(2, 2), tokenizer, 512, 0.5)


def test_the_real_model_finds_the_key_inside_its_context(tokenizer):
    torch.manual_seed(0)
    model = load_decoder(max_seq_length=1024)
    result = passkey_test(model, tokenizer, 1024, 0.5)
    assert result.found and result.answer == " " + KEY and result.correct == result.tokens == 6
    assert -1.0 < result.log_prob <= 0


def test_a_random_model_does_not(tokenizer):
    model = TinyDecoder(len(tokenizer), 64, 4, 1, seed=0, max_seq_length=512)
    result = passkey_test(model, tokenizer, 512, 0.5, key="90417")
    assert not result.found and result.log_prob < -20
