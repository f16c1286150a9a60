"""Printing a measured error next to the bound it must stay below.

The book's checks print the number they measured and how it compares with its bound
(``~1e-16 < 1e-10``), not a bare ``True``. The last
digits of a rounding error depend on the CPU's vector instructions (AVX2 and
AVX-512 kernels of the same NumPy round differently), so by default only the
error's power of ten is printed: a stored output that every CPU reproduces.

The module also holds the chapters' other printing helpers: labels padded to one width, tables of
errors, and excerpts of a function's source.
"""

from __future__ import annotations

import inspect
import math
import textwrap
import unicodedata

from posenc._checks import check_int, check_real


def _scalar(value):
    # A 0-d NumPy array or torch tensor (``(a - b).abs().max()``) is a number here; torch is not imported.
    if getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        return value.item()
    return value


def _error(name: str, value) -> float:
    value = check_real(name, _scalar(value))
    if value < 0:
        raise ValueError(f"{name} must be >= 0 (an error is a distance), got {value}")
    return value


def _positive(name: str, value) -> float:
    value = check_real(name, _scalar(value))
    if value <= 0:
        raise ValueError(f"{name} must be > 0, got {value}")
    return value


def decade(error, floor: float) -> str:
    """The power of ten just above ``error``, at least ``floor``, as ``"1e-12"``.

    Parameters
    ----------
    error : float
        A measured error, ``>= 0``.
    floor : float
        The smallest power to print (``> 0``): errors below it print as ``floor``'s
        power, since their digits are rounding noise.

    Returns
    -------
    str

    Examples
    --------
    >>> decade(3.2e-13, 1e-15)
    '1e-12'
    >>> decade(0.0, 1e-15)
    '1e-15'
    """
    error, floor = _error("error", error), _positive("floor", floor)
    return f"1e{math.ceil(math.log10(max(error, floor)))}"


def _limit(bound: float) -> str:
    # 1e-05, 2.5e+00: the bound as a power of ten, or with the one decimal it needs.
    return f"{bound:.1e}".replace(".0e", "e")


def within(label: str, error, bound, digits: int | None = None) -> str:
    """A line ``"label: ~1e-07 < 1e-05"``: the measured error and how it compares with its bound.

    The relation is computed: ``<`` when the error stays below the bound, ``≥`` when it does not,
    so the line reads as the statement it checks, with no ``True`` or ``False`` after it.

    Parameters
    ----------
    label : str
        What was measured.
    error : float
        The measured error, ``>= 0``.
    bound : float
        The bound it must stay below, ``> 0``.
    digits : int, optional
        Print the error with this many significant digits, for an error that
        every CPU reproduces. By default only its power of ten is printed
        (``~1e-07``: between ``1e-07`` and ``1e-06``).

    Returns
    -------
    str

    See Also
    --------
    above : a value that must stay above a bound.

    Examples
    --------
    >>> within("max |difference|", 3.2e-7, 1e-5)
    'max |difference|: ~1e-07 < 1e-05'
    >>> within("score error", 20.0, 1e-9)  # an error of 1 or more: a signed exponent, as Python writes it
    'score error: ~1e+01 ≥ 1e-09'
    >>> within("angle error", 0.0312, 0.01, digits=2)
    'angle error: 3.1e-02 ≥ 1e-02'
    """
    if not isinstance(label, str) or not label:
        raise TypeError(f"label must be a non-empty string, got {label!r}")
    error, bound = _error("error", error), _positive("bound", bound)
    if digits is not None:
        digits = check_int("digits", digits, minimum=1)
        shown = f"{error:.{digits - 1}e}"
    else:
        shown = f"~1e{math.floor(math.log10(error)):+03d}" if error > 0 else "0"
    return f"{label}: {shown} {'<' if error < bound else '≥'} {_limit(bound)}"


