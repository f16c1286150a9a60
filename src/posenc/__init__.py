"""Helpers for the book on positional encoding.

``import posenc`` loads NumPy only. The PyTorch modules live in
:mod:`posenc.nn` and :mod:`posenc.serving`, the figures in :mod:`posenc.plot`.
"""

from posenc.config import RopeParameters, rope_parameters
from posenc.encoding import cos_sin_table, frequencies, sinusoidal_encoding
from posenc.positions import (
    load_balanced_positions,
    packed_attention_mask,
    packed_position_ids,
    positions_from_mask,
)
from posenc.relative import alibi_bias, alibi_slopes, t5_relative_bucket
from posenc.rope import apply_rope, rope_decay_bound, rope_frequencies
from posenc.rotation import rotation_matrix
from posenc.scaling import longrope_attention_factor, scaled_frequencies, yarn_attention_factor

__all__ = [
    "RopeParameters",
    "alibi_bias",
    "alibi_slopes",
    "apply_rope",
    "cos_sin_table",
    "frequencies",
    "load_balanced_positions",
    "longrope_attention_factor",
    "packed_attention_mask",
    "packed_position_ids",
    "positions_from_mask",
    "rope_decay_bound",
    "rope_frequencies",
    "rope_parameters",
    "rotation_matrix",
    "scaled_frequencies",
    "sinusoidal_encoding",
    "t5_relative_bucket",
    "yarn_attention_factor",
]
__version__ = "0.1.0"
