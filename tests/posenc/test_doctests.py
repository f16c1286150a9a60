"""The examples of posenc's docstrings run, and every public function and class has one.

The API reference (book/en/api.md) shows each docstring's ``Examples`` section: this runs them all with
``doctest``, so a printed value on that page is what the code prints. It also checks that every public
function and class (the names of a module's ``__all__``, or, without one, the functions and classes
without a leading underscore that the module defines) has an ``Examples`` section, that numpydoc reads
every docstring without a warning (a misspelt section header, a section out of order), and that the
page documents every public module.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re
import warnings
from types import ModuleType

import numpy as np
import pytest
from book_files import BOOK
from numpydoc.docscrape import ClassDoc, FunctionDoc

import posenc

OPTIONS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
API_PAGE = BOOK / "en" / "api.md"


def public_modules() -> list[str]:
    """``posenc`` and every module under it whose name has no part starting with an underscore."""
    found = pkgutil.walk_packages(posenc.__path__, prefix="posenc.")
    names = [info.name for info in found if not any(part.startswith("_") for part in info.name.split("."))]
    return ["posenc", *sorted(names)]


MODULES = public_modules()
# posenc.experiment.sweeps' examples train every model of chapter 8 for one step (about 25 s).
# posenc.realmodel.weights' and .tokenizer's load SmolLM2-135M (about 10 s each on two busy cores).
SLOW_EXAMPLES = {"posenc.experiment.sweeps", "posenc.realmodel.weights", "posenc.realmodel.tokenizer"}
EXAMPLE_MODULES = [
    pytest.param(name, marks=pytest.mark.slow) if name in SLOW_EXAMPLES else name for name in MODULES
]


def public_objects(module: ModuleType) -> dict[str, object]:
    """The public functions and classes of ``module``: those of ``__all__``, or the ones it defines."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            name
            for name, obj in vars(module).items()
            if not name.startswith("_") and getattr(obj, "__module__", None) == module.__name__
        ]
    objects = {name: getattr(module, name) for name in names}
    return {name: obj for name, obj in objects.items() if inspect.isfunction(obj) or inspect.isclass(obj)}


def run_doctests(module: ModuleType) -> tuple[int, int, str]:
    """Run every example in ``module``'s docstrings; return (failed, attempted, the failures' report)."""
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    np_options = np.get_printoptions()
    try:
        # exclude_empty: a docstring without examples is no test; globs: a fresh copy of the module's.
        for test in doctest.DocTestFinder(exclude_empty=True).find(module, module.__name__):
            runner.run(test, out=report.append)
    finally:
        np.set_printoptions(**np_options)  # an example that changes NumPy's printing changes no other
    return runner.failures, runner.tries, "".join(report)


def missing_examples(module: ModuleType) -> list[str]:
    """The public functions and classes of ``module`` without an Examples section, and numpydoc's warnings."""
    problems = []
    for name, obj in public_objects(module).items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if inspect.isclass(obj):
                doc = ClassDoc(obj, config={"show_class_members": False})
            else:
                doc = FunctionDoc(obj)
        problems += [f"{module.__name__}.{name}: numpydoc warns: {warning.message}" for warning in caught]
        if not "".join(doc["Examples"]).strip():
            problems.append(f"{module.__name__}.{name} has no Examples section")
    return problems


@pytest.mark.parametrize("name", EXAMPLE_MODULES)
def test_examples_run(name):
    module = importlib.import_module(name)
    failed, attempted, report = run_doctests(module)
    assert failed == 0, f"{failed} of {attempted} examples of {name} fail:\n{report}"


@pytest.mark.parametrize("name", MODULES)
def test_every_public_function_and_class_has_examples(name):
    module = importlib.import_module(name)
    assert missing_examples(module) == []


def test_every_public_module_is_on_the_api_page():
    page = API_PAGE.read_text(encoding="utf-8")
    documented = re.findall(r"^\.\. automodule:: (\S+)$", page, flags=re.M)
    assert sorted(documented) == sorted(MODULES), "book/en/api.md must have one automodule per public module"
    # The names that the chapters call, posenc.<name>, posenc.plot.<name> and posenc.experiment.<name>,
    # are documented there, once: the modules that define them show their docstring alone.
    for package in ("posenc", "posenc.serving", "posenc.plot", "posenc.experiment"):
        documented = f".. automodule:: {package}\n   :members:\n" in page
        assert documented, f"{package} is not documented with its members"


MADE_UP = '''
def double(x):
    """Twice ``x``.

    Examples
    --------
    >>> double(2)
    5
    """
    return 2 * x


def half(x):
    """Half of ``x``.

    Parameters
    ----------
    x : float

    Exmaples
    --------
    >>> half(2)
    1.0
    """
    return x / 2
'''


def test_a_wrong_example_and_a_missing_one_are_caught():
    """The checks above can fail: a made-up module with one wrong example and one function without."""
    module = ModuleType("made_up")
    exec(compile(MADE_UP, "made_up.py", "exec"), module.__dict__)
    failed, attempted, report = run_doctests(module)
    assert (failed, attempted) == (1, 2) and "Expected:\n    5\nGot:\n    4" in report
    problems = missing_examples(module)
    assert "made_up.half has no Examples section" in problems
    assert any("made_up.half: numpydoc warns:" in problem and "Exmaples" in problem for problem in problems)
    assert "made_up.double has no Examples section" not in problems


def test_public_names_follow_all_or_the_definitions():
    report = importlib.import_module("posenc.report")  # no __all__: the functions it defines
    assert sorted(public_objects(report)) == [
        "above",
        "aligned",
        "decade",
        "error_table",
        "excerpt",
        "pad",
        "width",
        "within",
    ]
    assert sorted(public_objects(posenc)) == sorted(posenc.__all__)  # re-exports count
