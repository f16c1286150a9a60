"""Argument checks shared by the public functions.

Every check raises ``TypeError`` for a value of the wrong kind and ``ValueError``
for a value of the right kind that breaks a rule, and names the argument.
"""

from __future__ import annotations

import importlib.util
import math
import numbers

import numpy as np


def check_int(name: str, value, *, minimum: int = 0) -> int:
    """Return ``value`` as an ``int`` if it is an integer ``>= minimum``."""
    # bool is a subclass of int, but True is never a meaningful size.
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} of type {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


#: Positions must stay below this. Every angle ``p * theta`` is formed in float64, which holds each integer
#: below 2**53 exactly; 2**53 + 1 rounds to 2**53, so above it two positions would get one rotation. (The
#: angle's own rounding grows with it: for theta = 0.01, 2e-13 rad at p = 10**6, 2e-4 rad at 10**15.)
POSITION_LIMIT = 2**53


def check_offset(offset, count: int) -> int:
    """Return ``offset`` as an ``int`` if it is an integer >= 0 whose ``count`` positions stay below 2**53."""
    offset = check_int("offset", offset)
    if offset + max(count, 1) > POSITION_LIMIT:
        raise ValueError(
            "offset + the number of positions must be <= 2**53 (float64 angles hold every integer "
            "position below 2**53 exactly; above it two positions get one rotation), got "
            f"offset={offset} with {count} positions"
        )
    return offset


def check_d_model(d_model) -> int:
    """Return ``d_model`` if it is a positive even integer."""
    d_model = check_int("d_model", d_model, minimum=1)
    if d_model % 2:
        raise ValueError(f"d_model must be even (sin/cos come in pairs), got {d_model}")
    return d_model


def check_real(name: str, value) -> float:
    """Return ``value`` as a finite ``float``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} of type {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return value


def check_base(base) -> float:
    """Return ``base`` if it is a finite number greater than one.

    ``base ** (-2 i / d)`` falls with ``i`` only for ``base > 1``: 1 gives every pair the same frequency
    and a base in (0, 1) frequencies that rise with ``i``, consistent arithmetic but no sinusoidal encoding
    or RoPE (and the scaling recipes then return frequencies above the original ones).
    """
    base = check_real("base", base)
    if base <= 1:
        raise ValueError(f"base must be > 1 (the frequencies base ** (-2i/d) must fall with i), got {base}")
    return base


def check_float_dtype(dtype) -> np.dtype:
    """Return ``dtype`` as a NumPy dtype if it is a floating-point type."""
    try:
        resolved = np.dtype(dtype)
    except TypeError as error:
        raise TypeError(f"dtype must be a NumPy floating type, got {dtype!r}") from error
    if not np.issubdtype(resolved, np.floating):
        raise TypeError(f"dtype must be a NumPy floating type such as float32, got {resolved}")
    return resolved


def require_extra(user: str, extra: str, *modules: str) -> None:
    """Raise ModuleNotFoundError, naming ``pip install 'posenc[extra]'``, if one of ``modules`` is missing.

    ``pip install posenc`` installs NumPy alone; the PyTorch layer and the figures come with the extras
    ``torch`` and ``plot`` (pyproject.toml). ``user`` is the module that needs them, for the message.
    """
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise ModuleNotFoundError(
            f"{user} needs {', '.join(missing)} (not installed): pip install 'posenc[{extra}]'",
            name=missing[0],
        )
