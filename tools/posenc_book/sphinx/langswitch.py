"""Sphinx extension: what one edition of the book needs beyond Sphinx's own language support.

Each edition (en, id, ko) is its own Sphinx build with its own ``language`` (see posenc_book.build), so
Sphinx and the themes already speak it: captions, numbering, search page, previous/next. This adds:

- the language switch: a menu of this page in every edition, the current one marked (rendered by the
  ``lang-switch.html`` template in the article header), and ``<link rel="alternate" hreflang>`` to the
  other editions in the head;
- the words no installed catalog translates, or translates badly, asked before the catalogs;
- "Proof." in the edition's language (sphinx-proof writes the English word into the text itself);
- a name for the sidebar's icon-only expand buttons, and the copy button's words in id and ko;
- a 404 page in the edition's language.
"""

from __future__ import annotations

import gettext
from pathlib import Path

import sphinx.locale
from bs4 import BeautifulSoup
from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

from posenc.words import LANGUAGES
from posenc_book.words import message, messages

# The language the installed packages' messages, and so the book's message keys' English texts, are in.
SOURCE_LANGUAGE = "en"
# Words that no installed catalog translates into Indonesian or Korean, or translates badly (the
# theme's Korean renders "By" as a particle and "Launch" as a dictionary verb, its Indonesian
# previous/next as "sebelum"/"berikut"): the messages ``site.*`` of posenc_book/locale/<lang>.po, by the
# English text that the packages and the templates ask for. The templates (posenc_book/templates) mark the
# theme's hard-coded English for translation, and it is translated here.
OWN_MESSAGES = {
    lang: {messages("site", SOURCE_LANGUAGE)[name]: text for name, text in messages("site", lang).items()}
    for lang in LANGUAGES
    if lang != SOURCE_LANGUAGE
}
# sphinx-copybutton's tooltips: its script knows en, es, de, fr, ru, zh-CN and it, and picks by <html lang>.
# These are the names of its messages, in the order of its script.
COPY_BUTTON = ("copy", "copy_to_clipboard", "copy_success", "copy_failure")
CATALOGS = ("sphinx", "booktheme", "exercise", "proof", "togglebutton")


class _Messages(gettext.NullTranslations):
    """A plain dictionary of messages, asked before the packages' catalogs."""

    def __init__(self, messages, fallback):
        super().__init__()
        self._messages = messages
        if fallback is not None:
            self.add_fallback(fallback)

    def gettext(self, message):
        if message in self._messages:
            return self._messages[message]
        return self._fallback.gettext(message) if self._fallback else message


def own_config_words(app, config):
    """Words that become settings before any catalog is read: caption formats and the search box.

    Sphinx's Indonesian catalog captions figures "Gambar. 2.1"; Jupyter Book sets the search box's
    placeholder in English.
    """
    lang = config.language
    if lang not in OWN_MESSAGES:
        return
    # Of the caption formats that Sphinx translates when the configuration is read (before the
    # catalogs), the figure's alone is the book's own.
    config.numfig_format = {"figure": message("site.figure_number", lang), **config.numfig_format}
    options = config.html_theme_options
    messages = OWN_MESSAGES[lang]
    if options.get("search_bar_text") in messages:
        config.html_theme_options = {**options, "search_bar_text": messages[options["search_bar_text"]]}


def own_words_first(app):
    """Put this book's words in front of every catalog of the build's language."""
    messages = OWN_MESSAGES.get(app.config.language, {})
    for catalog in CATALOGS:
        key = ("general", catalog)
        sphinx.locale.translators[key] = _Messages(messages, sphinx.locale.translators.get(key))
    # The templates were given the catalog when the builder started: give them the new one.
    templates = getattr(app.builder, "templates", None)
    if templates is not None and hasattr(templates.environment, "install_gettext_translations"):
        templates.environment.install_gettext_translations(sphinx.locale.translators[("general", "sphinx")])


class ProofInTheEditionLanguage(SphinxPostTransform):
    """sphinx-proof writes "Proof. " into the text itself, where no catalog reaches it."""

    default_priority = 1

    def run(self, **kwargs):
        if self.config.language not in OWN_MESSAGES:
            return
        english = message("site.text.proof", SOURCE_LANGUAGE)
        word = message("site.text.proof", self.config.language)
        for proof in self.document.findall(nodes.admonition):
            if "proof" in proof["classes"]:
                for text in proof.findall(nodes.Text):
                    if text.startswith(f"{english}. "):
                        text.parent.replace(text, nodes.Text(word + text[len(english) :]))
                    break


def twin_pages(app, pagename: str) -> list[dict]:
    """This page in the other editions: every edition has the same files (tests/book/test_parity.py)."""
    lang = app.config.language
    source_root = Path(app.srcdir).parent
    pathto = f"{'../' * pagename.count('/')}../"
    has_source = pagename in app.env.found_docs  # search, genindex and 404 exist in every edition
    twins = []
    for other, words in app.config.editions.items():
        if other == lang:
            continue
        if has_source and not any((source_root / other).glob(f"{pagename}.*")):
            continue
        twins.append({"lang": other, "label": words["name"], "url": f"{pathto}{other}/{pagename}.html"})
    return twins


