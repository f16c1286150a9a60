"""The order of the query and key rows in a GGUF file, and Hugging Face's: one fixed permutation.

Hugging Face's Llama rotates with ``rotate_half``: in each head, feature ``i`` pairs with feature
``i + head_dim / 2`` (posenc's ``layout="half"``). llama.cpp rotates neighbours, ``2 i`` with ``2 i + 1``
(``layout="interleaved"``). Its converter (``convert_hf_to_gguf.py``, ``LlamaModel.permute``) therefore
reorders the output rows of ``q_proj`` and ``k_proj`` in every head, so that the interleaved rotation of
the permuted rows computes exactly what the half rotation computes on the original ones; transformers'
GGUF loader undoes it (``LlamaTensorProcessor._reverse_permute_weights``). A score ``q . k`` is a sum over
features, which a permutation applied to both ``q`` and ``k`` leaves unchanged: the two files are the
same model.
"""

from __future__ import annotations

import numpy as np

from posenc._checks import check_int

__all__ = ["from_gguf_rows", "gguf_row_order", "to_gguf_rows"]


def gguf_row_order(num_heads: int, head_dim: int) -> np.ndarray:
    """Which Hugging Face row each row of a GGUF ``attn_q`` or ``attn_k`` matrix holds.

    Within each head, GGUF row ``2 i + s`` (``s`` = 0 or 1) is Hugging Face row ``s * head_dim / 2 + i``:
    the two halves of a head, interleaved.

    Parameters
    ----------
    num_heads : int
        Heads whose rows the matrix holds, >= 1: the query heads for ``attn_q``, the key/value heads
        for ``attn_k``.
    head_dim : int
        Features per head, even and >= 2.

    Returns
    -------
    numpy.ndarray
        ``order`` of shape ``(num_heads * head_dim,)``, a permutation: ``gguf = hf[order]`` and
        ``hf = gguf[np.argsort(order)]``.

    Examples
    --------
    >>> from posenc.realmodel import gguf_row_order
    >>> gguf_row_order(num_heads=2, head_dim=4)
    array([0, 2, 1, 3, 4, 6, 5, 7])
    """
    num_heads = check_int("num_heads", num_heads, minimum=1)
    head_dim = check_int("head_dim", head_dim, minimum=2)
    if head_dim % 2:
        raise ValueError(f"head_dim must be even (RoPE turns pairs of features), got {head_dim}")
    # Hugging Face's rows as (head, half s, pair i); GGUF's as (head, pair i, half s).
    return np.arange(num_heads * head_dim).reshape(num_heads, 2, head_dim // 2).swapaxes(1, 2).ravel()


def _check_rows(weight, num_heads: int) -> tuple[np.ndarray, int]:
    rows = np.shape(weight)[0] if np.ndim(weight) else 0
    num_heads = check_int("num_heads", num_heads, minimum=1)
    if rows == 0 or rows % (2 * num_heads):
        raise ValueError(
            f"weight must have a first axis of num_heads * head_dim rows (head_dim even), "
            f"num_heads = {num_heads}, got shape {np.shape(weight)}"
        )
    return gguf_row_order(num_heads, rows // num_heads), rows


def to_gguf_rows(weight, num_heads: int):
    """Reorder a Hugging Face ``q_proj`` or ``k_proj`` weight (or bias) into the GGUF file's order.

    Parameters
    ----------
    weight : numpy.ndarray or torch.Tensor
        Shape ``(num_heads * head_dim, ...)``.
    num_heads : int
        Heads in ``weight`` (the key/value heads for ``k_proj``).

    Returns
    -------
    Same type as ``weight``
        ``weight[gguf_row_order(num_heads, head_dim)]``.

    Examples
    --------
    One head of four features: rows 0 and 2 form the first pair in the half layout, and become
    neighbours.

    >>> import numpy as np
    >>> from posenc.realmodel import to_gguf_rows
    >>> to_gguf_rows(np.array([10, 11, 12, 13]), num_heads=1)
    array([10, 12, 11, 13])
    """
    order, _ = _check_rows(weight, num_heads)
    return weight[order]


def from_gguf_rows(weight, num_heads: int):
    """Undo :func:`to_gguf_rows`: a GGUF ``attn_q`` or ``attn_k`` matrix in Hugging Face's row order.

    Parameters
    ----------
    weight : numpy.ndarray or torch.Tensor
        Shape ``(num_heads * head_dim, ...)``, rows as the GGUF file stores them.
    num_heads : int
        Heads in ``weight`` (the key/value heads for ``attn_k``).

    Returns
    -------
    Same type as ``weight``
        The rows in Hugging Face's order, for the ``rotate_half`` layout.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc.realmodel import from_gguf_rows, to_gguf_rows
    >>> w = np.arange(16.0).reshape(8, 2)
    >>> bool((from_gguf_rows(to_gguf_rows(w, num_heads=2), num_heads=2) == w).all())
    True
    """
    order, _ = _check_rows(weight, num_heads)
    return weight[np.argsort(order)]
