"""The folders of the repository that the build reads and writes.

posenc_book is installed editable (``-e ./tools`` in requirements.txt), so this file stays in the
repository and its root is two folders up.
"""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
BUILD = ROOT / "_build"
SITE = BUILD / "html"
PACKAGE = Path(__file__).resolve().parent
TEMPLATES = PACKAGE / "templates"

if not (ROOT / "_config.yml").is_file() or not BOOK.is_dir():
    raise ImportError(
        f"posenc_book runs from the book's repository, but {ROOT} holds no _config.yml and book/: install it"
        " editable, `pip install -e ./tools` (requirements.txt does)"
    )


def editions(config: dict | None = None) -> dict[str, dict]:
    """The editions of _config.yml (``sphinx.config.editions``), in its order: language -> its words.

    ``config`` is the parsed _config.yml, read from the repository when not given.
    """
    if config is None:
        config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    return config["sphinx"]["config"]["editions"]
