"""posenc's layers, as .importlinter declares them, can break: `make lint` runs `lint-imports` on the real
tree, and this runs it on a copy where a module of the core imports the torch layer."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(root: Path, package_dir: Path) -> subprocess.CompletedProcess:
    # PYTHONPATH first: import-linter (grimp) finds the package to read by importing it.
    env = {"PYTHONPATH": str(package_dir), "PATH": "/usr/bin:/bin"}
    command = [str(LINT_IMPORTS), "--config", str(root / ".importlinter"), "--no-cache"]
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=300)


def test_a_core_module_that_imports_the_torch_layer_breaks_a_contract(tmp_path):
    shutil.copytree(
        ROOT / "src" / "posenc", tmp_path / "src" / "posenc", ignore=shutil.ignore_patterns("*.pyc")
    )
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    report = tmp_path / "src" / "posenc" / "report.py"
    report.write_text(report.read_text(encoding="utf-8") + "\nimport posenc.nn  # noqa\n", encoding="utf-8")
    done = lint_imports(tmp_path, tmp_path / "src")
    assert done.returncode == 1, done.stdout[-3000:]
    # Both the layers and the core's ban on torch break: the core now reaches torch through posenc.nn.
    assert "2 broken" in done.stdout and "posenc.report -> posenc.nn" in done.stdout, done.stdout[-3000:]
    assert "posenc.report is not allowed to import posenc.nn" in done.stdout, done.stdout[-3000:]