def above(label: str, value, bound, spec: str = ".4f") -> str:
    """A line ``"label: 0.7377 > 1e-10"``: a value that must stay above a bound, and how it compares.

    The counterpart of :func:`within` for a check that two things differ: ``>`` when the value
    exceeds the bound, ``≤`` when it does not.

    Parameters
    ----------
    label : str
        What was measured.
    value : float
        The measured value, such as a distance.
    bound : float
        The bound it must exceed, ``> 0``.
    spec : str, default ".4f"
        The format spec of the value: ``".4f"`` for a value that every CPU computes to these digits,
        ``".0e"`` for its power of ten and first digit.

    Returns
    -------
    str

    Examples
    --------
    >>> above("distance", 0.73771, 1e-10)
    'distance: 0.7377 > 1e-10'
    >>> above("smallest error", 2.2e-3, 1e-3, spec=".0e")
    'smallest error: 2e-03 > 1e-03'
    >>> above("distance", 0.0, 1e-10)
    'distance: 0.0000 ≤ 1e-10'
    """
    if not isinstance(label, str) or not label:
        raise TypeError(f"label must be a non-empty string, got {label!r}")
    if not isinstance(spec, str):
        raise TypeError(f"spec must be a format spec such as '.4f', got {spec!r}")
    value, bound = check_real("value", _scalar(value)), _positive("bound", bound)
    try:
        shown = format(value, spec)
    except ValueError:
        raise ValueError(f"spec must be a format spec for a float such as '.4f', got {spec!r}") from None
    return f"{label}: {shown} {'>' if value > bound else '≤'} {_limit(bound)}"


