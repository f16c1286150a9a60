"""Tests of posenc_book.handouts.checks: the check functions, and their wrong and right answers, as code.

A check cell holds a check function's own source (tests/book/test_handouts.py runs the cells in the
handouts' kernels). Here: each function needs nothing but its arguments, the builtins and what it imports
itself, so that its cell runs where posenc_book is not installed; and the checks that need none of a
chapter's names are called directly.
"""

from __future__ import annotations

import builtins
import dis
import inspect
import types

import pytest
from posenc_book.handouts.checks import CHECKS, Check, call, function_source


def global_names(code: types.CodeType) -> set[str]:
    """The global names that ``code`` and the functions and classes inside it read."""
    names = {
        instruction.argval
        for instruction in dis.get_instructions(code)
        if instruction.opname in {"LOAD_GLOBAL", "LOAD_NAME"}
    }
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= global_names(constant)
    return names


def functions(check: Check):
    return [function for function in (check.check, check.wrong, check.right) if function is not None]


@pytest.mark.parametrize("key", sorted(CHECKS))
def test_checks_and_answers_need_only_their_arguments(key):
    for function in functions(CHECKS[key]):
        assert global_names(function.__code__) <= set(dir(builtins)), function.__name__
        # Its source alone defines it: no decorator, no indentation, nothing of the module around it.
        namespace: dict[str, object] = {}
        exec(compile(function_source(function), "<cell>", "exec"), namespace)
        assert inspect.signature(namespace[function.__name__]) == inspect.signature(function)


@pytest.mark.parametrize("key", sorted(CHECKS))
def test_the_student_defines_the_checks_positional_parameters(key):
    check = CHECKS[key]
    parameters = inspect.signature(check.check).parameters.values()
    assert check.names, "a check takes at least one name from the student"
    assert all(p.kind in {p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY} for p in parameters)
    # The answers take keyword-only parameters and define the student's names.
    for answer in filter(None, (check.wrong, check.right)):
        assert all(p.kind is p.KEYWORD_ONLY for p in inspect.signature(answer).parameters.values())
    assert call(check.check).startswith(f"{check.check.__name__}({check.names[0]}")


def test_call_passes_the_chapters_names_by_keyword():
    check = CHECKS["ex-motivation-3"].check
    assert call(check) == (
        "check_causal_self_attention(causal_self_attention, self_attention=self_attention, w_query=w_query)"
    )


# The checks whose functions and wrong answers need none of a chapter's names.
STANDALONE = sorted(
    key
    for key, check in CHECKS.items()
    if check.names == tuple(inspect.signature(check.check).parameters)
    and not inspect.signature(check.wrong).parameters
)


def test_some_checks_need_no_chapter():
    assert {"ex-formula-3", "ex-rope-3", "ex-longctx-1", "ex-ropetoday-2"} <= set(STANDALONE)


@pytest.mark.parametrize("key", STANDALONE)
def test_a_check_called_directly_rejects_its_wrong_answer(key):
    check = CHECKS[key]
    results = check.check(**check.wrong())
    assert len(results) == len(check.claims["en"])
    assert all(isinstance(detail, str) for _, detail in results)
    assert not all(holds for holds, _ in results)


def test_a_check_called_directly_accepts_a_right_answer():
    check = CHECKS["ex-longctx-1"]
    assert check.check(**check.right()) == [(True, "")]
    assert CHECKS["ex-formula-3"].check(best=710, distance_all=0.0)[:2] == [(True, "best = 710"), (True, "")]


@pytest.mark.parametrize("key", sorted(CHECKS))
def test_claims_are_plain_text_since_a_check_cell_prints_them(key):
    # A check cell print()s its claims: Markdown there would show as asterisks and backticks.
    for lang, claims in CHECKS[key].claims.items():
        for claim in claims:
            assert not set("*`") & set(claim), f"{key} ({lang}): {claim!r}"
