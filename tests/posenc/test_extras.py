"""``pip install posenc`` is NumPy alone; a layer whose extra is missing says which extra installs it.

Each case runs in a fresh interpreter where the extra's modules are blocked (``sys.modules[name] = None``
makes ``import name`` and ``importlib.util.find_spec(name)`` fail as if it were not installed).
tests/posenc/test_package.py installs the real wheel without extras and checks the same messages there.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest
from book_files import ROOT
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

SCRIPT = """\
import sys

for name in {blocked!r}:
    sys.modules[name] = None
import numpy as np

import posenc

assert posenc.apply_rope(np.ones((2, 4)), positions=[0, 1]).shape == (2, 4)
try:
    {statement}
except ModuleNotFoundError as error:
    print(error.name)
    print(error)
else:
    print("imported")
"""

CASES = [
    ("import posenc.nn", ["torch"], "posenc.nn", "torch"),
    ("import posenc.serving", ["torch"], "posenc.serving", "torch"),
    ("import posenc.experiment", ["torch"], "posenc.experiment", "torch"),
    ("import posenc.bench", ["torch"], "posenc.bench", "torch"),
    ("import posenc.realmodel", ["gguf"], "posenc.realmodel", "realmodel"),
    ("import posenc.realmodel", ["transformers"], "posenc.realmodel", "realmodel"),
    ("import posenc.plot", ["plotly"], "posenc.plot", "plot"),
    ("import posenc.plot", ["PIL"], "posenc.plot", "plot"),
    (
        "import posenc.words; posenc.words.message('plot.figures.heatmap', 'en')",
        ["babel"],
        "posenc.words",
        "plot",
    ),
]


def run(statement: str, blocked: list[str]) -> list[str]:
    script = SCRIPT.format(blocked=blocked, statement=statement)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


@pytest.mark.parametrize(
    ("statement", "blocked", "user", "extra"), CASES, ids=[case[0][:22] for case in CASES]
)
def test_a_missing_extra_is_named_with_the_command_that_installs_it(statement, blocked, user, extra):
    name, message = run(statement, blocked)
    assert name == blocked[0]
    assert message == f"{user} needs {blocked[0]} (not installed): pip install 'posenc[{extra}]'"


def test_with_everything_installed_the_layers_import():
    statement = "import posenc.nn, posenc.plot, posenc.serving, posenc.bench, posenc.realmodel"
    assert run(statement, []) == ["imported"]


def test_the_extras_hold_what_their_layers_check():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["dependencies"] == ["numpy"]
    extras = project["optional-dependencies"]
    # The import name of each distribution, as require_extra checks it.
    assert extras["torch"] == ["torch"]
    assert extras["plot"] == ["matplotlib", "plotly", "pillow", "babel"]
    assert extras["realmodel"] == ["torch", "gguf", "transformers", "accelerate"]
    # Every chapter and its Colab cell (chapter 9 builds a transformers model from a config, chapter 10 reads
    # a real one; its Colab cell also installs the model's wheel, tests/posenc_book/test_colab.py).
    assert extras["book"] == ["posenc[torch,plot,realmodel]"]
    checked = (ROOT / "src/posenc/plot/__init__.py").read_text(encoding="utf-8")
    assert 'require_extra(__name__, "plot", "matplotlib", "plotly", "PIL", "babel")' in checked


def test_every_dependency_and_extra_is_pinned_in_requirements():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [Requirement(spec) for spec in project["dependencies"]]
    wanted += [Requirement(spec) for specs in project["optional-dependencies"].values() for spec in specs]
    pinned = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        spec = line.split("#", 1)[0].strip()
        if spec and not spec.startswith("-"):
            requirement = Requirement(spec)
            pinned[canonicalize_name(requirement.name)] = str(requirement.specifier)
    names = {canonicalize_name(req.name) for req in wanted} - {"posenc"}
    assert all(pinned.get(name, "").startswith("==") for name in names), {
        name: pinned.get(name) for name in names
    }
