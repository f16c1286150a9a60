"""Sphinx extension: one book, three editions.

Pages under ``book/<lang>/`` get ``<html lang="<lang>">`` and links to the same
page in the other editions, rendered by the ``lang-switch.html`` template in
the article header. Every other page (the landing page, search) keeps the
project language.
"""

from __future__ import annotations

EDITIONS = {"en": "English", "id": "Bahasa Indonesia", "ko": "한국어"}
# The switch's accessible name, in the language of the page it is on.
SWITCH_LABEL = {"en": "Read this page in", "id": "Baca halaman ini dalam", "ko": "이 페이지를 다른 언어로 읽기"}


def split_edition(pagename: str) -> tuple[str | None, str]:
    """Return ``(lang, rest)`` for ``book/<lang>/<rest>``, else ``(None, pagename)``."""
    parts = pagename.split("/", 2)
    if len(parts) == 3 and parts[0] == "book" and parts[1] in EDITIONS:
        return parts[1], parts[2]
    return None, pagename


def add_language_context(app, pagename, templatename, context, doctree):
    lang, rest = split_edition(pagename)
    if lang is None:
        return
    context["language"] = lang
    context["language_switch_label"] = SWITCH_LABEL[lang]
    context["language_links"] = [
        {"lang": other, "label": label, "url": context["pathto"](f"book/{other}/{rest}")}
        for other, label in EDITIONS.items()
        if other != lang and f"book/{other}/{rest}" in app.env.found_docs
    ]


def setup(app):
    app.connect("html-page-context", add_language_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