def language_menu(app, pagename: str, twins: list[dict]) -> list[dict]:
    """Every edition of this page in the editions' order, this one with ``current: True``.

    The switch names the edition the reader is in (its menu button), so the list holds it too;
    without twins there is no menu.
    """
    if not twins:
        return []
    lang = app.config.language
    here = {
        "lang": lang,
        "label": app.config.editions.get(lang, {}).get("name", lang),
        "url": f"{'../' * pagename.count('/')}../{lang}/{pagename}.html",
        "current": True,
    }
    by_lang = {twin["lang"]: {**twin, "current": False} for twin in twins}
    return [
        here if other == lang else by_lang[other]
        for other in app.config.editions
        if other in by_lang or other == lang
    ]


def note_twin_sources(app, doctree):
    """Make a page depend on its twins' sources, so that its switch links follow when one appears.

    Sphinx rebuilds a page when a noted dependency changes or is missing, and knows nothing else of
    the other editions' folders: without this, an incremental build keeps a page without the switch
    link to a twin written after it.
    """
    suffix = Path(app.env.doc2path(app.env.docname)).suffix
    for other in app.config.editions:
        if other != app.config.language:
            app.env.note_dependency(str(Path(app.srcdir).parent / other / f"{app.env.docname}{suffix}"))


def add_language_context(app, pagename, templatename, context, doctree):
    context["language_switch_label"] = message("site.language_switch", app.config.language)
    context["language_links"] = links = twin_pages(app, pagename) if is_site(app) else []
    context["language_menu"] = language_menu(app, pagename, links)
    context["downloads"] = app.config.downloads if pagename == app.config.root_doc else {}
    context["metatags"] = context.get("metatags", "") + "".join(
        f'\n<link rel="alternate" hreflang="{link["lang"]}" href="{link["url"]}" />' for link in links
    )


def name_sidebar_toggles(app, pagename, templatename, context, doctree):
    """The theme's expand/collapse toggles in the sidebar are icons only: give screen readers a name."""
    generate = context.get("generate_toctree_html")
    if generate is None:
        return
    label = message("site.sidebar_toggle", app.config.language)

    def generate_named(kind, *args, **kwargs):
        html = generate(kind, *args, **kwargs)
        if kind != "sidebar":
            return html
        soup = BeautifulSoup(html, "html.parser") if isinstance(html, str) else html
        for summary in soup.select("summary"):
            if not summary.get_text(strip=True) and not summary.get("aria-label"):
                summary["aria-label"] = label
        return str(soup) if isinstance(html, str) else soup

    context["generate_toctree_html"] = generate_named


def is_site(app) -> bool:
    """Whether this build writes the web site, not the PDF (LaTeX) or the EPUB."""
    return app.builder.format == "html" and app.builder.name != "epub"


def not_found_page(app):
    """A 404 page in the edition's language (posenc_book/templates/404.html)."""
    if not is_site(app):
        return
    yield "404", {"title": message("site.not_found_title", app.config.language)}, "404.html"


def translate_scripts(app, exception):
    """The words that the copy and toggle buttons' scripts hard-code, in the edition's language."""
    lang = app.config.language
    if exception is not None or lang not in OWN_MESSAGES or not is_site(app):
        return
    words = messages("site.copybutton", lang)
    entries = ", ".join(f"'{name}': '{words[name]}'" for name in COPY_BUTTON)
    toggle = [message("site.toggle_hidden", language) for language in (SOURCE_LANGUAGE, lang)]
    replacements = {
        "copybutton.js": ("const messages = {\n", f"const messages = {{\n  '{lang}': {{{entries}}},\n"),
        "togglebutton.js": tuple(f'aria-label="{text}"' for text in toggle),
    }
    for name, (old, new) in replacements.items():
        script = Path(app.outdir) / "_static" / name
        text = script.read_text(encoding="utf-8")
        if new in text:  # Sphinx keeps a static file it copied in an earlier build
            continue
        if old not in text:  # an update of the extension changed its script: look at it again
            raise RuntimeError(f"{script}: {old.strip()!r} not found, so its words stay English")
        script.write_text(text.replace(old, new, 1), encoding="utf-8")


def setup(app):
    app.add_config_value("editions", {}, "html", types=[dict])
    # The edition's PDF and EPUB, where built: {"PDF": "downloads/posenc-en.pdf", ...} (posenc_book.build).
    app.add_config_value("downloads", {}, "html", types=[dict])
    # Before Sphinx's own handler (priority 800), which fills in the formats it is not given.
    app.connect("config-inited", own_config_words, priority=100)
    # After the themes and extensions have loaded their catalogs and set up the templates.
    app.connect("builder-inited", own_words_first, priority=900)
    app.add_post_transform(ProofInTheEditionLanguage)
    app.connect("doctree-read", note_twin_sources)
    app.connect("html-page-context", add_language_context)
    # After the theme's handler, which defines generate_toctree_html.
    app.connect("html-page-context", name_sidebar_toggles, priority=900)
    app.connect("html-collect-pages", not_found_page)
    app.connect("build-finished", translate_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
