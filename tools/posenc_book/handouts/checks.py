"""What a student handout adds after each exercise: an answer prompt and, for some exercises, a check.

``posenc_book.handouts.strip`` (``python -m posenc_book handouts``) reads this module. ``WORDS`` holds
each edition's prompts and verdicts; ``CHECKS`` holds, by exercise label without its language suffix, a
check function (the same in every edition) and its sentences in each language. The words and sentences
are messages of posenc_book/locale/<lang>.po (read with :mod:`posenc_book.words`): ``handout.passed``,
``handout.<label>.define``, ``handout.<label>.claim.1`` and so on.

A check tests properties of the student's answer that a right answer must have (a shape, an invariance,
an identity with a chapter's function) and that do not give the answer away. It is a function of this
module, linted like any code, whose source ``strip`` copies into the handout's check cell with
:func:`inspect.getsource`. So that the cell runs where only ``posenc`` is installed (Colab, Binder), a
check uses nothing but its arguments, the builtins and what it imports itself:

- its positional parameters are the names the student defines (``Check.names``);
- its keyword-only parameters are the chapter's names it needs (``w_query``, ``PositionalEncoding``);
- it returns one ``(holds, detail)`` pair per sentence of ``claims``, in a list literal: ``detail`` is a
  measured value, printed next to its threshold, or "".

Each check comes with a plausible wrong answer that it must reject and, when the chapter's solution code
does not define the student's names, a right answer; tests/book/test_handouts.py runs both in the
handout's kernel. An answer is a function of the chapter's names (its parameters, like a check's) that
returns the student's definitions by name, so that it too is linted here and runs in the kernel.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

from posenc.words import LANGUAGES
from posenc_book.words import message, messages

# Per language: the answer prompt, the check cell's comment, and what it prints ({name} is the name that
# the student has not defined yet). The words are the messages ``handout.*`` of posenc/locale/<lang>.po.
WORDS = {lang: messages("handout", lang) for lang in LANGUAGES}


@dataclass(frozen=True)
class Check:
    """One exercise's check: a function shared by the editions, sentences in each language.

    The sentences are messages of posenc/locale/<lang>.po: ``handout.<label>.define``, what to define,
    shown in the answer prompt, and ``handout.<label>.claim.1``, ``.claim.2``, ..., one per pair that
    ``check`` returns.
    """

    label: str  # the exercise's label without its language suffix
    check: Callable[..., list[tuple[bool, str]]]  # the student's names, then the chapter's -> the pairs
    wrong: Callable[..., dict[str, object]]  # a plausible wrong answer that the check must reject
    right: Callable[..., dict[str, object]] | None = None  # a right answer, if the solution has none

    @property
    def names(self) -> tuple[str, ...]:
        """What the student defines: the check's positional parameters."""
        return tuple(
            name
            for name, parameter in inspect.signature(self.check).parameters.items()
            if parameter.kind is parameter.POSITIONAL_OR_KEYWORD
        )

    @property
    def define(self) -> dict[str, str]:
        """Per language: what the student defines."""
        return {lang: message(f"handout.{self.label}.define", lang) for lang in LANGUAGES}

    @property
    def claims(self) -> dict[str, tuple[str, ...]]:
        """Per language: the sentences, in the order of the pairs that ``check`` returns."""
        return {lang: numbered(messages(f"handout.{self.label}.claim", lang)) for lang in LANGUAGES}


def numbered(texts: dict[str, str]) -> tuple[str, ...]:
    """The texts of messages named 1, 2, 3, ... in that order; a missing number is an error."""
    if sorted(texts) != sorted(str(number) for number in range(1, len(texts) + 1)):
        raise ValueError(f"claims must be numbered 1 to {len(texts)}, got {sorted(texts)}")
    return tuple(texts[str(number)] for number in range(1, len(texts) + 1))


def call(function: Callable) -> str:
    """The code that calls ``function`` with the notebook's names of its parameters.

    ``check_motivation(causal_self_attention, *, self_attention, w_query)`` ->
    ``check_motivation(causal_self_attention, self_attention=self_attention, w_query=w_query)``.
    """
    arguments = [
        name if parameter.kind is parameter.POSITIONAL_OR_KEYWORD else f"{name}={name}"
        for name, parameter in inspect.signature(function).parameters.items()
    ]
    return f"{function.__name__}({', '.join(arguments)})"


