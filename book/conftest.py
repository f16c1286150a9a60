"""nbval over the editions (`make test`): every English notebook, and an Indonesian or
Korean one only where the English run does not already prove it (tests/nbval_twins.py):
where its stored outputs differ."""

from __future__ import annotations

from pathlib import Path

from nbval_twins import proven_by_english

BOOK = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    proven: dict[Path, bool] = {}
    kept, left_out = [], []
    for item in items:
        path = Path(str(item.path)).resolve()
        lang = path.parent.name
        if path.suffix != ".ipynb" or path.parent.parent != BOOK or lang == "en":
            kept.append(item)
            continue
        if path not in proven:
            english = BOOK / "en" / path.name
            proven[path] = english.is_file() and proven_by_english(path, english)
        (left_out if proven[path] else kept).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept
