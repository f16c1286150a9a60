"""The tests against transformers skip only off CI (tech review P17): one helper, used by all of them."""

import pathlib
import re
import sys

import hf_reference
import pytest

TESTS = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture
def without_transformers(monkeypatch):
    # None in sys.modules makes `import transformers` raise ModuleNotFoundError, as if it were not installed.
    monkeypatch.setitem(sys.modules, "transformers", None)


def test_on_ci_a_missing_transformers_fails(monkeypatch, without_transformers):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(ImportError):
        hf_reference.transformers_or_skip()


@pytest.mark.parametrize("ci", [None, "false"])
def test_off_ci_a_missing_transformers_skips_and_says_why(monkeypatch, without_transformers, ci):
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.skip.Exception, match=r"pip install -r requirements\.txt"):
        hf_reference.transformers_or_skip()


def test_every_comparison_with_transformers_goes_through_the_helper():
    """test_serving.py skipped on CI too (a bare module-level importorskip), and four files each had
    their own copy of the CI rule; a new test that skips on its own would hide the same way."""
    own_rule = re.compile(r"importorskip\(\s*[\"']transformers|environ.get\([\"']CI[\"']\).*\n.*transformers")
    offenders = [
        str(path.relative_to(TESTS))
        for path in sorted(TESTS.rglob("*.py"))
        if path.name != "hf_reference.py" and own_rule.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