def function_source(function: Callable) -> str:
    """The source of a function of this module, as a cell runs it: unindented, without a trailing newline."""
    return inspect.getsource(function).rstrip()


# --- The checks, with their wrong and right answers, chapter by chapter --------------------------------


# 01 Motivation: a causal mask keeps each position from seeing the ones after it.
def check_causal_self_attention(causal_self_attention, *, self_attention, w_query):
    import numpy as np

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
    ]


def wrong_causal_self_attention(*, w_query, w_key, w_value, softmax):
    import numpy as np

    def causal_self_attention(x):
        queries, keys, values = x @ w_query, x @ w_key, x @ w_value
        scores = queries @ keys.T / np.sqrt(queries.shape[-1])
        scores[np.tril_indices(len(x), k=-1)] = -np.inf  # the mask on the wrong side of the diagonal
        return softmax(scores) @ values

    return {"causal_self_attention": causal_self_attention}


# 01 Motivation: a bag of words, the same for every order of the same words.
def check_bag_of_words(bag_of_words, *, vocab):
    import numpy as np

    words = list(vocab)
    forward = np.asarray(bag_of_words(words))
    backward = np.asarray(bag_of_words(words[::-1]))
    repeated = np.asarray(bag_of_words([words[0], words[0], *words]))
    expected = np.ones(len(vocab), dtype=int)
    expected[vocab[words[0]]] = 3
    same = forward.shape == backward.shape and bool(np.array_equal(forward, backward))
    counted = repeated.shape == expected.shape and bool(np.array_equal(repeated, expected))
    return [
        (same, f"{forward} / {backward}"),
        (counted, f"{repeated}"),
    ]


def wrong_bag_of_words(*, vocab):
    import numpy as np

    def bag_of_words(words):
        return np.array([vocab[word] for word in words])  # the ids in order, not their counts

    return {"bag_of_words": bag_of_words}


# 02 Formula: the offset whose encoding comes back closest to position 0's, and its distance in 64 dims.
def check_closest_return(best, distance_all):
    import numpy as np

    import posenc

    pair_0 = posenc.sinusoidal_encoding(1001, 2)  # the columns (sin p, cos p) for p = 0 ... 1000
    distances = np.linalg.norm(pair_0[1:] - pair_0[0], axis=1)  # for the offsets 1 ... 1000 from p = 0
    whole = isinstance(best, (int, np.integer)) and 1 <= best <= 1000
    table = posenc.sinusoidal_encoding(int(best) + 1, 64)
    error = abs(float(distance_all) - float(np.linalg.norm(table[int(best)] - table[0])))
    return [
        (whole, f"best = {best}"),
        (whole and distances[best - 1] <= distances.min() + 1e-12, ""),
        (error < 1e-4, f"|distance_all - |PE(best) - PE(0)|| = {error:.1e} (< 1e-4)"),
    ]


def wrong_closest_return():
    return {"best": 355, "distance_all": 7.3}


# 02 Formula: a column's wavelength read from its values, as the spacing of its upward zero crossings.
def check_measured_wavelength(measured_wavelength):
    import numpy as np

    pos = np.arange(2000)
    fast = float(measured_wavelength(np.sin(pos)))  # wavelength 2π
    slow = float(measured_wavelength(np.cos(2 * np.pi * pos / 50)))  # wavelength 50
    return [
        (abs(fast / (2 * np.pi) - 1) < 0.01, f"{fast:.2f} (2π = 6.28)"),
        (abs(slow / 50 - 1) < 0.01, f"{slow:.2f} (50)"),
    ]


def wrong_measured_wavelength():
    import numpy as np

    def measured_wavelength(column):
        # every sign change, up and down: half a wavelength apart
        changes = np.flatnonzero(np.diff(np.sign(column)) != 0)
        return (changes[-1] - changes[0]) / (len(changes) - 1)

    return {"measured_wavelength": measured_wavelength}


# 03 NumPy: the encoding built with np.stack instead of strided assignments.
def check_stacked_encoding(get_positional_encoding_stacked, *, get_positional_encoding):
    import numpy as np

    stacked = get_positional_encoding_stacked(1000, 512)
    same_shape = stacked.shape == (1000, 512)
    error = float(np.abs(stacked - get_positional_encoding(1000, 512)).max()) if same_shape else float("inf")
    return [
        (same_shape, f"{stacked.shape}"),
        (error < 1e-10, f"max |difference| = {error:.1e} (< 1e-10)"),
    ]


