"""What a student handout adds after each exercise: an answer prompt and, for some exercises, a check.

``posenc_book.handouts.strip`` (``python -m posenc_book handouts``) reads this table. ``WORDS`` holds
each edition's prompts and verdicts; ``CHECKS`` holds, by exercise label without its language suffix, a
check cell's code (the same in every edition) and its sentences in each language. The words and sentences
are messages of posenc_book/locale/<lang>.po (read with :mod:`posenc_book.words`): ``handout.passed``,
``handout.<label>.define``, ``handout.<label>.claim.1`` and so on.

A check tests properties of the student's answer that a right answer must have (a shape, an invariance,
an identity with a chapter's function) and that do not give the answer away. Its ``code`` is the body of
a function that returns one ``(holds, detail)`` pair per sentence of ``claims``: ``detail`` is a measured
value, printed next to its threshold, or "". ``wrong`` is a plausible mistake that the check must reject,
and ``right`` a right answer for a check whose names the chapter's own solution code does not define;
tests/test_handouts.py runs both.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from posenc.words import LANGUAGES
from posenc_book.words import message, messages

# Per language: the answer prompt, the check cell's comment, and what it prints ({name} is the name that
# the student has not defined yet). The words are the messages ``handout.*`` of posenc/locale/<lang>.po.
WORDS = {lang: messages("handout", lang) for lang in LANGUAGES}


@dataclass(frozen=True)
class Check:
    """One exercise's check cell: code shared by the editions, sentences in each language.

    The sentences are messages of posenc/locale/<lang>.po: ``handout.<label>.define``, what to define,
    shown in the answer prompt, and ``handout.<label>.claim.1``, ``.claim.2``, ..., one per pair that
    ``code`` returns.
    """

    label: str  # the exercise's label without its language suffix
    names: tuple[str, ...]  # what the student defines, named in `define` and used by `code`
    code: str  # the body of _check(): returns one (holds, detail) pair per claim
    wrong: str  # a plausible wrong answer that the check must reject
    right: str | None = field(default=None)  # a right answer, if the chapter's solution defines other names

    @property
    def define(self) -> dict[str, str]:
        """Per language: what the student defines."""
        return {lang: message(f"handout.{self.label}.define", lang) for lang in LANGUAGES}

    @property
    def claims(self) -> dict[str, tuple[str, ...]]:
        """Per language: the sentences, in the order of the pairs that ``code`` returns."""
        return {lang: numbered(messages(f"handout.{self.label}.claim", lang)) for lang in LANGUAGES}


def numbered(texts: dict[str, str]) -> tuple[str, ...]:
    """The texts of messages named 1, 2, 3, ... in that order; a missing number is an error."""
    if sorted(texts) != sorted(str(number) for number in range(1, len(texts) + 1)):
        raise ValueError(f"claims must be numbered 1 to {len(texts)}, got {sorted(texts)}")
    return tuple(texts[str(number)] for number in range(1, len(texts) + 1))


_CHECKS = (
    Check(
        label="ex-motivation-3",
        names=("causal_self_attention",),
        code="""\
x = np.random.default_rng(seed=1).normal(size=(5, w_query.shape[0]))
out = causal_self_attention(x)
changed = x.copy()
changed[-1] += 1.0
earlier = float(np.abs(causal_self_attention(changed)[:-1] - out[:-1]).max())
last = float(np.abs(out[-1] - self_attention(x)[-1]).max())
return [
    (out.shape == x.shape, f"{out.shape}"),
    (earlier < 1e-10, f"max |difference| = {earlier:.1e} (< 1e-10)"),
    (last < 1e-10, f"max |difference| = {last:.1e} (< 1e-10)"),
]""",
        wrong="""\
def causal_self_attention(x):
    queries, keys, values = x @ w_query, x @ w_key, x @ w_value
    scores = queries @ keys.T / np.sqrt(queries.shape[-1])
    scores[np.tril_indices(len(x), k=-1)] = -np.inf  # the mask on the wrong side of the diagonal
    return softmax(scores) @ values""",
    ),
    Check(
        label="ex-formula-3",
        names=("best", "distance_all"),
        code="""\
