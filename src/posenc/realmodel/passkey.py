"""The passkey test: a number hidden in filler text, asked for at the end.

The prompt is the one of Mohtashami and Jaggi (2023, "Landmark Attention", arXiv:2305.16300), which
later long-context papers reuse: an instruction, the same five filler sentences repeated, the key
sentence at a chosen depth, and the question. The model reads the prompt followed by the key, and the
test reads, at each of the key's tokens, the token the model ranks first (teacher forcing): the model
would write the key by greedy decoding exactly when every one of them is right.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from posenc._checks import check_int, check_real
from posenc.serving import TinyDecoder

__all__ = ["KEY", "PasskeyResult", "passkey_ids", "passkey_test"]

KEY = "68213"
"""The hidden number (five digits: SmolLM2's tokenizer writes each digit as one token)."""

_INTRO = (
    "There is an important info hidden inside a lot of irrelevant text. Find it and memorize it. "
    "I will quiz you about the important information there."
)
_FILLER = " The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again."
_QUESTION = " What is the pass key? The pass key is"


@dataclass(frozen=True)
class PasskeyResult:
    """One passkey trial: where the key was, and what the model ranked first at each of its tokens.

    Attributes
    ----------
    length : int
        Tokens in the prompt and the key together.
    depth : float
        Where the key sentence stands in the filler, 0 (start) to 1 (end).
    answer : str
        The model's first-ranked tokens at the key's positions, decoded.
    correct : int
        How many of the key's tokens it ranked first.
    tokens : int
        The key's tokens (a space, then one token per digit).
    log_prob : float
        The log-probability of the whole key, in nats.

    Examples
    --------
    >>> from posenc.realmodel import PasskeyResult
    >>> PasskeyResult(length=4090, depth=0.5, answer=" 68213", correct=6, tokens=6, log_prob=-0.01).found
    True
    """

    length: int
    depth: float
    answer: str
    correct: int
    tokens: int
    log_prob: float

    @property
    def found(self) -> bool:
        """True if greedy decoding would write the key: every one of its tokens ranked first."""
        return self.correct == self.tokens


def passkey_ids(tokenizer, length: int, depth: float, *, key: str = KEY) -> tuple[torch.Tensor, int]:
    """The prompt with the key appended, as close to ``length`` tokens as whole filler sentences allow.

    Parameters
    ----------
    tokenizer : transformers.PreTrainedTokenizerBase
        :func:`~posenc.realmodel.load_tokenizer`'s.
    length : int
        The most tokens, >= 256 (the instruction, the question and the key take about 70).
    depth : float
        Where the key sentence goes among the filler repetitions, 0 <= depth <= 1.
    key : str, default KEY
        Digits only.

    Returns
    -------
    tuple of (torch.Tensor, int)
        The ids, ``(1, n)`` with ``length - 24 < n <= length``, and how many of the last ids are the key.

    Examples
    --------
    >>> from posenc.realmodel import load_tokenizer, passkey_ids
    >>> tokenizer = load_tokenizer()
    >>> ids, size = passkey_ids(tokenizer, 1024, 0.5)
    >>> 1000 < ids.shape[1] <= 1024, size, tokenizer.decode(ids[0, -size:])
    (True, 6, ' 68213')
    """
    length = check_int("length", length, minimum=256)
    depth = check_real("depth", depth)
    if not 0 <= depth <= 1:
        raise ValueError(f"depth must be between 0 and 1, got {depth}")
    if not (isinstance(key, str) and key.isdigit()):
        raise ValueError(f"key must be a string of digits, got {key!r}")
    needle = f" The pass key is {key}. Remember it. {key} is the pass key."
    answer = tokenizer(" " + key).input_ids
    fixed = len(tokenizer(_INTRO + needle + _QUESTION).input_ids) + len(answer)
    repeats = (length - fixed) // len(tokenizer(_FILLER).input_ids)
    before = round(repeats * depth)
    text = _INTRO + _FILLER * before + needle + _FILLER * (repeats - before) + _QUESTION + " " + key
    ids = tokenizer(text, return_tensors="pt").input_ids
    if ids.shape[1] > length or ids[0, -len(answer) :].tolist() != answer:
        raise RuntimeError(f"the tokenizer split the prompt unexpectedly ({ids.shape[1]} ids for {length})")
    return ids, len(answer)


def passkey_test(
    model: TinyDecoder, tokenizer, length: int, depth: float, *, key: str = KEY
) -> PasskeyResult:
    """Run one trial of :func:`passkey_ids`'s prompt through ``model``.

    Parameters
    ----------
    model : TinyDecoder
        E.g. :func:`~posenc.realmodel.load_decoder`'s, with the frequencies to test set.
    tokenizer, length, depth, key
        As in :func:`passkey_ids`.

    Returns
    -------
    PasskeyResult

    Examples
    --------
    SmolLM2 finds the key halfway through 1,024 tokens:

    >>> from posenc.realmodel import load_decoder, load_tokenizer, passkey_test
    >>> result = passkey_test(load_decoder(max_seq_length=1024), load_tokenizer(), 1024, 0.5)
    >>> result.answer, result.found
    (' 68213', True)
    """
    if not isinstance(model, TinyDecoder):
        raise TypeError(f"model must be a posenc.serving.TinyDecoder, got {type(model).__name__}")
    ids, size = passkey_ids(tokenizer, length, depth, key=key)
    with torch.no_grad():
        hidden = model.hidden_states(ids)[0, -size - 1 : -1]
        log_probs = torch.log_softmax(model.lm_head(hidden).double(), dim=-1)
    target = ids[0, -size:]
    ranked = log_probs.argmax(dim=-1)
    return PasskeyResult(
        length=int(ids.shape[1]),
        depth=depth,
        answer=tokenizer.decode(ranked),
        correct=int((ranked == target).sum()),
        tokens=size,
        log_prob=float(log_probs[torch.arange(size), target].sum()),
    )
