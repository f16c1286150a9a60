"""Sphinx extension: one book, three editions.

Pages under ``book/<lang>/`` get ``<html lang="<lang>">``, the theme's own
words (navigation, "Exercise", "Proof", "Click to show", ...) in their
language, and links to the same page in the other editions, rendered by the
``lang-switch.html`` template in the article header. Every other page (the
landing page, search) keeps the project language.

Sphinx translates with one global catalog per build; this extension swaps the
catalogs before each edition page is read, resolved and rendered, so it needs
a serial build (Jupyter Book's default).
"""

from __future__ import annotations

import gettext
from importlib import resources

import sphinx.locale
from bs4 import BeautifulSoup
from docutils import nodes
from sphinx.builders.html._assets import _JavaScript
from sphinx.transforms.post_transforms import SphinxPostTransform

EDITIONS = {"en": "English", "id": "Bahasa Indonesia", "ko": "한국어"}
# The switch's accessible name, in the language of the page it is on.
SWITCH_LABEL = {
    "en": "Read this page in",
    "id": "Baca halaman ini dalam",
    "ko": "이 페이지를 다른 언어로 읽기",
}
# Where each extension used by the book keeps its message catalogs.
CATALOG_DIRS = {
    "sphinx": [("sphinx", "locale"), ("pydata_sphinx_theme", "locale")],
    "booktheme": [("sphinx_book_theme", "theme/sphinx_book_theme/static/locales")],
    "exercise": [("sphinx_exercise", "translations/locales")],
    "proof": [("sphinx_proof", "translations/locales")],
    "togglebutton": [("sphinx_togglebutton", "translations/locales")],
}
TOGGLE_LABEL = {
    "en": "Show or hide the chapters",
    "id": "Tampilkan atau sembunyikan bab",
    "ko": "장 목록 펼치기 또는 접기",
}
PROOF_WORD = {"en": "Proof", "id": "Bukti", "ko": "증명"}
TOGGLE_HINTS = {"toggleHintShow": "Click to show", "toggleHintHide": "Click to hide"}
# Figure and exercise captions ("Fig. 2.1"): numfig format -> (catalog, message).
NUMFIG_MESSAGES = {
    "figure": ("sphinx", "Fig. %s"),
    "table": ("sphinx", "Table %s"),
    "code-block": ("sphinx", "Listing %s"),
    "section": ("sphinx", "Section %s"),
    "exercise": ("exercise", "Exercise"),
}
# Theme words that no installed catalog translates into Indonesian or Korean, or translates badly
# (the theme's Korean renders "By" as a particle and "Launch" as a dictionary verb).
OWN_MESSAGES = {
    "id": {
        "Skip to main content": "Langsung ke konten utama",
        "Back to top": "Kembali ke atas",
        "Click to expand": "Klik untuk membuka",
        "Click to collapse": "Klik untuk menutup",
        "Breadcrumb": "Jejak navigasi",
        "Home": "Beranda",
        "On this page": "Di halaman ini",
        "previous page": "halaman sebelumnya",
        "next page": "halaman berikutnya",
        "Collapse Sidebar": "Ciutkan bilah samping",
        "Expand Sidebar": "Bentangkan bilah samping",
        "Section Navigation": "Navigasi bagian",
        "Color mode": "Mode warna",
        "Light": "Terang",
        "Dark": "Gelap",
        "System Settings": "Pengaturan sistem",
        "Site navigation": "Navigasi situs",
        "© Copyright %(copyright)s.": "© Hak cipta %(copyright)s.",
        "Copyright %(copyright)s": "Hak cipta %(copyright)s",
        "Fig. %s": "Gambar %s",
        "Link to this heading": "Tautan ke judul ini",
        "Link to this image": "Tautan ke gambar ini",
        "Link to this equation": "Tautan ke persamaan ini",
        "Contents": "Daftar isi",
        "Launch": "Jalankan",
        "Launch on": "Jalankan di",
    },
    "ko": {
        "Skip to main content": "본문으로 건너뛰기",
        "Back to top": "맨 위로",
        "Click to expand": "클릭하여 펼치기",
        "Click to collapse": "클릭하여 접기",
        "Breadcrumb": "이동 경로",
        "Home": "홈",
        "On this page": "이 페이지의 내용",
        "previous page": "이전 페이지",
        "next page": "다음 페이지",
        "Collapse Sidebar": "사이드바 접기",
        "Expand Sidebar": "사이드바 펼치기",
        "Section Navigation": "섹션 탐색",
        "Color mode": "색상 모드",
        "Light": "밝게",
        "Dark": "어둡게",
        "System Settings": "시스템 설정",
        "Site navigation": "사이트 탐색",
        "© Copyright %(copyright)s.": "© 저작권 %(copyright)s.",
        "Copyright %(copyright)s": "저작권 %(copyright)s",
        "Link to this heading": "이 제목으로 가는 링크",
        "Link to this image": "이 그림으로 가는 링크",
        "Link to this equation": "이 수식으로 가는 링크",
        "By": "지은이:",
        "Contents": "목차",
        "Fullscreen mode": "전체 화면으로 보기",
        "Launch": "실행",
        "Launch on": "실행:",
    },
}
# Per-page values of the theme's own settings and of the author line.
PAGE_WORDS = {
    "en": {
        "docstitle": "Positional Encoding, Tested",
        "theme_search_bar_text": "Search this book...",
        "author": "The posenc book contributors",
    },
    "id": {
        "docstitle": "Positional Encoding, Teruji",
        "theme_search_bar_text": "Cari di buku ini...",
        "author": "Para kontributor buku posenc",
    },
    "ko": {
        "docstitle": "검증하며 배우는 positional encoding",
        "theme_search_bar_text": "이 책에서 검색...",
        "author": "posenc 책 기여자들",
    },
}