pair_0 = posenc.sinusoidal_encoding(1001, 2)  # the columns (sin p, cos p) for p = 0 ... 1000
distances = np.linalg.norm(pair_0[1:] - pair_0[0], axis=1)  # for the offsets 1 ... 1000 from p = 0
whole = isinstance(best, (int, np.integer)) and 1 <= best <= 1000
table = posenc.sinusoidal_encoding(int(best) + 1, 64)
error = abs(float(distance_all) - float(np.linalg.norm(table[int(best)] - table[0])))
return [
    (whole, f"best = {best}"),
    (whole and distances[best - 1] <= distances.min() + 1e-12, ""),
    (error < 1e-4, f"|distance_all - |PE(best) - PE(0)|| = {error:.1e} (< 1e-4)"),
]""",
        wrong="best, distance_all = 355, 7.3",
    ),
    Check(
        label="ex-numpy-3",
        names=("get_positional_encoding_stacked",),
        code="""\
stacked = get_positional_encoding_stacked(1000, 512)
same_shape = stacked.shape == (1000, 512)
error = float(np.abs(stacked - get_positional_encoding(1000, 512)).max()) if same_shape else float("inf")
return [
    (same_shape, f"{stacked.shape}"),
    (error < 1e-10, f"max |difference| = {error:.1e} (< 1e-10)"),
]""",
        wrong="""\
def get_positional_encoding_stacked(max_seq_len, d_model):
    angles = np.arange(max_seq_len)[:, None] * 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    # stacked on a new first axis, not the last
    return np.stack([np.sin(angles), np.cos(angles)]).reshape(max_seq_len, d_model)""",
    ),
    Check(
        label="ex-pytorch-1",
        names=("CheckedPositionalEncoding",),
        code="""\
def raises_value_error(layer, x):
    try:
        layer(x)
    except ValueError:
        return True
    return False


x = torch.randn(2, 4, 16, generator=torch.Generator().manual_seed(1))
fits = not raises_value_error(CheckedPositionalEncoding(16, max_seq_length=4), x)
same = fits and torch.equal(CheckedPositionalEncoding(16, 4)(x), PositionalEncoding(16, 4)(x))
return [
    (issubclass(CheckedPositionalEncoding, PositionalEncoding), ""),
    (raises_value_error(CheckedPositionalEncoding(16, max_seq_length=1), torch.zeros(2, 6, 16)), ""),
    (fits, ""),
    (same, ""),
]""",
        wrong="""\
class CheckedPositionalEncoding(PositionalEncoding):
    def forward(self, x):
        if x.size(1) >= self.pe.size(1):  # also refuses a sequence exactly as long as the table
            raise ValueError("sequence too long")
        return super().forward(x)""",
    ),
    Check(
        label="ex-rotation-1",
        names=("offset_between",),
        code="""\
rng = np.random.default_rng(seed=1)
p, q = rng.uniform(0, 10_000, size=(2, 200))
estimates = np.array([offset_between(encoding_at(a, 64), encoding_at(b, 64)) for a, b in zip(p, q)], float)
right_side = int((np.sign(estimates) == np.sign(q - p)).sum())
error = float(np.abs(estimates - (q - p)).max())
return [
    (right_side == 200, f"{right_side} / 200"),
    (error < 1e-6, f"max |offset_between - (q - p)| = {error:.1e} (< 1e-6)"),
]""",
        wrong="""\
def offset_between(a, b):
    omega = posenc.frequencies(a.size)[0]  # the fastest pair: its angle wraps around many times
    (sin_a, cos_a), (sin_b, cos_b) = a[:2], b[:2]
    return np.arctan2(cos_a * sin_b - sin_a * cos_b, sin_a * sin_b + cos_a * cos_b) / omega""",
    ),
    Check(
        label="ex-rope-3",
        names=("partial_rope",),
        code="""\
rng = np.random.default_rng(seed=1)
x = rng.normal(size=(6, 64))
turned = partial_rope(x, offset=100)
same_shape = turned.shape == x.shape
moved = float(np.abs(turned[:, :16] - x[:, :16]).max()) if same_shape else 0.0
lengths = np.hypot(turned[:, :8], turned[:, 8:16]) - np.hypot(x[:, :8], x[:, 8:16]) if same_shape else np.inf
length_error = float(np.abs(lengths).max())


