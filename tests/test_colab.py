"""Every chapter opens with the same Colab cell, and that cell does nothing anywhere else.

Colab has NumPy, Matplotlib and PyTorch but not the book's helper package, posenc. The first code cell of
every notebook, tagged ``colab``, installs posenc from the repository named in _config.yml, only when
the notebook runs on Colab. Elsewhere it prints nothing, so nbval and the hygiene checks are unaffected.

The cell is plain Python (``subprocess`` + ``pip``) rather than the ``%pip`` magic: tests/test_notebooks.py
parses every code cell with :mod:`ast`, which rejects IPython magics.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import tomllib
import types
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
NOTEBOOKS = sorted(p for p in BOOK.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)

COLAB_CELL = """\
# On Google Colab only: install the book's helper package, posenc, from the repository.
import sys

if "google.colab" in sys.modules:
    import subprocess

    url = "git+{repository}@{branch}"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", f"posenc @ {{url}}"], check=True)"""


def repository() -> dict:
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    return config["repository"]


def colab_cell_source() -> str:
    """The exact source of the Colab cell for the repository and branch in _config.yml."""
    repo = repository()
    return COLAB_CELL.format(repository=repo["url"].rstrip("/"), branch=repo["branch"])


def run_cell(source: str) -> str:
    """Run ``source`` as a notebook cell would, in a fresh namespace; return what it printed."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        exec(compile(source, "<colab cell>", "exec"), {"__name__": "__main__"})
    return printed.getvalue()


def test_the_cell_installs_the_package_that_pyproject_defines():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["name"] == "posenc"
    assert pyproject["build-system"]["build-backend"] == "setuptools.build_meta"
    repo = repository()
    assert repo["url"].startswith("https://github.com/"), "Colab opens notebooks from GitHub only"
    assert f'"git+{repo["url"]}@{repo["branch"]}"' in colab_cell_source()


def test_the_cell_does_nothing_outside_colab(monkeypatch):
    assert "google.colab" not in sys.modules

    def no_install(*args, **kwargs):
        raise AssertionError("the Colab cell ran pip outside Colab")

    monkeypatch.setattr(subprocess, "run", no_install)
    assert run_cell(colab_cell_source()) == ""


def test_the_cell_installs_posenc_on_colab(monkeypatch):
    calls = []
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    monkeypatch.setattr(subprocess, "run", lambda command, **kwargs: calls.append((command, kwargs)))
    assert run_cell(colab_cell_source()) == ""
    repo = repository()
    assert calls == [
        (
            [sys.executable, "-m", "pip", "install", "--quiet", f"posenc @ git+{repo['url']}@{repo['branch']}"],
            {"check": True},
        )
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: str(path.relative_to(BOOK)))
def test_first_code_cell_is_the_colab_cell(path):
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    expected = colab_cell_source()
    assert code, "no code cells"
    first = code[0]
    assert first.source.strip() == expected, (
        f"the first code cell of {path.relative_to(ROOT)} must be exactly:\n\n{expected}\n"
    )
    assert "colab" in first.metadata.get("tags", []), "tag the Colab cell 'colab'"
    assert first.outputs == [], "the Colab cell must show no output outside Colab"
    assert len(code) > 1 and "lang" in code[1].metadata.get("tags", []), "the 'lang' cell comes next"
