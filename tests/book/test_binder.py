"""The Binder environment (binder/) cannot drift from requirements.txt.

Binder builds the image with repo2docker from binder/requirements.txt and binder/runtime.txt. The pins
must be those of requirements.txt, except that torch is PyTorch's CPU-only wheel: the default Linux
wheel pulls in gigabytes of CUDA libraries that a Binder machine (no GPU) cannot use.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from book_files import ROOT

BINDER = ROOT / "binder"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>\S+)$")


def normalise(name: str) -> str:
    """The PEP 503 form of a distribution name: ``Sphinx_Exercise`` is ``sphinx-exercise``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def parse(text: str) -> tuple[dict[str, str], list[str]]:
    """Split a requirements file into ``{name: version}`` pins and its other lines (options, -e)."""
    pins, others = {}, []
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if match := PIN.match(line):
            name = normalise(match.group("name"))
            assert name not in pins, f"{name} is pinned twice"
            pins[name] = match.group("version")
        else:
            others.append(line)
    return pins, others


def read(path: Path) -> tuple[dict[str, str], list[str]]:
    return parse(path.read_text(encoding="utf-8"))


def pins_for_tests_only(text: str) -> set[str]:
    """Pins whose comment starts with "tests only": the test suite needs them, a reader's Binder does not."""
    names = set()
    for raw in text.splitlines():
        line, _, comment = raw.partition(" #")
        if (match := PIN.match(line.strip())) and comment.strip().startswith("tests only"):
            names.add(normalise(match.group("name")))
    return names


def test_parse_reads_pins_options_and_editable_installs():
    pins, others = parse("# comment\nSphinx_Exercise==1.2.1  # why\n\n--extra-index-url https://x\n-e .\n")
    assert pins == {"sphinx-exercise": "1.2.1"}
    assert others == ["--extra-index-url https://x", "-e ."]
    with pytest.raises(AssertionError, match="pinned twice"):
        parse("numpy==1\nNumPy==2\n")


def test_every_requirement_is_pinned_exactly():
    for path in (ROOT / "requirements.txt", BINDER / "requirements.txt"):
        _, others = read(path)
        unpinned = [line for line in others if not line.startswith(("-e ", "--extra-index-url "))]
        assert unpinned == [], f"{path.relative_to(ROOT)}: not pinned with ==: {unpinned}"


def test_pins_for_tests_only_reads_the_comment():
    text = "numpy==2  # imported by posenc\ntransformers==5  # tests only: references\n"
    assert pins_for_tests_only(text) == {"transformers"}


def test_binder_pins_match_requirements_except_torch_cpu():
    root_pins, _ = read(ROOT / "requirements.txt")
    binder_pins, _ = read(BINDER / "requirements.txt")
    # The test-only pins (transformers, the RoPE references) stay out of the readers' environment.
    test_pins = pins_for_tests_only((ROOT / "requirements.txt").read_text(encoding="utf-8"))
    assert test_pins.isdisjoint(binder_pins), f"binder/requirements.txt installs test-only pins {test_pins}"
    root_pins = {name: version for name, version in root_pins.items() if name not in test_pins}
    assert set(binder_pins) == set(root_pins), "binder/requirements.txt lists other packages"
    for name, version in root_pins.items():
        expected = version.split("+")[0] + "+cpu" if name == "torch" else version
        assert binder_pins[name] == expected, f"{name}: binder has {binder_pins[name]}, expected {expected}"


def test_binder_uses_the_cpu_wheel_index_and_installs_the_package():
    _, others = read(BINDER / "requirements.txt")
    assert f"--extra-index-url {CPU_INDEX}" in others
    # repo2docker runs pip from the repository root, so "." is the repository, as in requirements.txt.
    assert "-e ." in others
    assert others[-1] == "-e .", "install the package last, after its pinned dependencies"


def test_binder_python_is_the_projects_python():
    runtime = (BINDER / "runtime.txt").read_text(encoding="utf-8").strip()
    assert runtime == "python-3.11"
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["requires-python"] == ">=3.11"
    assert pyproject["tool"]["ruff"]["target-version"] == "py311"


def test_binder_folder_holds_only_what_repo2docker_should_read():
    # Any environment.yml, Dockerfile or other config in binder/ would change which buildpack runs.
    assert sorted(path.name for path in BINDER.iterdir()) == ["requirements.txt", "runtime.txt"]
