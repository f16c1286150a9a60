"""Helpers for the book on sinusoidal positional encoding.

``import posenc`` loads NumPy only. The PyTorch modules live in
:mod:`posenc.nn` and the figures in :mod:`posenc.plot`.
"""

from posenc.encoding import frequencies, sinusoidal_encoding
from posenc.rotation import rotation_matrix

__all__ = ["frequencies", "rotation_matrix", "sinusoidal_encoding"]
__version__ = "0.1.0"
