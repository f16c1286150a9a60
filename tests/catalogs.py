"""Checks of a package's gettext catalogs (``<package>/locale/<lang>.po``, read by posenc.words.Catalog),
shared by tests/posenc/test_words.py (posenc's ``plot.*``) and tests/posenc_book/test_words.py (the book's
build: ``site.*``, ``handout.*``, ``pdf.*``): the same keys, placeholders and translator comments in every
language, and the string literals of the code that use the keys."""

from __future__ import annotations

import ast
import string
import subprocess
from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po
from book_files import ROOT


@cache
def catalog(locale: Path, lang: str):
    with (locale / f"{lang}.po").open("rb") as file:
        return read_po(file, abort_invalid=True)


def entries(locale: Path, lang: str) -> dict:
    return {entry.id: entry for entry in catalog(locale, lang) if entry.id}


def format_fields(text: str) -> frozenset[str] | None:
    """The names of ``text``'s str.format fields; None if it is no valid template (a bare LaTeX brace)."""
    try:
        return frozenset(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)
    except ValueError:
        return None


def key_problems(locale: Path, lang: str) -> list[str]:
    """What is wrong with the keys of ``lang``'s catalog, against en.po's."""
    found, problems = entries(locale, lang), []
    if list(found) != list(entries(locale, "en")):
        problems.append("not the same keys, in the same order, as en.po")
    problems += [f"empty msgstr: {key}" for key, entry in found.items() if not entry.string]
    problems += [f"fuzzy: {key}" for key, entry in found.items() if entry.fuzzy]
    if catalog(locale, lang).obsolete:
        problems.append("obsolete (#~) messages")
    return problems


def placeholder_problems(locale: Path, lang: str) -> dict:
    english = entries(locale, "en")
    return {
        key: (format_fields(english[key].string), format_fields(entry.string))
        for key, entry in entries(locale, lang).items()
        if format_fields(entry.string) != format_fields(english[key].string)
    }


def stale_comments(locale: Path, lang: str) -> dict:
    """``#. en: <line>`` for each line of the English: the messages whose comments are not en.po's text."""
    english = entries(locale, "en")
    stale = {}
    for key, entry in entries(locale, lang).items():
        lines = [comment[len("en: ") :] for comment in entry.auto_comments if comment.startswith("en: ")]
        shown = "\n".join(lines)
        if shown != english[key].string:
            stale[key] = shown
    return stale


def tracked_python_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [ROOT / name for name in listed.stdout.split()]


@cache
def code_strings() -> tuple[frozenset[str], frozenset[str]]:
    """The string literals of the code outside tests/, and the groups it passes to ``messages``."""
    literals, groups = set(), set()
    for path in tracked_python_files():
        if path.relative_to(ROOT).parts[0] == "tests":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                literals.add(node.value)
            elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                if name == "messages" and isinstance(node.args[0].value, str):
                    groups.add(node.args[0].value)
    return frozenset(literals), frozenset(groups)


def used_by_name(key: str) -> bool:
    """A key is used when it is a string literal of the code; or when it is ``<group>.<name>`` for a
    group that the code passes to ``messages`` and a name that is a string literal of the code
    (``text["dim"]``)."""
    literals, groups = code_strings()
    group, _, name = key.rpartition(".")
    return key in literals or (group in groups and name in literals)
