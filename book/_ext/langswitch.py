"""Sphinx extension: what one edition of the book needs beyond Sphinx's own language support.

Each edition (en, id, ko) is its own Sphinx build with its own ``language`` (see tools/build_site.py), so
Sphinx and the themes already speak it: captions, numbering, search page, previous/next. This adds:

- the language switch: links to this page in the other editions (rendered by the ``lang-switch.html``
  template in the article header) and ``<link rel="alternate" hreflang>`` in the head;
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

# Words that no installed catalog translates into Indonesian or Korean, or translates badly (the
# theme's Korean renders "By" as a particle and "Launch" as a dictionary verb, its Indonesian
# previous/next as "sebelum"/"berikut"). The templates in book/_templates mark the theme's
# hard-coded English for translation, and it is translated here.
OWN_MESSAGES = {
    "id": {
        "Read this page in": "Baca halaman ini dalam",
        "Download this edition:": "Unduh edisi ini:",
        "Fig. %s": "Gambar %s",
        "Search this book...": "Cari di buku ini...",
        "Toggle hidden content": "Tampilkan atau sembunyikan isi",
        "Please activate JavaScript to enable the search functionality.": (
            "Aktifkan JavaScript agar pencarian dapat digunakan."
        ),
        "Show or hide the chapters": "Tampilkan atau sembunyikan bab",
        "Toggle primary sidebar": "Buka atau tutup bilah samping utama",
        "Toggle secondary sidebar": "Buka atau tutup bilah samping kedua",
        "Main": "Navigasi utama",
        "Page": "Isi halaman",
        "Launch interactive content": "Jalankan konten interaktif",
        "Version warning": "Peringatan versi",
        "logo": "(logo)",
        "Launch": "Jalankan",
        "Launch on": "Jalankan di",
        "previous": "Sebelumnya",
        "next": "Berikutnya",
        "previous page": "halaman sebelumnya",
        "next page": "halaman berikutnya",
        "Skip to main content": "Langsung ke konten utama",
        "Back to top": "Kembali ke atas",
        "Breadcrumb": "Jejak navigasi",
        "Home": "Beranda",
        "On this page": "Di halaman ini",
        "Contents": "Daftar isi",
        "Section Navigation": "Navigasi bagian",
        "Site navigation": "Navigasi situs",
        "Color mode": "Mode warna",
        "Light": "Terang",
        "Dark": "Gelap",
        "System Settings": "Pengaturan sistem",
        "Link to this heading": "Tautan ke judul ini",
        "Link to this image": "Tautan ke gambar ini",
        "Link to this equation": "Tautan ke persamaan ini",
        "Page not found": "Halaman tidak ditemukan",
        "The page you asked for is not in this edition of the book.": (
            "Halaman yang Anda cari tidak ada di edisi buku ini."
        ),
        "Go to the table of contents": "Buka daftar isi",
        "Search": "Cari",
        "Search this book": "Cari di buku ini",
        "Searching needs the site to be served over HTTP (make serve).": (
            "Pencarian hanya berjalan bila situs dilayani lewat HTTP (make serve)."
        ),
    },
    "ko": {
        "Read this page in": "이 페이지를 다른 언어로 읽기",
        "Download this edition:": "이 언어판 내려받기:",
        "Search this book...": "이 책에서 검색...",
        "Toggle hidden content": "숨긴 내용 펼치기/접기",
        "Solution to": "풀이",  # sphinx-exercise's catalog says 해답; the book says 풀이
        "Please activate JavaScript to enable the search functionality.": (
            "검색 기능을 쓰려면 JavaScript를 켜 주세요."
        ),
        "previous page": "이전 페이지",
        "next page": "다음 페이지",
        "Show or hide the chapters": "장 목록 펼치기 또는 접기",
        "Toggle primary sidebar": "왼쪽 사이드바 열기/닫기",
        "Toggle secondary sidebar": "오른쪽 사이드바 열기/닫기",
        "Main": "주 탐색",
        "Page": "페이지 목차",
        "Launch interactive content": "대화형 실행 환경 열기",
        "Version warning": "버전 경고",
        "logo": "로고",
        "By": "지은이:",
        "Launch": "실행",
        "Launch on": "실행:",
        "Skip to main content": "본문으로 건너뛰기",
        "Back to top": "맨 위로",
        "Breadcrumb": "이동 경로",
        "Home": "홈",
        "On this page": "이 페이지의 내용",
        "Contents": "목차",
        "Section Navigation": "섹션 탐색",
        "Site navigation": "사이트 탐색",
        "Color mode": "색상 모드",
        "Light": "밝게",
        "Dark": "어둡게",
        "System Settings": "시스템 설정",
        "Fullscreen mode": "전체 화면으로 보기",
        "Link to this heading": "이 제목으로 가는 링크",
        "Link to this image": "이 그림으로 가는 링크",
        "Link to this equation": "이 수식으로 가는 링크",
        "Page not found": "페이지를 찾을 수 없습니다",
        "The page you asked for is not in this edition of the book.": "찾으시는 페이지가 이 판에 없습니다.",
        "Go to the table of contents": "목차로 가기",
        "Search": "검색",
        "Search this book": "이 책에서 검색",
        "Searching needs the site to be served over HTTP (make serve).": (
            "검색은 사이트를 HTTP로 띄웠을 때만 동작합니다(make serve)."
        ),
    },
}
PROOF_WORD = {"id": "Bukti", "ko": "증명"}
# sphinx-copybutton's tooltips: its script knows en, es, de, fr, ru, zh-CN and it, and picks by <html lang>.
COPY_BUTTON = {
    "id": {"copy": "Salin", "copy_to_clipboard": "Salin ke papan klip", "copy_success": "Tersalin!",
           "copy_failure": "Gagal menyalin"},
    "ko": {"copy": "복사", "copy_to_clipboard": "클립보드에 복사", "copy_success": "복사했습니다!",
           "copy_failure": "복사하지 못했습니다"},
}  # fmt: skip
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


# Caption formats that Sphinx translates when the configuration is read (before the catalogs above).
NUMFIG_MESSAGES = {
    "figure": "Fig. %s",
    "table": "Table %s",
    "code-block": "Listing %s",
    "section": "Section %s",
}


def own_config_words(app, config):
    """Words that become settings before any catalog is read: caption formats and the search box.

    Sphinx's Indonesian catalog captions figures "Gambar. 2.1"; Jupyter Book sets the search box's
    placeholder in English.
    """
    messages = OWN_MESSAGES.get(config.language, {})
    own = {kind: messages[message] for kind, message in NUMFIG_MESSAGES.items() if message in messages}
    config.numfig_format = {**own, **config.numfig_format}
    options = config.html_theme_options
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
        word = PROOF_WORD.get(self.config.language)
        if word is None:
            return
        for proof in self.document.findall(nodes.admonition):
            if "proof" in proof["classes"]:
                for text in proof.findall(nodes.Text):
                    if text.startswith("Proof. "):
                        text.parent.replace(text, nodes.Text(word + text[len("Proof") :]))
                    break


def twin_pages(app, pagename: str) -> list[dict]:
    """This page in the other editions: every edition has the same files (tests/test_parity.py)."""
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
    context["language_switch_label"] = sphinx.locale.get_translation("sphinx")("Read this page in")
    context["language_links"] = links = twin_pages(app, pagename) if is_site(app) else []
    context["downloads"] = app.config.downloads if pagename == app.config.root_doc else {}
    context["metatags"] = context.get("metatags", "") + "".join(
        f'\n<link rel="alternate" hreflang="{link["lang"]}" href="{link["url"]}" />' for link in links
    )


def name_sidebar_toggles(app, pagename, templatename, context, doctree):
    """The theme's expand/collapse toggles in the sidebar are icons only: give screen readers a name."""
    generate = context.get("generate_toctree_html")
    if generate is None:
        return
    label = sphinx.locale.get_translation("sphinx")("Show or hide the chapters")

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
    """A 404 page in the edition's language (book/_templates/404.html)."""
    if not is_site(app):
        return
    yield "404", {"title": sphinx.locale.get_translation("sphinx")("Page not found")}, "404.html"


def translate_scripts(app, exception):
    """The words that the copy and toggle buttons' scripts hard-code, in the edition's language."""
    lang = app.config.language
    if exception is not None or lang not in COPY_BUTTON or not is_site(app):
        return
    entries = ", ".join(f"'{key}': '{value}'" for key, value in COPY_BUTTON[lang].items())
    toggle = OWN_MESSAGES[lang]["Toggle hidden content"]
    replacements = {
        "copybutton.js": ("const messages = {\n", f"const messages = {{\n  '{lang}': {{{entries}}},\n"),
        "togglebutton.js": ('aria-label="Toggle hidden content"', f'aria-label="{toggle}"'),
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
    # The edition's PDF and EPUB, where built: {"PDF": "downloads/posenc-en.pdf", ...} (tools/build_site.py).
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
