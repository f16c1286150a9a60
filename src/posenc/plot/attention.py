"""Chapter 1's figure of self-attention's outputs, labelled in English, Indonesian or Korean.

Every function returns a ``matplotlib.figure.Figure`` that is already
closed in pyplot, so a notebook shows it exactly once: as the cell's value.
The notebooks call them through :mod:`posenc.plot`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from posenc.plot._style import check_lang, finish
from posenc.words import messages

__all__ = ["swapped_outputs"]


def _matrix(name: str, value) -> np.ndarray:
    """``value`` as a 2-D float array with at least one row and one column, or an error naming ``name``."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be a 2-D array of numbers, got {type(value).__name__}") from error
    if array.ndim != 2 or 0 in array.shape:
        raise ValueError(f"{name} must be a non-empty 2-D array (one row per token), got shape {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must hold finite numbers only")
    return array


def swapped_outputs(first, second, tokens, *, lang: str = "en"):
    """Two sentences' attention outputs side by side, an arrow joining each word's two rows.

    Chapter 1's figure of permutation equivariance: the second sentence holds
    the first one's words in another order, and each word's output row moves
    with the word. Both heatmaps share one colour scale, symmetric about 0
    (red positive, blue negative).

    Parameters
    ----------
    first, second : array_like, shape (n_tokens, d)
        The outputs of the two sentences, one row per token.
    tokens : pair of sequences of str
        The two sentences' words, ``n_tokens`` each; the second holds the
        first one's words, each once, in another order. They title the two
        panels and label their rows.
    lang : {"en", "id", "ko"}, default "en"
        Language of the axis labels.

    Returns
    -------
    matplotlib.figure.Figure
        Three axes: the first sentence's outputs, the arrows, the second's.

    Raises
    ------
    TypeError
        If ``first`` or ``second`` is not an array of numbers.
    ValueError
        If ``lang`` is not one of the languages, if the outputs are not two
        finite 2-D arrays of one shape, or if ``tokens`` is not two lists of
        the same distinct words, one per row.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc.plot.attention import swapped_outputs
    >>> out = np.arange(6.0).reshape(3, 2)
    >>> fig = swapped_outputs(out, out[[2, 1, 0]], [["a", "b", "c"], ["c", "b", "a"]])
    >>> [ax.get_title() for ax in fig.axes]  # each sentence titles its panel; the arrows sit between
    ['a b c', '', 'c b a']
    >>> fig.axes[0].get_xlabel()
    'output dimension'
    >>> len(fig.axes[1].texts)  # one arrow per word
    3
    """
    check_lang(lang)
    text = messages("plot.figures", lang)
    first, second = _matrix("first", first), _matrix("second", second)
    if first.shape != second.shape:
        raise ValueError(f"first and second must have one shape, got {first.shape} and {second.shape}")
    if isinstance(tokens, str) or len(tokens) != 2:
        raise ValueError(f"tokens must be a pair of word lists, one per sentence, got {tokens!r}")
    words = [list(sentence) for sentence in tokens]
    rows = first.shape[0]
    if any(len(sentence) != rows for sentence in words):
        raise ValueError(
            f"tokens must hold {rows} words per sentence, one per row of the outputs, "
            f"got {[len(sentence) for sentence in words]}"
        )
    if len(set(words[0])) != rows or sorted(words[0]) != sorted(words[1]):
        raise ValueError(
            f"tokens must be the same distinct words in two orders, got {words[0]!r} and {words[1]!r}"
        )
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(8, 2.4), width_ratios=[8, 1.5, 8])
    # One colour scale for both panels, symmetric about 0: red positive, blue negative.
    top = max(np.abs(first).max(), np.abs(second).max())
    for ax, sentence, out in zip((left, right), words, (first, second), strict=True):
        ax.imshow(out, cmap="RdBu_r", vmin=-top, vmax=top, aspect="auto")
        ax.set_title(" ".join(sentence))
        ax.set_yticks(range(rows), sentence)
        ax.set_xlabel(text["output_dimension"])
    right.yaxis.tick_right()
    # The middle axes span the rows of both panels: row r lies at height r, the first row on top.
    middle.set(xlim=(0, 1), ylim=(rows - 0.5, -0.5))
    middle.axis("off")
    for row, word in enumerate(words[0]):
        middle.annotate("", (1, words[1].index(word)), (0, row), arrowprops={"arrowstyle": "->"})
    return finish(fig)
