"""CITATION.cff, the licences, the changelog and the contributing guide agree with the project."""

from __future__ import annotations

import re
import tomllib

import yaml
from book_files import ROOT


def citation() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_citation_is_cff_1_2_0_with_the_required_keys():
    cff = citation()
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors"):
        assert cff[key], f"CITATION.cff needs {key}"
    assert all("name" in author or "family-names" in author for author in cff["authors"])


def test_citation_matches_the_book_and_the_package():
    cff = citation()
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert cff["title"] == config["title"]
    assert [author["name"] for author in cff["authors"]] == [config["author"]]
    assert str(cff["version"]) == pyproject["project"]["version"]
    assert cff["repository-code"].startswith("https://github.com/")


def test_licences_for_code_and_for_text():
    assert citation()["license"] == ["MIT", "CC-BY-4.0"]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    text_licence = (ROOT / "LICENSE-TEXT.md").read_text(encoding="utf-8")
    assert "CC BY 4.0" in text_licence and "creativecommons.org/licenses/by/4.0" in text_licence


def test_changelog_has_an_unreleased_section():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert changelog.startswith("# Changelog\n")
    assert re.search(r"^## \[Unreleased\]$", changelog, re.MULTILINE)


def test_every_path_the_contributing_guide_names_exists():
    guide = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    # Every file the guide names in backticks exists (placeholders such as NN_topic aside).
    named = re.findall(r"`((?:\.ci|\.github|src|tests|tools|binder|book)/[\w./-]+)`", guide)
    assert len(named) >= 10, named  # the pattern still finds the guide's paths
    real = [name for name in named if "NN_topic" not in name and "<" not in name]
    missing = [name for name in real if not (ROOT / name).exists()]
    assert missing == [], f"CONTRIBUTING.md names paths that do not exist: {missing}"


def test_ci_folder_holds_only_the_ci_script_and_the_build_tools_are_in_tools():
    # The book's build is a package in the visible tools/ (posenc_book); .ci/ keeps only what CI alone runs.
    ci = sorted(path.name for path in (ROOT / ".ci").iterdir() if path.name != "__pycache__")
    assert ci == ["run"], f".ci/ should hold only CI's script, not {ci}"
    package = ROOT / "tools" / "posenc_book"
    modules = {str(path.relative_to(package)) for path in package.rglob("*.py")}
    assert {"build.py", "execute.py", "colab.py", "handouts/strip.py", "handouts/checks.py"} <= modules
    assert (ROOT / "tools" / "pyproject.toml").is_file()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = readme.split("## Layout", 1)[-1] if "## Layout" in readme else readme
    assert re.search(r"^tools/ ", layout, re.MULTILINE), "README's layout section does not list tools/"