def wrong_stacked_encoding():
    import numpy as np

    def get_positional_encoding_stacked(max_seq_len, d_model):
        angles = np.arange(max_seq_len)[:, None] * 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
        # stacked on a new first axis, not the last
        return np.stack([np.sin(angles), np.cos(angles)]).reshape(max_seq_len, d_model)

    return {"get_positional_encoding_stacked": get_positional_encoding_stacked}


# 03 NumPy: the tutorial's function with its two bugs fixed (a table of floats, the exponents 2i).
def check_fixed_encoding(get_positional_encoding_fixed):
    import numpy as np

    import posenc

    table = np.asarray(get_positional_encoding_fixed(1000, 512))
    same_shape = table.shape == (1000, 512)
    pairs = float(np.abs(table[:, 0::2] ** 2 + table[:, 1::2] ** 2 - 1).max()) if same_shape else float("inf")
    error = float(np.abs(table - posenc.sinusoidal_encoding(1000, 512)).max()) if same_shape else float("inf")
    return [
        (same_shape, f"{table.shape}"),
        (pairs < 1e-10, f"max |sin^2 + cos^2 - 1| = {pairs:.1e} (< 1e-10)"),
        (error < 1e-10, f"max |difference| = {error:.1e} (< 1e-10)"),
    ]


