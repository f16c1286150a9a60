"""``posenc`` as a package: its wheel and sdist build, pass ``twine check``, and install on their own.

The book imports ``posenc`` from the repository (``pip install -e .``), which hides a package that would
be broken anywhere else: a font, a data file or a translation left out of the wheel only shows once
someone installs it. These tests build the wheel and the sdist with ``python -m build --no-isolation``
(the backend comes from the pinned environment, so the build needs no network) from a copy of the
tracked files, so the source tree gets no ``build/`` or ``*.egg-info``. They check both with
``twine check --strict`` and check that each holds every tracked file under ``src/posenc``. Then the
wheel goes into a fresh virtual environment, with its dependencies from the package index at the
versions of requirements.txt (pip's cache makes this quick): alone, where it must install NumPy and nothing
else and name the extras its layers need, then with the ``plot`` extra, where a script draws a figure with
Korean labels, with warnings as errors: a missing Hangul glyph only warns.

Without network, the fresh environment cannot get its dependencies: then that one test skips, saying so,
except under CI=true, where it fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from book_files import ROOT

pytestmark = pytest.mark.slow  # builds the wheel and the sdist, installs the wheel in a fresh venv

ON_CI = os.environ.get("CI") == "true"
# The font the Korean figures need; the package must ship it whatever else changes under src/posenc.
FONT = "plot/fonts/NanumGothic.ttf"
FONT_LICENCE = "plot/fonts/OFL.txt"
# Run inside the fresh environment (python -I: no PYTHONPATH, no user site, not the script's folder).
# Prints posenc's file, then the PNG's size.
SCRIPT = """\
import sys
import warnings
from pathlib import Path

warnings.simplefilter("error")  # matplotlib warns, and only warns, when a glyph is missing from the fonts
import posenc

assert "torch" not in sys.modules, "import posenc imported torch"
import matplotlib

matplotlib.use("Agg")
from PIL import Image

from posenc import plot

assert "torch" not in sys.modules, "import posenc.plot imported torch"
fig = plot.heatmap(lang="ko")
fig.savefig(sys.argv[1], dpi=100)
print(Path(posenc.__file__).resolve())
with Image.open(sys.argv[1]) as image:
    print(*image.size)
"""


# Run inside the fresh environment after `pip install posenc` without extras: the distributions it holds,
# then what importing each layer says.
BARE_SCRIPT = """\
from importlib import metadata

import numpy as np

import posenc

assert posenc.apply_rope(np.ones((2, 4)), positions=[0, 1]).shape == (2, 4)
print(*sorted(dist.metadata["Name"].lower() for dist in metadata.distributions()))
for layer in ("posenc.nn", "posenc.plot"):
    try:
        __import__(layer)
    except ModuleNotFoundError as error:
        print(error)
