import numpy as np
import pytest
import torch

from posenc.report import above, aligned, decade, error_table, excerpt, width, within


def test_within_prints_the_power_of_ten_and_its_relation_to_the_bound():
    assert within("max |difference|", 3.2e-7, 1e-5) == "max |difference|: ~1e-07 < 1e-05"
    assert within("error", 2e-5, 1e-5) == "error: ~1e-05 ≥ 1e-05"
    assert within("error", 0.0, 1e-12) == "error: 0 < 1e-12"
    assert within("error", 1e-5, 1e-5) == "error: ~1e-05 ≥ 1e-05"  # "below" is strict


def test_above_prints_the_value_and_its_relation_to_the_bound():
    assert above("distance", 0.73771, 1e-10) == "distance: 0.7377 > 1e-10"
    assert above("distance", 0.0, 1e-10) == "distance: 0.0000 ≤ 1e-10"
    assert above("distance", 1e-10, 1e-10).endswith("≤ 1e-10")  # "above" is strict
    assert above("error", np.float32(2.2e-3), 1e-3, spec=".0e") == "error: 2e-03 > 1e-03"


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        (("", 1.0, 1e-10), TypeError, "label must be a non-empty string"),
        (("d", float("nan"), 1e-10), ValueError, "value"),
        (("d", 1.0, 0.0), ValueError, "bound must be > 0"),
        (("d", 1.0, 1e-10, ".4q"), ValueError, "spec must be a format spec"),
        (("d", 1.0, 1e-10, 4), TypeError, "spec must be a format spec"),
    ],
)
def test_above_rejects_bad_input_by_name(arguments, error, message):
    with pytest.raises(error, match=message):
        above(*arguments)


def test_within_with_digits_prints_them():
    assert within("angle error", 0.0312, 0.01, digits=2) == "angle error: 3.1e-02 ≥ 1e-02"
    assert within("x", 4.8e-4, 1e-3, digits=3) == "x: 4.80e-04 < 1e-03"
    assert within("x", 1.0, 2.5) == "x: ~1e+00 < 2.5e+00"


def test_last_digits_do_not_reach_the_printout():
    """Two errors that differ only in their last bits (another CPU's kernels) print the same line."""
    error = 3.2e-13
    assert within("e", error, 1e-10) == within("e", np.nextafter(error, 1.0), 1e-10)
    assert decade(error, 1e-15) == decade(error * (1 + 4e-16), 1e-15) == "1e-12"


def test_decade_rounds_up_and_stops_at_the_floor():
    assert decade(3.2e-13, 1e-15) == "1e-12"
    assert decade(1e-12, 1e-15) == "1e-12"
    assert decade(0.0, 1e-15) == "1e-15"
    assert decade(1e-20, 1e-16) == "1e-16"
    assert decade(5.0, 1e-3) == "1e1"