def width(text: str) -> int:
    """The columns ``text`` takes in a terminal or a notebook's output: two for a wide character.

    Hangul, CJK and full-width characters (East Asian width ``W`` or ``F``) take two columns of a
    monospaced font, every other character one.

    Examples
    --------
    >>> width("pairs"), width("쌍")
    (5, 2)
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {text!r} of type {type(text).__name__}")
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def pad(text: str, columns: int, align: str = "<") -> str:
    """``text`` padded with spaces to ``columns`` columns (:func:`width`), for a table's translated header.

    ``f"{text:>10}"`` counts characters, so a Korean header pushes its column out of line; this counts
    columns. A text wider than ``columns`` comes back whole.

    Parameters
    ----------
    text : str
        The cell's text.
    columns : int
        The column's width, >= 0.
    align : {"<", ">", "^"}, default "<"
        Left, right or centre, as in a format spec.

    Returns
    -------
    str

    Examples
    --------
    >>> pad("\uac70\ub9ac", 6, ">") == "  \uac70\ub9ac"  # "distance" in Korean: two wide characters
    True
    >>> pad("jarak", 6, ">") + "|"
    ' jarak|'
    """
    columns = check_int("columns", columns)
    if align not in ("<", ">", "^"):
        raise ValueError(f"align must be one of '<', '>', '^', got {align!r}")
    space = max(columns - width(text), 0)
    left = {"<": 0, ">": space, "^": space // 2}[align]
    return " " * left + text + " " * (space - left)


def aligned(*labels: str, align: str = "<") -> list[str]:
    """The ``labels`` padded (:func:`pad`) to the columns of the widest, for labels printed one above another.

    Parameters
    ----------
    *labels : str
        The labels, at least one.
    align : {"<", ">", "^"}, default "<"
        Left, right or centre, as in a format spec.

    Returns
    -------
    list of str

    Examples
    --------
    >>> aligned("distance:", "bound:")
    ['distance:', 'bound:   ']
    >>> [width(label) for label in aligned("\\uac70\\ub9ac:", "bound:")]  # "distance" in Korean
    [6, 6]
    """
    if not labels:
        raise TypeError("aligned needs at least one label")
    columns = max(width(label) for label in labels)
    return [pad(label, columns, align) for label in labels]


def _bounded(error: float, noise: float, floor: float) -> str:
    # An error of ``noise`` or more with two significant digits; a smaller one, whose last digits vary
    # by CPU, only as the power of ten just above it (at least ``floor``).
    if error >= noise:
        return f"{error:.1e}"
    bound = 10.0 ** (math.floor(math.log10(error)) + 1) if error > 0 else floor
    return f"< {max(bound, floor):.0e}"


def error_table(errors, corner: str, *, noise: float = 1e-5, floor: float = 1e-6) -> str:
    """A table of measured errors, one row per label and one column per method, every column right-aligned.

    An error of ``noise`` or more prints with two significant digits. A smaller one is rounding noise
    whose last digits vary by CPU, so only the power of ten just above it prints, and no power below
    ``floor``: ``"< 1e-05"``, ``"< 1e-06"``. The stored output is then the same on every CPU. Widths are
    counted in columns (:func:`width`), so translated labels line up.

    Parameters
    ----------
    errors : mapping of str to mapping of str to float
        ``{row label: {column name: error}}``, at least one row; every row has the same column names in
        the same order. An error is a number ``>= 0`` (a 0-d NumPy array or torch tensor will do).
    corner : str
        The header of the column of row labels.
    noise : float, default 1e-5
        Errors below it print only as ``"< 1e-0k"`` (``> 0``).
    floor : float, default 1e-6
        The smallest bound printed (``> 0``): with the default, every error below ``1e-06`` prints as
        ``"< 1e-06"``.

    Returns
    -------
    str
        The header line and one line per row, joined by newlines.

    Raises
    ------
    ValueError
        If ``errors`` has no row, if a row's column names differ from the first row's, if an error is
        negative or not finite, or if ``noise`` or ``floor`` is not ``> 0``.
    TypeError
        If ``errors`` is not a mapping of string labels to mappings, or an error is not a real number.

    Examples
    --------
    >>> table = {"2**10": {"f32": 5.94e-5, "f64": 3.0e-8}, "2**20": {"f32": 0.0612, "f64": 2.1e-6}}
    >>> print(error_table(table, "positions up to"))
    positions up to       f32       f64
              2**10   5.9e-05   < 1e-06
              2**20   6.1e-02   < 1e-05
    """
    noise, floor = _positive("noise", noise), _positive("floor", floor)
    if not isinstance(corner, str):
        raise TypeError(f"corner must be a string, got {corner!r} of type {type(corner).__name__}")
    if not hasattr(errors, "items"):
        raise TypeError(f"errors must be a mapping of row labels to rows, got {type(errors).__name__}")
    if not errors:
        raise ValueError("errors must hold at least one row")
    lines = []
    names = None
    for label, row in errors.items():
        if not isinstance(label, str) or not hasattr(row, "items"):
            raise TypeError(f"each row must be a string label and a mapping, got {label!r}: {row!r}")
        if names is None:
            names = list(row)
            lines.append([corner, *names])
        elif list(row) != names:
            raise ValueError(f"row {label!r} has the columns {list(row)}, the first row {names}")
        lines.append([label, *(_bounded(_error("error", row[name]), noise, floor) for name in names)])
    columns = [max(width(cell) for cell in column) for column in zip(*lines, strict=True)]
    return "\n".join("   ".join(map(pad, line, columns, ">" * len(columns))) for line in lines)


def excerpt(function, first: str, last: str) -> str:
    """The lines of ``function``'s source from the first that holds ``first`` to the next that holds ``last``.

    A chapter that reads a long function shows only the lines it discusses, dedented, instead of the
    whole source with its argument checks.

    Parameters
    ----------
    function : function, method or class
        Anything ``inspect.getsource`` reads.
    first, last : str
        Text of the first line shown, and of the last (searched from the first line on, so
        ``first`` and ``last`` may be on the same line). Neither may be empty.

    Returns
    -------
    str
        The lines, with their common indentation removed, joined by newlines.

    Raises
    ------
    ValueError
        If ``first`` or ``last`` is empty or is on no line (``last`` on none from ``first``'s on).
    TypeError
        If ``first`` or ``last`` is not a string, or ``function`` has no source to read.

    Examples
    --------
    >>> print(excerpt(aligned, "if not labels", "return"))
    if not labels:
        raise TypeError("aligned needs at least one label")
    columns = max(width(label) for label in labels)
    return [pad(label, columns, align) for label in labels]
    """
    for name, text in (("first", first), ("last", last)):
        if not isinstance(text, str):
            raise TypeError(f"{name} must be a string, got {type(text).__name__}")
        if not text:
            raise ValueError(f"{name} must not be empty")
    try:
        lines = inspect.getsource(function).splitlines()
    except (TypeError, OSError) as error:  # a built-in, or code typed at a prompt
        raise TypeError(f"function must have Python source to read, got {function!r}") from error
    start = next((i for i, line in enumerate(lines) if first in line), None)
    if start is None:
        raise ValueError(f"first: no line of {function.__qualname__} holds {first!r}")
    stop = next((i for i in range(start, len(lines)) if last in lines[i]), None)
    if stop is None:
        raise ValueError(f"last: no line of {function.__qualname__} from {first!r} on holds {last!r}")
    return textwrap.dedent("\n".join(lines[start : stop + 1]))