"""


def tracked_package_files() -> list[str]:
    """The files git tracks under ``src/posenc``, relative to it (``fonts/NanumGothic.ttf``, ...)."""
    listing = subprocess.run(
        ["git", "ls-files", "-z", "src/posenc"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    base = "src/posenc/"
    # A file deleted in the working tree but not yet in git's index is no longer part of the package.
    return sorted(name[len(base) :] for name in listing.split("\0") if name and (ROOT / name).is_file())


def clean_env() -> dict[str, str]:
    """This process's environment without PYTHONPATH, which points at the repository's src/."""
    return {key: value for key, value in os.environ.items() if key not in {"PYTHONPATH", "PYTHONHOME"}}


def run(command, **options) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, env=clean_env(), **options)


def output(done: subprocess.CompletedProcess) -> str:
    return f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> dict[str, Path]:
    """The wheel and the sdist, built from a copy of the tracked files (working-tree contents)."""
    tmp = tmp_path_factory.mktemp("package")
    source = tmp / "source"
    listing = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True)
    for name in listing.stdout.split("\0"):
        if name and (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    outdir = tmp / "dist"
    command = [sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", str(outdir)]
    done = run(command, cwd=source, timeout=600)
    assert done.returncode == 0, output(done)
    wheels, sdists = sorted(outdir.glob("*.whl")), sorted(outdir.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(path.name for path in outdir.iterdir())
    return {"wheel": wheels[0], "sdist": sdists[0]}


def test_the_package_ships_the_korean_font_and_its_licence():
    # Guards the checks below: they compare the wheel with git's list, which must hold the font.
    tracked = tracked_package_files()
    assert FONT in tracked and FONT_LICENCE in tracked, tracked


def test_twine_check_strict_accepts_the_wheel_and_the_sdist(dists):
    done = run([sys.executable, "-m", "twine", "check", "--strict", dists["wheel"], dists["sdist"]])
    assert done.returncode == 0, output(done)
    assert done.stdout.count("PASSED") == 2, output(done)


def test_the_long_description_is_the_readme_as_markdown(dists):
    with zipfile.ZipFile(dists["wheel"]) as wheel:
        (metadata,) = [name for name in wheel.namelist() if name.endswith(".dist-info/METADATA")]
        text = wheel.read(metadata).decode("utf-8")
    headers, _, description = text.partition("\n\n")
    assert "Description-Content-Type: text/markdown" in headers.splitlines()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert description.strip() == readme.strip()


def test_the_wheel_holds_every_tracked_file_of_the_package_and_the_licences(dists):
    with zipfile.ZipFile(dists["wheel"]) as wheel:
        names = set(wheel.namelist())
    missing = [name for name in tracked_package_files() if f"posenc/{name}" not in names]
    assert not missing, f"the wheel lacks {missing}: list them in pyproject's [tool.setuptools.package-data]"
    licences = {Path(name).name for name in names if ".dist-info/licenses/" in name}
    assert {"LICENSE", "OFL.txt"} <= licences, sorted(licences)


def test_the_wheel_holds_the_library_alone(dists):
    # posenc is the readers' library: the book's build (posenc_book, tools/) and its words stay out.
    with zipfile.ZipFile(dists["wheel"]) as wheel:
        names = wheel.namelist()
        catalogs = {name: wheel.read(name).decode("utf-8") for name in names if name.endswith(".po")}
    tops = {name.split("/")[0] for name in names}
    assert {top for top in tops if not top.endswith(".dist-info")} == {"posenc"}, sorted(tops)
    # The figures' words, and the chapters' printed words (posenc.words.translator) that Colab needs.
    figures = {name: text for name, text in catalogs.items() if "/cells/" not in name}
    assert sorted(figures) == [f"posenc/locale/{lang}.po" for lang in ("en", "id", "ko")]
    cells = [name for name in catalogs if "/cells/" in name]
    assert cells and all(name.endswith((".id.po", ".ko.po")) for name in cells), cells
    msgids = [line for text in figures.values() for line in text.splitlines() if line.startswith("msgid ")]
    keys = {line.split('"')[1] for line in msgids} - {""}
    assert {key.split(".")[0] for key in keys} == {"plot"}, sorted(keys)[:10]


def test_the_sdist_holds_every_tracked_file_of_the_package_and_the_licences(dists):
    with tarfile.open(dists["sdist"]) as sdist:
        names = set(sdist.getnames())
    top = dists["sdist"].name.removesuffix(".tar.gz")
    expected = [f"src/posenc/{name}" for name in tracked_package_files()]
    expected += ["LICENSE", "README.md", "pyproject.toml", "PKG-INFO"]
    missing = [name for name in expected if f"{top}/{name}" not in names]
    assert not missing, f"the sdist lacks {missing}"


def index_unreachable() -> str:
    """Why pip cannot reach the package index from here, or "" if it can."""
    probe = ["index", "versions", "numpy", "--retries", "1", "--timeout", "15"]
    done = run([sys.executable, "-m", "pip", *probe])
    if done.returncode == 0:
        return ""
    lines = done.stderr.strip().splitlines() or ["no answer"]
    # pip's retry warning names the connection error (credentials in the address come out as ****).
    return next((line for line in lines if "connection" in line.lower()), lines[-1])


def pinned_constraints(path: Path) -> Path:
    """requirements.txt's pins as a constraints file (pip refuses ``-e .`` there)."""
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    pins = [line.split("#", 1)[0].strip() for line in lines]
    pins = [pin for pin in pins if pin and not pin.startswith("-")]
    path.write_text("\n".join(pins) + "\n", encoding="utf-8")
    return path


def test_the_wheel_installs_in_a_fresh_venv_and_draws_korean_labels(dists, tmp_path):
    venv = tmp_path / "venv"
    # No pip inside (ensurepip costs seconds): this environment's pip installs into it (pip --python).
    done = run([sys.executable, "-m", "venv", "--without-pip", venv], timeout=300)
    assert done.returncode == 0, output(done)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    # --no-compile: byte-compiling every module of matplotlib, plotly and numpy would double pip's time,
    # for a script that imports a few of them.
    install = [sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-compile"]
    install += ["--disable-pip-version-check", "--no-input"]
    install += ["-c", pinned_constraints(tmp_path / "constraints.txt")]
    # First the library alone, then with the figures' extra.
    for extras in ("", "[plot]"):
        done = run([*install, f"{dists['wheel']}{extras}"], timeout=900)
        if done.returncode != 0:
            reason = "" if ON_CI else index_unreachable()
            if reason:
                pytest.skip(
                    f"pip cannot install posenc's dependencies: the package index is unreachable ({reason})"
                )
            pytest.fail(f"pip could not install the wheel in a fresh venv:\n{output(done)}")
        if not extras:
            (tmp_path / "bare.py").write_text(BARE_SCRIPT, encoding="utf-8")
            done = run([python, "-I", tmp_path / "bare.py"], cwd=tmp_path, timeout=600)
            assert done.returncode == 0, output(done)
            needs = "needs matplotlib, plotly, PIL, babel"
            assert done.stdout.splitlines() == [
                "numpy posenc",
                "posenc.nn needs torch (not installed): pip install 'posenc[torch]'",
                f"posenc.plot {needs} (not installed): pip install 'posenc[plot]'",
            ], done.stdout

    script = tmp_path / "draw.py"
    script.write_text(SCRIPT, encoding="utf-8")
    png = tmp_path / "heatmap-ko.png"
    # A matplotlib configuration folder of its own: a fresh font cache, as on a reader's first import.
    env = {**clean_env(), "MPLCONFIGDIR": str(tmp_path / "mplconfig"), "MPLBACKEND": "Agg"}
    done = subprocess.run(
        [python, "-I", script, png], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, output(done)
    installed, size = done.stdout.strip().splitlines()[-2:]
    assert Path(installed).is_relative_to(venv.resolve()), f"posenc came from {installed}, not the fresh venv"
    assert not Path(installed).is_relative_to(ROOT), installed
    # heatmap's figsize (8, 4) in inches at 100 dpi.
    assert size == "800 400", size