def wrong_fixed_encoding():
    import numpy as np

    def get_positional_encoding_fixed(max_seq_len, d_model):
        # only the first bug fixed: a table of floats, but the exponents i instead of 2i
        position = np.arange(max_seq_len).reshape(-1, 1)
        pe = np.zeros((max_seq_len, d_model))
        div_term = np.exp(np.arange(d_model // 2) * -(np.log(10000.0) / d_model))
        pe[:, 0::2] = np.sin(position * div_term)
        pe[:, 1::2] = np.cos(position * div_term)
        return pe

    return {"get_positional_encoding_fixed": get_positional_encoding_fixed}


# 04 PyTorch: a layer that refuses a sequence longer than its table, and otherwise adds the same encoding.
def check_checked_layer(CheckedPositionalEncoding, *, PositionalEncoding):
    import torch

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
    ]


def wrong_checked_layer(*, PositionalEncoding):
    class CheckedPositionalEncoding(PositionalEncoding):
        def forward(self, x):
            if x.size(1) >= self.pe.size(1):  # also refuses a sequence exactly as long as the table
                raise ValueError("sequence too long")
            return super().forward(x)

    return {"CheckedPositionalEncoding": CheckedPositionalEncoding}


# 04 PyTorch: how much longer scaled token vectors start than positional ones, and the std that balances them.
def check_balanced_std(scaled_ratio, balanced_std):
    import math

    import torch

    def measured(std, d_model):
        generator = torch.Generator().manual_seed(3)
        rows = torch.randn(4000, d_model, generator=generator, dtype=torch.float64) * std
        return float(rows.norm(dim=1).mean()) * math.sqrt(d_model) / math.sqrt(d_model / 2)

    cases = [(1.0, 512), (512**-0.5, 512), (1.0, 64), (0.05, 1024)]
    ratio_error = max(abs(float(scaled_ratio(std, width)) / measured(std, width) - 1) for std, width in cases)
    balanced = [measured(float(balanced_std(width)), width) for width in (64, 512, 1024)]
    balance_error = max(abs(ratio - 1) for ratio in balanced)
    return [
        (ratio_error < 0.02, f"max relative difference = {ratio_error:.3f} (< 0.02)"),
        (balance_error < 0.02, "ratios " + ", ".join(f"{ratio:.3f}" for ratio in balanced)),
    ]


def wrong_balanced_std():
    def scaled_ratio(std, d_model):
        return std * (2 * d_model) ** 0.5  # right: the wrong answer is the std below

    def balanced_std(d_model):
        return d_model**-0.5  # fairseq's choice: the token vectors start 1.41 times longer

    return {"scaled_ratio": scaled_ratio, "balanced_std": balanced_std}


# 05 Rotation: the offset p' - p read back from the encodings of p and p'.
def check_offset_between(offset_between, *, encoding_at):
    import numpy as np

    rng = np.random.default_rng(seed=1)
    p, p_prime = rng.uniform(0, 10_000, size=(2, 200))
    pairs = zip(p, p_prime, strict=True)
    estimates = np.array([offset_between(encoding_at(a, 64), encoding_at(b, 64)) for a, b in pairs], float)
    right_side = int((np.sign(estimates) == np.sign(p_prime - p)).sum())
    error = float(np.abs(estimates - (p_prime - p)).max())
    return [
        (right_side == 200, f"{right_side} / 200"),
        (error < 1e-6, f"max |offset_between - (p' - p)| = {error:.1e} (< 1e-6)"),
    ]


def wrong_offset_between():
    import numpy as np

    import posenc

    def offset_between(a, b):
        omega = posenc.frequencies(a.size)[0]  # the fastest pair: its angle wraps around many times
        (sin_a, cos_a), (sin_b, cos_b) = a[:2], b[:2]
        return np.arctan2(cos_a * sin_b - sin_a * cos_b, sin_a * sin_b + cos_a * cos_b) / omega

    return {"offset_between": offset_between}


# 05 Rotation: the matrix that shifts a pair stored cosine first, (cos, sin), by Δ positions.
def check_shift_matrix(shift_matrix):
    import numpy as np

    rng = np.random.default_rng(seed=1)
    positions, offsets = rng.uniform(0, 5000, size=200), rng.uniform(-200, 200, size=200)
    offsets[::2] = np.round(offsets[::2])  # half of them whole numbers
    omegas = rng.choice(10000.0 ** (-np.arange(32) / 32), size=200)
    samples = list(zip(positions, offsets, omegas, strict=True))
    shapes = all(np.shape(shift_matrix(delta, omega)) == (2, 2) for _, delta, omega in samples)

    def pair(position, omega):
        return np.array([np.cos(position * omega), np.sin(position * omega)])

    def miss(p, delta, omega):
        return float(
            np.abs(np.asarray(shift_matrix(delta, omega)) @ pair(p, omega) - pair(p + delta, omega)).max()
        )

    error = max(miss(*sample) for sample in samples) if shapes else float("inf")
    return [
        (shapes, ""),
        (error < 1e-9, f"max |shift_matrix(Δ, ω) pair(pos) - pair(pos + Δ)| = {error:.1e} (< 1e-9)"),
    ]


def wrong_shift_matrix(*, pair_matrix):
    return {"shift_matrix": pair_matrix}  # the chapter's M(Δ), made for pairs stored sine first


# 06 RoPE: rotary embedding on the first 16 dimensions of a head only.
def check_partial_rope(partial_rope):
    import numpy as np

    rng = np.random.default_rng(seed=1)
    x = rng.normal(size=(6, 64))
    turned = partial_rope(x, offset=100)
    same_shape = turned.shape == x.shape
    moved = float(np.abs(turned[:, :16] - x[:, :16]).max()) if same_shape else 0.0
    lengths = (
        np.hypot(turned[:, :8], turned[:, 8:16]) - np.hypot(x[:, :8], x[:, 8:16]) if same_shape else np.inf
    )
    length_error = float(np.abs(lengths).max())

    def at(vector, position):
        return partial_rope(vector[np.newaxis, :], offset=int(position))[0]

    q, k = rng.normal(size=(2, 64))
    shifts = rng.integers(0, 4096, size=(50, 3))
    shift_error = max(abs(float(at(q, m) @ at(k, n) - at(q, m + a) @ at(k, n + a))) for m, n, a in shifts)
    return [
        (same_shape, f"{turned.shape}"),
        (same_shape and np.array_equal(turned[:, 16:], x[:, 16:]), ""),
        (moved > 1e-3, f"max |change| = {moved:.3f} (> 1e-3)"),
        (length_error < 1e-10, f"max |change of length| = {length_error:.1e} (< 1e-10)"),
        (shift_error < 1e-9, f"max |score(m, n) - score(m + a, n + a)| = {shift_error:.1e} (< 1e-9)"),
    ]


def wrong_partial_rope():
    import posenc

    def partial_rope(x, offset=0):
        return posenc.apply_rope(x, offset=offset, layout="half")  # turns the whole head

    return {"partial_rope": partial_rope}


# 06 RoPE: a token's position in a left-padded batch is its index in its own sequence.
def check_positions_from_mask(positions_from_mask):
    import numpy as np

    mask = np.array([[1, 1, 1, 1, 1, 1], [0, 0, 1, 1, 1, 1], [0, 0, 0, 0, 0, 1]])
    positions = np.asarray(positions_from_mask(mask))
    same_shape = positions.shape == mask.shape
    # what the pads get does not matter: the mask hides them
    tokens = [positions[row][mask[row] == 1].tolist() for row in range(len(mask))] if same_shape else []
    expected = [list(range(int(row.sum()))) for row in mask]
    return [
        (same_shape, f"{positions.shape}"),
        (tokens == expected, f"{tokens}"),
    ]


def wrong_positions_from_mask():
    import numpy as np

    def positions_from_mask(mask):
        mask = np.asarray(mask)
        return np.broadcast_to(np.arange(mask.shape[-1]), mask.shape)  # the row's index: pads counted

    return {"positions_from_mask": positions_from_mask}


# 06 RoPE: the solution f(x, m) of the functional equation, for complex pairs.
def check_relative_rotation(relative_rotation):
    import numpy as np

    rng = np.random.default_rng(seed=2)
    z = rng.normal(size=4) + 1j * rng.normal(size=4)
    w = rng.normal(size=4) + 1j * rng.normal(size=4)
    omega = 0.1
    turned = np.asarray(relative_rotation(z, 7, omega))
    same_shape = turned.shape == z.shape
    start_error = float(np.abs(np.asarray(relative_rotation(z, 0, omega)) - z).max())
    length_error = float(np.abs(np.abs(turned) - np.abs(z)).max()) if same_shape else np.inf
    step = np.angle(np.asarray(relative_rotation(z, 8, omega)) / turned) if same_shape else np.inf
    step_error = float(np.abs(step - omega).max())

    def product(m, n):
        return np.asarray(relative_rotation(z, m, omega)) * np.conj(relative_rotation(w, n, omega))

    shifts = rng.integers(0, 100, size=(50, 3))
    shift_error = max(float(np.abs(product(m, n) - product(m + a, n + a)).max()) for m, n, a in shifts)
    return [
        (same_shape, f"{turned.shape}"),
        (start_error < 1e-12, f"max |f(z, 0) - z| = {start_error:.1e} (< 1e-12)"),
        (length_error < 1e-12, f"max ||f(z, 7)| - |z|| = {length_error:.1e} (< 1e-12)"),
        (step_error < 1e-9, f"max |angle step - omega| = {step_error:.1e} (< 1e-9)"),
        (shift_error < 1e-9, f"max |change of f(z, m) conj f(w, n)| = {shift_error:.1e} (< 1e-9)"),
    ]


def wrong_relative_rotation():
    import numpy as np

    def relative_rotation(z, m, omega):
        return z * np.exp(1j * m**2 * omega)  # an angle that is not proportional to m

    return {"relative_rotation": relative_rotation}


# 07 Long context: how many distinct positions bfloat16 keeps among 0 ... 2**κ - 1.
def check_bfloat16_distinct(bfloat16_distinct):
    import torch

    measured = {kappa: torch.arange(2**kappa).to(torch.bfloat16).unique().numel() for kappa in range(9, 21)}
    differ = [kappa for kappa, count in measured.items() if bfloat16_distinct(kappa) != count]
    return [
        (not differ, f"κ = {differ}" if differ else ""),
    ]


def right_bfloat16_distinct():
    def bfloat16_distinct(kappa):
        return 257 + 128 * (kappa - 8)

    return {"bfloat16_distinct": bfloat16_distinct}


def wrong_bfloat16_distinct():
    def bfloat16_distinct(kappa):
        return 2**8 + 128 * (kappa - 8)  # forgets that 0 ... 256 are 257 numbers

    return {"bfloat16_distinct": bfloat16_distinct}


# 07 Long context: float32 cos and sin tables that stay at float32 rounding at long positions.
def check_accurate_tables(accurate_tables):
    import numpy as np
    import torch

    import posenc

    cases = [(2**20, 10_000.0), (131_072, 500_000.0)]
    shapes, float32, worst = True, True, 0.0
    for top, base in cases:
        positions = torch.arange(top - 256, top)
        cos, sin = accurate_tables(positions, 128, base)
        shapes = shapes and tuple(cos.shape) == tuple(sin.shape) == (256, 64)
        float32 = float32 and all(str(t.dtype).endswith("float32") for t in (cos, sin))
        if shapes:
            angles = np.outer(positions.numpy().astype(np.float64), posenc.frequencies(128, base))
            for table, exact in ((cos, np.cos(angles)), (sin, np.sin(angles))):
                worst = max(worst, float(np.abs(np.asarray(table, dtype=np.float64) - exact).max()))
    return [
        (shapes, ""),
        (float32, ""),
        (shapes and worst < 1e-6, f"{worst:.1e}" if shapes else ""),
    ]


def wrong_accurate_tables():
    import torch

    def accurate_tables(positions, dim, base):
        exponents = torch.arange(0, dim, 2, dtype=torch.int64).float() / dim
        angles = positions.float()[:, None] / base**exponents  # float32 angles: the bug, not a fix
        return angles.cos(), angles.sin()

    return {"accurate_tables": accurate_tables}


# 08 Experiment: the order task's batch, with its first and last tokens exchanged.
def check_swapped_order(order_tokens, order_swapped):
    import torch

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
    ]