class _Messages(gettext.NullTranslations):
    """A plain dictionary of messages, asked before the packages' catalogs."""

    def __init__(self, messages):
        super().__init__()
        self._messages = messages

    def gettext(self, message):
        if message in self._messages:
            return self._messages[message]
        return self._fallback.gettext(message) if self._fallback else message


def split_edition(pagename: str) -> tuple[str | None, str]:
    """Return ``(lang, rest)`` for ``book/<lang>/<rest>``, else ``(None, pagename)``."""
    parts = pagename.split("/", 2)
    if len(parts) == 3 and parts[0] == "book" and parts[1] in EDITIONS:
        return parts[1], parts[2]
    return None, pagename


def load_catalog(catalog: str, lang: str) -> gettext.NullTranslations:
    """The messages of ``catalog`` in ``lang``: this book's own words first, then every package's."""
    found = gettext.NullTranslations()
    for package, folder in reversed(CATALOG_DIRS[catalog]):
        localedir = resources.files(package).joinpath(folder)
        try:
            translation = gettext.translation(catalog, str(localedir), languages=[lang])
        except OSError:  # this package has no catalog for this language
            continue
        translation.add_fallback(found)
        found = translation
    own = _Messages(OWN_MESSAGES.get(lang, {}))
    own.add_fallback(found)
    return own


def prepare_catalogs(app):
    """Keep the build's own catalogs for its language and load the others."""
    app.langswitch_numfig = {}
    app.langswitch_catalogs = catalogs = {}
    for lang in EDITIONS:
        if lang == app.config.language:
            catalogs[lang] = {c: sphinx.locale.translators.get(("general", c)) for c in CATALOG_DIRS}
        else:
            catalogs[lang] = {c: load_catalog(c, lang) for c in CATALOG_DIRS}
        numfig = dict(app.config.numfig_format)
        for figtype, (catalog, message) in NUMFIG_MESSAGES.items():
            if figtype in numfig and lang != app.config.language:
                translated = catalogs[lang][catalog].gettext(message)
                numfig[figtype] = translated if "%s" in translated else f"{translated} %s"
        app.langswitch_numfig[lang] = numfig


def use_language(app, docname: str) -> str:
    """Switch every message catalog to the language of ``docname``; return it."""
    lang = split_edition(docname)[0] or app.config.language
    for catalog, translator in app.langswitch_catalogs[lang].items():
        if translator is not None:
            sphinx.locale.translators[("general", catalog)] = translator
    templates = getattr(app.builder, "templates", None)
    if templates is not None and hasattr(templates.environment, "install_gettext_translations"):
        templates.environment.install_gettext_translations(sphinx.locale.translators[("general", "sphinx")])
    return lang


class UseLanguageOfDocument(SphinxPostTransform):
    """Runs first among the post-transforms, which write titles like "Exercise 1"."""

    default_priority = 1

    def run(self, **kwargs):
        lang = use_language(self.app, self.env.docname)
        # Read by the HTML writer when it numbers figures and exercises.
        self.config.numfig_format = self.app.langswitch_numfig[lang]
        # sphinx-proof writes the English word into the text itself, where no catalog reaches it.
        for proof in self.document.findall(nodes.admonition):
            if "proof" in proof["classes"] and PROOF_WORD[lang] != "Proof":
                for text in proof.findall(nodes.Text):
                    if text.startswith("Proof. "):
                        text.parent.replace(text, nodes.Text(PROOF_WORD[lang] + text[len("Proof") :]))
                    break