def at(vector, position):
    return partial_rope(vector[np.newaxis, :], offset=int(position))[0]


q, k = rng.normal(size=(2, 64))
shifts = rng.integers(0, 4096, size=(50, 3))
shift_error = max(abs(float(at(q, m) @ at(k, n) - at(q, m + s) @ at(k, n + s))) for m, n, s in shifts)
return [
    (same_shape, f"{turned.shape}"),
    (same_shape and np.array_equal(turned[:, 16:], x[:, 16:]), ""),
    (moved > 1e-3, f"max |change| = {moved:.3f} (> 1e-3)"),
    (length_error < 1e-10, f"max |change of length| = {length_error:.1e} (< 1e-10)"),
    (shift_error < 1e-9, f"max |score(m, n) - score(m + s, n + s)| = {shift_error:.1e} (< 1e-9)"),
]""",
        wrong="""\
def partial_rope(x, offset=0):
    return posenc.apply_rope(x, offset=offset, layout="half")  # turns the whole head""",
    ),
    Check(
        label="ex-longctx-1",
        names=("bfloat16_distinct",),
        code="""\
measured = {k: torch.arange(2**k).to(torch.bfloat16).unique().numel() for k in range(9, 21)}
differ = [k for k, count in measured.items() if bfloat16_distinct(k) != count]
return [
    (not differ, f"k = {differ}" if differ else ""),
]""",
        right="""\
def bfloat16_distinct(k):
    return 257 + 128 * (k - 8)""",
        wrong="""\
def bfloat16_distinct(k):
    return 2**8 + 128 * (k - 8)  # forgets that 0 ... 256 are 257 numbers""",
    ),
    Check(
        label="ex-experiment-1",
        names=("order_tokens", "order_swapped"),
        code="""\
rows = order_tokens.shape[0]
same_shape = tuple(order_swapped.shape) == tuple(order_tokens.shape)
first, last = (order_swapped[:, 0], order_swapped[:, -1]) if same_shape else (None, None)
exchanged = same_shape and torch.equal(first, order_tokens[:, -1])
exchanged = exchanged and torch.equal(last, order_tokens[:, 0])
middle = same_shape and torch.equal(order_swapped[:, 1:-1], order_tokens[:, 1:-1])
return [
    (rows == 1000, f"{rows}"),
    (same_shape, f"{tuple(order_swapped.shape)}"),
    (exchanged, ""),
    (middle, ""),
]""",
        right="""\
order_tokens, _ = ex.make_batch("order", np.random.default_rng(5), 1000, 16)
order_swapped = order_tokens.clone()
order_swapped[:, [0, -1]] = order_tokens[:, [-1, 0]]""",
        wrong="order_swapped = order_tokens.flip(dims=[1])  # reverses the whole sequence",
    ),
    Check(
        label="ex-ropetoday-2",
        names=("shard_work",),
        code="""\
cases = [(24, 3), (16, 2), (32, 4)]
works = [tuple(np.asarray(part) for part in shard_work(n, r)) for n, r in cases]
shapes = all(b.shape == (r,) and c.shape == (r,) for (n, r), (b, c) in zip(cases, works))
totals = [(int(b.sum()), int(c.sum()), n * (n + 1) // 2) for (n, r), (b, c) in zip(cases, works)]
whole = shapes and all(b == t and c == t for b, c, t in totals)
even = shapes and all(len(set(b.tolist())) == 1 for b, _ in works)
rising = shapes and all(bool(np.all(np.diff(c) > 0)) for _, c in works)
return [
    (shapes, ""),
    (whole, f"{totals[0][0]} and {totals[0][1]} pairs for 24 positions, of {totals[0][2]}" if shapes else ""),
    (even, ""),
    (rising, ""),
]""",
        wrong="""\
def shard_work(seq_len, ranks):
    # counts the positions a rank holds, not the keys each of its queries sees
    balanced = posenc.load_balanced_positions(seq_len, ranks).sum(axis=1)
    contiguous = np.arange(seq_len).reshape(ranks, -1).sum(axis=1)
    return balanced, contiguous""",
    ),
)
# By label.
CHECKS = {check.label: check for check in _CHECKS}