def right_swapped_order(*, ex):
    import numpy as np

    order_tokens, _ = ex.make_batch("order", np.random.default_rng(5), 1000, 16)
    order_swapped = order_tokens.clone()
    order_swapped[:, [0, -1]] = order_tokens[:, [-1, 0]]
    return {"order_tokens": order_tokens, "order_swapped": order_swapped}


def wrong_swapped_order(*, order_tokens):
    return {"order_swapped": order_tokens.flip(dims=[1])}  # reverses the whole sequence


# 08 Experiment: which variants start alike, and which add a bias besides the causal mask.
def check_variant_lines(same_start, bias_beyond_mask, *, ex):
    import torch

    def start(position):
        torch.manual_seed(0)
        return ex.TinyTransformer(16, position=position)

    none = dict(start("none").named_parameters())
    alike = set()
    for position in ex.POSITIONS:
        own = dict(start(position).named_parameters())
        if own.keys() == none.keys() and all(torch.equal(own[name], none[name]) for name in none):
            alike.add(position)
    mask = start("nope").attention_bias(4)
    biased = {p for p in ex.POSITIONS if p != "none" and not torch.equal(start(p).attention_bias(4), mask)}
    return [
        (set(same_start) == alike, ""),
        (set(bias_beyond_mask) == biased, ""),
    ]