def test_numpy_and_torch_scalars_are_numbers():
    a = np.float32(2.5e-8)
    t = torch.tensor(2.5e-8, dtype=torch.float64)
    assert within("e", a, 1e-6) == within("e", t, 1e-6) == "e: ~1e-08 < 1e-06"
    assert decade(torch.tensor(3e-7), 1e-9) == "1e-6"


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: within("e", -1e-9, 1e-6), ValueError, "error must be >= 0"),
        (lambda: within("e", float("nan"), 1e-6), ValueError, "error must be finite"),
        (lambda: within("e", 1e-9, 0.0), ValueError, "bound must be > 0"),
        (lambda: within("e", 1e-9, 1e-6, digits=0), ValueError, "digits must be >= 1"),
        (lambda: within("e", 1e-9, 1e-6, digits=2.0), TypeError, "digits must be an integer"),
        (lambda: within("", 1e-9, 1e-6), TypeError, "label must be a non-empty string"),
        (lambda: within("e", "small", 1e-6), TypeError, "error must be a real number"),
        (lambda: within("e", np.zeros(3), 1e-6), TypeError, "error must be a real number"),
        (lambda: decade(1e-9, -1e-3), ValueError, "floor must be > 0"),
        (lambda: decade(True, 1e-3), TypeError, "error must be a real number"),
    ],
)
def test_bad_input_is_refused_with_its_name_and_rule(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_aligned_pads_every_label_to_the_widest_in_columns():
    korean = "\uac70\ub9ac:"  # "distance:" in Korean, two wide characters: 5 columns
    assert aligned("a:", "bbb:") == ["a:  ", "bbb:"]
    assert aligned(korean, "ab:") == [korean, "ab:  "]
    assert aligned("a", "bbb", align=">") == ["  a", "bbb"]
    assert {width(label) for label in aligned(korean, "jarak terjauh:", "x")} == {14}


@pytest.mark.parametrize(
    ("labels", "kwargs", "error", "match"),
    [
        ((), {}, TypeError, "at least one label"),
        (("a", 3), {}, TypeError, "text must be a string"),
        (("a",), {"align": "right"}, ValueError, "align must be one of"),
    ],
)
def test_aligned_refuses_bad_input(labels, kwargs, error, match):
    with pytest.raises(error, match=match):
        aligned(*labels, **kwargs)


def test_error_table_prints_large_errors_and_bounds_the_noise():
    errors = {
        "2**10": {"f32": 5.94e-5, "f64": 3.0e-8, "add": 0.0},
        "2**20": {"f32": np.float64(0.0612), "f64": torch.tensor(2.1e-6), "add": 1e-5},
    }
    assert error_table(errors, "positions up to").split("\n") == [
        "positions up to       f32       f64       add",
        "          2**10   5.9e-05   < 1e-06   < 1e-06",
        "          2**20   6.1e-02   < 1e-05   1.0e-05",
    ]


def test_error_table_noise_and_floor_move_the_cut():
    row = {"r": {"a": 3e-7, "b": 3e-4}}
    assert error_table(row, "") == "          a         b\nr   < 1e-06   3.0e-04"
    assert error_table(row, "", noise=1e-3).endswith("< 1e-06   < 1e-03")
    assert error_table(row, "", floor=1e-4).endswith("< 1e-04   3.0e-04")


def test_error_table_rounding_noise_prints_the_same_on_every_cpu():
    """Errors that differ only in their last bits (another CPU's kernels) give the same table."""
    error = 4.7e-7
    first = error_table({"2**16": {"f64": error}}, "up to")
    assert first == error_table({"2**16": {"f64": np.nextafter(error, 1.0)}}, "up to")
    assert "4.7" not in first


def test_error_table_lines_up_wide_characters():
    korean = "\uc704\uce58 \uc0c1\ud55c"  # "positions up to" in Korean: 9 columns
    lines = error_table({"2**10": {"f32": 5.9e-5}, "2**12": {"f32": 2.3e-4}}, korean).split("\n")
    assert {width(line) for line in lines} == {19}
    assert lines[1] == "    2**10   5.9e-05"


@pytest.mark.parametrize(
    ("errors", "kwargs", "error", "match"),
    [
        ({}, {}, ValueError, "at least one row"),
        ({"a": {"x": 1.0}, "b": {"y": 1.0}}, {}, ValueError, "row 'b' has the columns"),
        ({"a": {"x": 1.0, "y": 2.0}, "b": {"y": 2.0, "x": 1.0}}, {}, ValueError, "row 'b' has the columns"),
        ({"a": {"x": -1e-9}}, {}, ValueError, "error must be >= 0"),
        ({"a": {"x": float("nan")}}, {}, ValueError, "error must be finite"),
        ({"a": {"x": 1.0}}, {"noise": 0.0}, ValueError, "noise must be > 0"),
        ({"a": {"x": 1.0}}, {"floor": -1e-6}, ValueError, "floor must be > 0"),
        ([("a", {"x": 1.0})], {}, TypeError, "errors must be a mapping"),
        ({"a": [1.0]}, {}, TypeError, "each row must be"),
        ({"a": {"x": "small"}}, {}, TypeError, "error must be a real number"),
    ],
)
def test_error_table_refuses_bad_input(errors, kwargs, error, match):
    with pytest.raises(error, match=match):
        error_table(errors, "up to", **kwargs)


def _sample(x):
    # a function to excerpt: two branches, then the result
    if x > 0:
        y = x + 1
    else:
        y = x - 1
    return 2 * y


def test_excerpt_shows_the_lines_from_first_to_last_dedented():
    assert excerpt(_sample, "if x > 0", "y = x + 1") == "if x > 0:\n    y = x + 1"
    # last is searched from first's line on: the "y =" of the else branch, not the one before it
    assert excerpt(_sample, "else", "y =").splitlines() == ["else:", "    y = x - 1"]
    assert excerpt(_sample, "return", "return") == "return 2 * y"


@pytest.mark.parametrize(
    ("first", "last", "error", "match"),
    [
        ("while", "return", ValueError, "first: no line of _sample holds 'while'"),
        ("else", "if x", ValueError, "last: no line of _sample from 'else' on holds 'if x'"),
        ("", "return", ValueError, "first must not be empty"),
        ("if", None, TypeError, "last must be a string"),
    ],
)
def test_excerpt_refuses_bad_input(first, last, error, match):
    with pytest.raises(error, match=match):
        excerpt(_sample, first, last)


def test_excerpt_refuses_a_function_without_source():
    with pytest.raises(
        TypeError, match="function must have Python source to read, got <built-in function len>"
    ):
        excerpt(len, "a", "b")