def translate_toggle_hints(script_files, lang_catalogs):
    """Copies of the page's scripts, with the toggle button's hints in the page language."""
    hint = lang_catalogs["togglebutton"]
    translated = []
    for script in script_files:
        body = script.attributes.get("body", "")
        for variable, message in TOGGLE_HINTS.items():
            if body.startswith(f"let {variable} = "):
                text = hint.gettext(message).replace("'", "\\'")
                script = _JavaScript(None, priority=script.priority, body=f"let {variable} = '{text}';")
        translated.append(script)
    return translated


def number_from_one_in_each_edition(app, env):
    """Figures, exercises and theorems count from 1 in every chapter of every edition.

    Sphinx counts them per chapter number, and chapter 2 of each edition has the number 2, so without
    this the Korean chapter 2 would continue where the Indonesian one stopped ("Fig. 2.9").
    """
    for docname, by_type in env.toc_fignumbers.items():
        if split_edition(docname)[0] is None:
            continue
        for numbers in by_type.values():
            counters = {}
            for node_id, number in sorted(numbers.items(), key=lambda item: item[1]):
                chapter = number[:-1]
                counters[chapter] = counters.get(chapter, 0) + 1
                numbers[node_id] = (*chapter, counters[chapter])
    return []


def add_language_context(app, pagename, templatename, context, doctree):
    lang = use_language(app, pagename)
    edition, rest = split_edition(pagename)
    if edition is None:
        return
    context["language"] = lang
    # In place: the list is the builder's own, which extensions such as MathJax append to later
    # (Sphinx restores it before each page).
    context["script_files"][:] = translate_toggle_hints(
        context["script_files"], app.langswitch_catalogs[lang]
    )
    # Reading order runs through the editions one after another; stay inside this one.
    for neighbour in ("prev", "next"):
        if (context.get(neighbour) or {}).get("link", "").startswith("../"):
            context[neighbour] = None
    context["language_switch_label"] = SWITCH_LABEL[lang]
    context["language_links"] = [
        {"lang": other, "label": label, "url": context["pathto"](f"book/{other}/{rest}")}
        for other, label in EDITIONS.items()
        if other != lang and f"book/{other}/{rest}" in app.env.found_docs
    ]


def tidy_sidebar(app, pagename, templatename, context, doctree):
    """An edition's sidebar lists only that edition; every chapter toggle gets a name."""
    lang = split_edition(pagename)[0]
    generate = context.get("generate_toctree_html")
    if generate is None:
        return

    def generate_for_page(kind, *args, **kwargs):
        html = generate(kind, *args, **kwargs)
        if kind != "sidebar":
            return html
        # The theme hands back parsed HTML; parse it only if it is a string.
        soup = BeautifulSoup(html, "html.parser") if isinstance(html, str) else html
        if lang is not None:
            for caption in soup.select("p.caption"):
                if caption.get_text(strip=True) != EDITIONS[lang]:
                    part = caption.find_next_sibling("ul")
                    caption.decompose()
                    if part is not None:
                        part.decompose()
        # The theme's expand/collapse toggle is an icon only: give screen readers its name.
        for summary in soup.select("summary"):
            if not summary.get_text(strip=True) and not summary.get("aria-label"):
                summary["aria-label"] = TOGGLE_LABEL[lang or app.config.language]
        return str(soup) if isinstance(html, str) else soup

    context["generate_toctree_html"] = generate_for_page
    if lang is not None:
        # Here, not in add_language_context: the themes set these words between the two handlers.
        title = PAGE_WORDS[lang]["docstitle"]
        context.update(PAGE_WORDS[lang], titlesuffix=f" — {title}", root_title=title)
        context["theme_logo"] = {**(context.get("theme_logo") or {}), "text": title}


def setup(app):
    app.connect("builder-inited", prepare_catalogs)
    app.connect("source-read", lambda app, docname, source: use_language(app, docname))
    app.add_post_transform(UseLanguageOfDocument)
    # After Sphinx's own collector, which assigns the numbers.
    app.connect("env-get-updated", number_from_one_in_each_edition, priority=900)
    # Before the themes' handlers, which translate their button labels.
    app.connect("html-page-context", add_language_context, priority=100)
    # After the theme's handler, which defines generate_toctree_html.
    app.connect("html-page-context", tidy_sidebar, priority=900)
    return {"parallel_read_safe": False, "parallel_write_safe": False}