def wrong_variant_lines():
    # counts RoPE's rotation as trained numbers, and its rotation as a bias
    same_start = {"none", "nope", "sinusoidal", "alibi"}
    return {"same_start": same_start, "bias_beyond_mask": {"rope", "alibi"}}


# 09 RoPE today: the pairs of attention each rank computes, balanced and contiguous.
def check_shard_work(shard_work):
    import numpy as np

    cases = [(24, 3), (16, 2), (32, 4)]
    works = [tuple(np.asarray(part) for part in shard_work(n, r)) for n, r in cases]
    shapes = all(b.shape == (r,) and c.shape == (r,) for (n, r), (b, c) in zip(cases, works, strict=True))
    totals = [
        (int(b.sum()), int(c.sum()), n * (n + 1) // 2) for (n, r), (b, c) in zip(cases, works, strict=True)
    ]
    whole = shapes and all(b == t and c == t for b, c, t in totals)
    even = shapes and all(len(set(b.tolist())) == 1 for b, _ in works)
    rising = shapes and all(bool(np.all(np.diff(c) > 0)) for _, c in works)
    first = f"{totals[0][0]} and {totals[0][1]} pairs for 24 positions, of {totals[0][2]}" if shapes else ""
    return [
        (shapes, ""),
        (whole, first),
        (even, ""),
        (rising, ""),
    ]


def wrong_shard_work():
    import numpy as np

    import posenc

    def shard_work(seq_len, ranks):
        # counts the positions a rank holds, not the keys each of its queries sees
        balanced = posenc.load_balanced_positions(seq_len, ranks).sum(axis=1)
        contiguous = np.arange(seq_len).reshape(ranks, -1).sum(axis=1)
        return balanced, contiguous

    return {"shard_work": shard_work}


# 09 RoPE today: each token's position from a left-padded batch's attention mask.
def check_mask_positions(mask_positions):
    import numpy as np

    rng = np.random.default_rng(seed=9)
    masks = [np.array([[0, 0, 0, 1, 1], [1, 1, 1, 1, 1], [0, 0, 0, 0, 1]])]
    for rows, width in ((2, 4), (3, 7), (4, 9), (1, 6)):
        pads = rng.integers(0, width, size=rows)  # every row keeps at least one token
        masks.append((np.arange(width)[None, :] >= pads[:, None]).astype(int))
    found = [np.asarray(mask_positions(mask)) for mask in masks]
    shaped = all(got.shape == mask.shape for got, mask in zip(found, masks, strict=True))
    numbered = shaped and all(
        np.array_equal(got[mask == 1], np.concatenate([np.arange(n) for n in mask.sum(axis=1)]))
        for got, mask in zip(found, masks, strict=True)
    )
    padded = shaped and all(np.all(got[mask == 0] == 0) for got, mask in zip(found, masks, strict=True))
    first = str(found[0].tolist()) if shaped else ""
    return [
        (shaped, ""),
        (numbered, first),
        (padded, ""),
    ]


def wrong_mask_positions():
    import numpy as np

    def mask_positions(mask):
        # the cache length: every row numbered from its first column, pads included
        mask = np.asarray(mask)
        return np.broadcast_to(np.arange(mask.shape[1]), mask.shape) * mask

    return {"mask_positions": mask_positions}


# 10 Inside a real model: pairs that turn within a length, the previous token's weight, llama3's bands.
def check_pairs_turning(pairs_turning):
    import math

    cases = [(64, 100_000.0, 8192), (128, 10_000.0, 4096), (8, 10_000.0, 16), (64, 1000.0, 8192)]
    counts = [pairs_turning(d, base, length) for d, base, length in cases]
    whole = all(isinstance(n, int) or getattr(n, "is_integer", lambda: False)() for n in counts)
    # A pair turns fully within the length when length * omega_i >= 2 pi, omega_i = base ** (-2 i / d).
    expected = [
        sum(length * base ** (-2 * i / d) >= 2 * math.pi for i in range(d // 2)) for d, base, length in cases
    ]
    right = counts == expected
    monotone = pairs_turning(64, 100_000.0, 16_384) >= counts[0] >= pairs_turning(64, 1e6, 8192)
    return [
        (whole, ""),
        (right, f"{counts[0]} of 32 pairs for SmolLM2"),
        (monotone, ""),
    ]


def wrong_pairs_turning():
    import posenc

    def pairs_turning(head_dim, base, length):
        # compares 1 / omega_i, not the wavelength 2 pi / omega_i, with the length
        return int((1 / posenc.frequencies(head_dim, base) <= length).sum())

    return {"pairs_turning": pairs_turning}


def check_previous_token_share(previous_token_share):
    import numpy as np
    import torch

    seq = 12
    previous = torch.diag(torch.ones(seq - 1), -1)
    previous[0, 0] = 1.0
    spread = torch.ones(seq, seq).tril() / torch.arange(1, seq + 1)[:, None]
    diagonal = torch.eye(seq)
    found = np.asarray(previous_token_share(torch.stack([previous, spread, diagonal])), dtype=float)
    shaped = found.shape == (3,)
    expected = [1.0, float(np.mean(1 / np.arange(2, seq + 1))), 0.0]
    right = shaped and bool(np.allclose(found, expected))
    return [
        (shaped, ""),
        (right, f"{found.round(3).tolist()}" if shaped else ""),
    ]


def wrong_previous_token_share():
    import torch

    def previous_token_share(weights):
        # the weight on the query's own position, not on the one before it
        return torch.diagonal(weights, dim1=1, dim2=2).double().mean(dim=1).numpy()

    return {"previous_token_share": previous_token_share}


def check_llama3_bands(llama3_bands):
    import numpy as np

    import posenc

    cases = [(64, 100_000.0, 8192), (8, 10_000.0, 16), (128, 500_000.0, 8192)]
    found = [np.asarray(llama3_bands(d, base, length)).tolist() for d, base, length in cases]
    shaped = all(len(bands) == d // 2 for bands, (d, _base, _length) in zip(found, cases, strict=True))
    # The bands as posenc scales the frequencies (low_freq_factor 1, high_freq_factor 4).
    factor = 2.0
    expected = []
    for d, base, length in cases:
        ratio = posenc.scaled_frequencies(d, factor, method="llama3", base=base, original_max_position=length)
        ratio = ratio / posenc.frequencies(d, base)
        divided = np.isclose(ratio, 1 / factor)
        bands = np.where(np.isclose(ratio, 1), "keep", np.where(divided, "divide", "blend"))
        expected.append(bands.tolist())
    right = shaped and found == expected
    counts = {band: found[0].count(band) for band in ("keep", "blend", "divide")} if shaped else {}
    return [
        (shaped, ""),
        (right, f"SmolLM2: {counts}" if shaped else ""),
    ]


def wrong_llama3_bands():
    import numpy as np

    import posenc

    def llama3_bands(head_dim, base, length):
        # compares 1 / omega_i, not the wavelength 2 pi / omega_i, with the thresholds
        period = 1 / posenc.frequencies(head_dim, base)
        return np.where(period < length / 4, "keep", np.where(period > length, "divide", "blend"))

    return {"llama3_bands": llama3_bands}


def check_interleave_rows(interleave_rows):
    import numpy as np

    eight = np.asarray(interleave_rows(8)).tolist()
    orders = {d: np.asarray(interleave_rows(d)) for d in (2, 8, 64)}
    permutation = all(sorted(order.tolist()) == list(range(d)) for d, order in orders.items())
    # Row 2i holds the half layout's row i and row 2i + 1 its row i + d/2.
    pairs = all(
        order[0::2].tolist() == list(range(d // 2)) and order[1::2].tolist() == list(range(d // 2, d))
        for d, order in orders.items()
    )
    return [
        (permutation, ""),
        (pairs, f"{eight}"),
    ]


def wrong_interleave_rows():
    import numpy as np

    def interleave_rows(head_dim):
        # the inverse order: where each half-layout row goes, not which row each file row holds
        return np.argsort(
            np.stack([np.arange(head_dim // 2), np.arange(head_dim // 2) + head_dim // 2], 1).ravel()
        )

    return {"interleave_rows": interleave_rows}


_CHECKS = (
    Check("ex-motivation-3", check_causal_self_attention, wrong=wrong_causal_self_attention),
    Check("ex-motivation-4", check_bag_of_words, wrong=wrong_bag_of_words),
    Check("ex-formula-3", check_closest_return, wrong=wrong_closest_return),
    Check("ex-formula-4", check_measured_wavelength, wrong=wrong_measured_wavelength),
    Check("ex-numpy-3", check_stacked_encoding, wrong=wrong_stacked_encoding),
    Check("ex-numpy-4", check_fixed_encoding, wrong=wrong_fixed_encoding),
    Check("ex-pytorch-1", check_checked_layer, wrong=wrong_checked_layer),
    Check("ex-pytorch-4", check_balanced_std, wrong=wrong_balanced_std),
    Check("ex-rotation-1", check_offset_between, wrong=wrong_offset_between),
    Check("ex-rotation-4", check_shift_matrix, wrong=wrong_shift_matrix),
    Check("ex-rope-3", check_partial_rope, wrong=wrong_partial_rope),
    Check("ex-rope-4", check_positions_from_mask, wrong=wrong_positions_from_mask),
    Check("ex-rope-5", check_relative_rotation, wrong=wrong_relative_rotation),
    Check(
        "ex-longctx-1", check_bfloat16_distinct, wrong=wrong_bfloat16_distinct, right=right_bfloat16_distinct
    ),
    Check("ex-longctx-4", check_accurate_tables, wrong=wrong_accurate_tables),
    Check("ex-experiment-1", check_swapped_order, wrong=wrong_swapped_order, right=right_swapped_order),
    Check("ex-experiment-4", check_variant_lines, wrong=wrong_variant_lines),
    Check("ex-ropetoday-2", check_shard_work, wrong=wrong_shard_work),
    Check("ex-ropetoday-4", check_mask_positions, wrong=wrong_mask_positions),
    Check("ex-realmodel-1", check_pairs_turning, wrong=wrong_pairs_turning),
    Check("ex-realmodel-2", check_previous_token_share, wrong=wrong_previous_token_share),
    Check("ex-realmodel-3", check_llama3_bands, wrong=wrong_llama3_bands),
    Check("ex-realmodel-4", check_interleave_rows, wrong=wrong_interleave_rows),
)
# By label.
CHECKS = {check.label: check for check in _CHECKS}
