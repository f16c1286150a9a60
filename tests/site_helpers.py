"""Helpers for tests/site/test_site.py: serve the built site, drive Chromium, judge what it shows.

Every ``*_problems`` function takes plain data (a :class:`PageReport`, a folder) and returns a list of
problems, one message each, empty when all is well. The tests of the real site and the tests of
deliberately broken copies of it (which prove that each check can fail) call the same functions.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path, PurePosixPath
from urllib.parse import quote, unquote, urlsplit

import pytest
import yaml
from book_files import ROOT

TOC = ROOT / "_toc.yml"
# `make book` builds into _build/html; POSENC_SITE points the tests at another build.
SITE = Path(os.environ.get("POSENC_SITE", ROOT / "_build" / "html"))
SCREENSHOTS = SITE.parent / "screenshots"

CHROMIUM = Path("/usr/bin/chromium")
HOST = "127.0.0.1"
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    # Belt and braces behind the request routing: no name but 127.0.0.1 resolves at all.
    f"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE {HOST}",
]

EDITION = re.compile(r"^book/(?P<lang>[a-z]{2,3})/(?P<rest>.+)$")
LANDING_LANGUAGE = "en"
# A Hangul-only probe (no space, no Latin): every glyph of it must come from a font with Hangul.
HANGUL_PROBE = "회전행렬"

# Console errors that cannot be avoided, each with the reason. Matched with re.search.
# None today: the favicon 404, the theme's "invalid theme mode" and sphinx-thebe's doubled
# `const THEBE_JS_URL` were fixed at the source (_config.yml, posenc_book.sphinx.script_dedupe).
ALLOWED_CONSOLE_ERRORS: dict[str, str] = {}
# What a page's interactive figure may add to its first visit: the figure's script and CSS, and the
# figure itself (its JSON and PNG, inline). plotly.js (1,191,749 bytes) is not part of it: the figure's
# script loads it only when the figure comes near the screen (book/_static/posenc-figures.js).
# tests/site/test_interactive_site.py measures it.
INTERACTIVE_ALLOWANCE = 400_000

# ------------------------------------------------------------------------------------------------
# The book's pages


def toc_docnames(toc: Path = TOC) -> list[str]:
    """Every page of the table of contents, root first, in reading order."""
    data = yaml.safe_load(toc.read_text(encoding="utf-8"))
    names = [_docname(data["root"])]

    def walk(entries):
        for entry in entries or []:
            if "glob" in entry:
                raise ValueError(f"{toc}: glob entries are not supported by tests/site_helpers.py")
            if "file" in entry:
                names.append(_docname(entry["file"]))
            walk(entry.get("sections"))

    for part in data.get("parts") or []:
        walk(part.get("chapters"))
    walk(data.get("chapters"))
    walk(data.get("sections"))
    return names


# Pages every edition's build writes besides those of the TOC.
GENERATED_PAGES = ("search", "genindex", "404")


def site_docnames(toc: Path = TOC) -> list[str]:
    """Every page a reader can land on: the TOC's, then each edition's search, index and 404 pages."""
    names = toc_docnames(toc)
    return names + [f"book/{lang}/{page}" for lang in editions(names) for page in GENERATED_PAGES]


def _docname(file: str) -> str:
    return re.sub(r"\.(md|ipynb|html)$", "", file.strip("/"))


def site_path(docname: str) -> str:
    """Where the build writes a page: book/<lang>/<rest> -> <lang>/<rest>.html; landing: index.html."""
    match = EDITION.match(docname)
    return f"{match['lang']}/{match['rest']}.html" if match else "index.html"


def page_language(docname: str) -> str:
    """The language a page is written in, from its path: book/<lang>/... or the landing page."""
    match = EDITION.match(docname)
    return match["lang"] if match else LANDING_LANGUAGE


def editions(docnames: list[str]) -> list[str]:
    """The languages that have at least one page, in order of first appearance."""
    return list(dict.fromkeys(m["lang"] for name in docnames if (m := EDITION.match(name))))


def showcase_pages(docnames: list[str]) -> list[str]:
    """The landing page and one chapter per edition (its first numbered chapter, else its first page)."""
    pages = [docnames[0]]
    for lang in editions(docnames):
        own = [name for name in docnames if page_language(name) == lang and EDITION.match(name)]
        numbered = [name for name in own if re.match(r"\d", PurePosixPath(name).name)]
        pages.append((numbered or own)[0])
    return pages


def screenshot_name(docname: str) -> str:
    match = EDITION.match(docname)
    return f"{match['lang']}-{match['rest'].replace('/', '-')}.png" if match else "landing.png"


def docname_of_url(url: str, base_url: str) -> str | None:
    """The docname an URL on the local server points to (``<lang>/x.html`` -> ``book/<lang>/x``), or None."""
    if not url.startswith(base_url):
        return None
    path = unquote(urlsplit(url).path)[len(urlsplit(base_url).path) :]
    if path == "" or path.endswith("/"):
        path += "index.html"
    path = re.sub(r"\.html$", "", path)
    return "book/index" if path == "index" else f"book/{path}"


# ------------------------------------------------------------------------------------------------
# Serving the site on 127.0.0.1


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass

    def end_headers(self):
        # One server per test module and port: let the browser reuse _static/ without revalidating.
        self.send_header("Cache-Control", "max-age=3600")
        super().end_headers()


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # The browser closing a connection early (a cancelled favicon, a navigation) is not an error.
        pass


@contextlib.contextmanager
def serve(directory: Path, handler_class: type[SimpleHTTPRequestHandler] = _QuietHandler) -> Iterator[str]:
    """Serve ``directory`` on a free port of 127.0.0.1 with ``handler_class``; yield the base URL, ending
    in '/'."""
    handler = functools.partial(handler_class, directory=str(directory))
    server = _QuietServer((HOST, 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        yield f"http://{HOST}:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# ------------------------------------------------------------------------------------------------
# Visiting a page in Chromium


@dataclass
class PageReport:
    """What a reader's browser met on one page."""

    docname: str
    url: str
    base_url: str
    lang: str | None = None
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    http_errors: list[str] = field(default_factory=list)
    blocked_requests: list[str] = field(default_factory=list)
    visit_errors: list[str] = field(default_factory=list)
    mathjax_scripts: list[str] = field(default_factory=list)
    math_total: int = 0
    math_unrendered: list[str] = field(default_factory=list)
    math_errors: list[str] = field(default_factory=list)
    images: list[dict] = field(default_factory=list)
    switch_links: list[dict] = field(default_factory=list)
    hangul: dict | None = None
    axe_violations: list[dict] | None = None
    ui_strings: list[str] = field(default_factory=list)
    screenshot: Path | None = None
    # At each phone width (px): how far the page scrolls sideways, and how the article breaks its words.
    phone: dict[int, dict] = field(default_factory=dict)


COLLECT_JS = """
async () => {
  const images = [...document.images];
  for (const img of images) if (img.loading === 'lazy') img.loading = 'eager';
  await Promise.all(images.map(img => img.complete ? null : new Promise(done => {
    img.addEventListener('load', done); img.addEventListener('error', done); setTimeout(done, 10000);
  })));
  const math = [...document.querySelectorAll('.math')];
  return {
    lang: document.documentElement.getAttribute('lang'),
    mathjaxScripts: [...document.scripts].filter(s => /mathjax/i.test(s.src)).map(s => s.src),
    mathTotal: math.length,
    // Typeset, with the MathML that screen readers read.
    mathUnrendered: math.filter(m => !m.querySelector('mjx-container mjx-assistive-mml > math'))
                        .map(m => m.textContent.trim().slice(0, 60)),
    mathErrors: [...document.querySelectorAll('mjx-merror')]
                    .map(e => e.getAttribute('data-mjx-error') || e.textContent.slice(0, 60)),
    images: images.map(img => ({
      src: img.currentSrc || img.getAttribute('src') || '', alt: img.getAttribute('alt'),
      width: img.naturalWidth, height: img.naturalHeight})),
    switchLinks: [...document.querySelectorAll('a.lang-switch')].map(a => ({
      hreflang: a.getAttribute('hreflang'), href: a.href, text: a.textContent.trim()})),
  };
}
"""

# The words of the page's interface: every accessible name and tooltip (alt, aria-label, title,
# placeholder, the copy button's data-tooltip) and every text outside the article (header, sidebars,
# footer, previous/next), plus the article's own interface words (captions, admonition titles,
# buttons, toggles). Code, outputs and math are left out.
UI_STRINGS_JS = """
() => {
  const skip = 'script, style, template, noscript, pre, code, .highlight, .cell_output, .output, .math, '
    + 'mjx-container';
  const found = [];
  // With JavaScript on, a <noscript> holds its markup as text: what a reader without it would read.
  for (const el of document.querySelectorAll('noscript')) {
    const text = el.textContent.replace(/<[^>]*>/g, ' ').replace(/\\s+/g, ' ').trim();
    if (text) found.push(text);
  }
  for (const el of document.querySelectorAll('[alt], [aria-label], [title], [placeholder], [data-tooltip]')) {
    if (el.closest(skip)) continue;
    for (const name of ['alt', 'aria-label', 'title', 'placeholder', 'data-tooltip']) {
      const value = el.getAttribute(name);
      if (value && value.trim()) found.push(`${name}="${value.trim()}"`);
    }
  }
  const article = document.querySelector('article.bd-article');
  const ui = '.caption-number, .admonition-title, summary, button, .sd-summary-title, .toggle-button';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement, text = node.data.trim();
    if (!text || !parent || parent.closest(skip)) continue;
    if (article && article.contains(parent) && !parent.closest(ui)) continue;
    found.push(text);
  }
  found.push(`<title> ${document.title}`);
  return found;
}
"""

# Put a Hangul-only span inside the first element that shows Hangul (in the article if it has any),
# so that it inherits the fonts a reader's Korean text gets there. Returns that element's tag or null.
HANGUL_PROBE_JS = """
async (probeText) => {
  const hangul = /[\\uac00-\\ud7a3]/;
  for (const scope of [document.querySelector('main'), document.body]) {
    if (!scope) continue;
    const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!hangul.test(node.data) || !parent || parent.closest('script, style, noscript')) continue;
      // Not displayed, or laid out but not drawn (the closed edition menu, a <details>: content-visibility)
      if (!parent.getClientRects().length || !parent.checkVisibility()) continue;
      const probe = document.createElement('span');
      probe.setAttribute('data-hangul-probe', '');
      probe.textContent = probeText;
      parent.appendChild(probe);
      // Laid out and painted before Chromium is asked which fonts drew it: on a loaded machine the
      // DevTools query could come first and find no font at all (0 of 4 glyphs, no fallback either).
      await document.fonts.ready;
      await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
      return parent.tagName.toLowerCase() + (parent.className ? '.' + parent.className : '');
    }
  }
  return null;
}
"""


# The math is typeset when the site is built (posenc_book.sphinx.static_math): what it waits for in the
# browser is its fonts, which load with the page's other fonts once the page is laid out.
MATH_READY_JS = "async () => { await document.fonts.ready; }"


def open_page(context, url: str):
    """A new page of ``context`` at ``url``, loaded, its math's fonts ready."""
    page = context.new_page()
    page.goto(url, wait_until="load")
    page.evaluate(MATH_READY_JS)
    return page


# MathJax 3's browser bundle, its extensions and fonts, as npm installs it (tools/mathjax/package.json):
# the MathJax that JupyterLab typesets notebooks with (tests/book/test_notebook_math.py,
# test_display_math.py).
MATHJAX_ES5 = ROOT / "tools" / "mathjax" / "node_modules" / "mathjax" / "es5"


def evaluate_with_mathjax(browser, name: str, page_html: str, script: str):
    """Show ``page_html`` (which loads tex-chtml.js) as ``<name>.html`` next to MathJax 3, served from
    127.0.0.1; run ``script`` on it. Returns what the script returned and the page's load problems."""
    with serve(MATHJAX_ES5) as base_url:
        context = new_context(browser)
        try:
            url = base_url + f"{name}.html"
            report = PageReport(docname=name, url=url, base_url=base_url)
            page = watched_page(context, report)
            page.route(
                url, lambda route: route.fulfill(body=page_html, content_type="text/html; charset=utf-8")
            )
            page.goto(url, wait_until="load")
            found = page.evaluate(script)
        finally:
            context.close()
    return found, load_problems(report)


def new_context(browser):
    return browser.new_context(
        viewport={"width": 1280, "height": 900}, color_scheme="light", service_workers="block"
    )


def watched_page(context, report: PageReport):
    """A new page that lets only 127.0.0.1 through and records into ``report`` what goes wrong."""
    page = context.new_page()

    def route(route):
        if urlsplit(route.request.url).hostname == HOST:
            route.continue_()
        else:
            report.blocked_requests.append(route.request.url)
            route.abort("blockedbyclient")

    def on_console(message):
        if message.type == "error":
            where = message.location.get("url", "") if message.location else ""
            report.console_errors.append(f"{message.text} [{where}]" if where else message.text)

    def on_failed(request):
        if request.url not in report.blocked_requests:
            report.failed_requests.append(f"{request.url} ({request.failure})")

    def on_response(response):
        if response.status >= 400:
            report.http_errors.append(f"{response.status} {response.url}")

    page.route("**/*", route)
    page.on("console", on_console)
    page.on("pageerror", lambda error: report.page_errors.append(str(error)))
    page.on("requestfailed", on_failed)
    page.on("response", on_response)
    return page


def visit(
    context,
    base_url: str,
    docname: str,
    *,
    path: str | None = None,
    screenshot: Path | None = None,
    axe: bool = False,
    phone_sizes: tuple[tuple[int, int], ...] = (),
) -> PageReport:
    """Load one page as a reader with no internet would, and record everything the checks need."""
    path = path if path is not None else site_path(docname)
    report = PageReport(docname=docname, url=base_url + path, base_url=base_url)
    page = watched_page(context, report)
    try:
        page.goto(report.url, wait_until="load")
        # The fonts (the math's among them) load after the layout; then let late requests finish.
        page.evaluate(MATH_READY_JS)
        page.wait_for_load_state("networkidle")
        page.evaluate("async () => { await document.fonts.ready; }")
        data = page.evaluate(COLLECT_JS)
        report.lang = data["lang"]
        report.mathjax_scripts = data["mathjaxScripts"]
        report.math_total = data["mathTotal"]
        report.math_unrendered = data["mathUnrendered"]
        report.math_errors = data["mathErrors"]
        report.images = data["images"]
        report.switch_links = data["switchLinks"]
        report.ui_strings = page.evaluate(UI_STRINGS_JS)
        if axe:
            report.axe_violations = run_axe(page)
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=True)
            report.screenshot = screenshot
        report.hangul = hangul_fonts(context, page)
        # Last, the same page narrowed to each phone's screen: the layout follows without a reload.
        for width, height in phone_sizes:
            page.set_viewport_size({"width": width, "height": height})
            report.phone[width] = page.evaluate(PHONE_JS)
    except Exception as error:  # a timeout or a crash is a problem of this page, not of the run
        report.visit_errors.append(f"{type(error).__name__}: {error}".splitlines()[0])
    finally:
        page.close()
    return report


def hangul_fonts(context, page) -> dict | None:
    """The platform fonts Chromium really used to draw Hangul on ``page`` (None: the page shows none).

    Asks Chromium through the DevTools protocol (CSS.getPlatformFontsForNode) which fonts drew the
    glyphs of a Hangul-only probe placed in the page's own Korean text.
    """
    where = page.evaluate(HANGUL_PROBE_JS, HANGUL_PROBE)
    if where is None:
        return None
    session = context.new_cdp_session(page)
    try:
        session.send("DOM.enable")
        session.send("CSS.enable")
        root = session.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = session.send("DOM.querySelector", {"nodeId": root, "selector": "[data-hangul-probe]"})
        fonts = session.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})["fonts"]
    finally:
        session.detach()
        page.evaluate("() => document.querySelectorAll('[data-hangul-probe]').forEach(e => e.remove())")
    return {"text": HANGUL_PROBE, "element": where, "fonts": fonts}


# Resolves once every finite animation and CSS transition of the page has finished.
SETTLED_JS = """() => Promise.all(document.getAnimations()
    .filter((a) => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
    .map((a) => a.finished.catch(() => null)))"""


def run_axe(page, within: str | None = None) -> list[dict]:
    """axe-core's violations on ``page``, or in the element of CSS selector ``within`` alone (axe-core is
    injected from the installed package, not fetched).

    ``preload: false``: otherwise axe re-fetches the stylesheets itself and resolves their
    ``@import "../basic.css"`` against the page instead of the stylesheet, a request for a file that
    does not exist (404) that the site never makes. Only the css-orientation-lock rule needs it.
    """
    from axe_playwright_python.sync_playwright import Axe

    # The theme turns a page dark with JavaScript after the load, and its header fades in the new colours
    # (CSS transitions): a scan made mid-fade measures colours that no reader sees once the page settles.
    page.evaluate(SETTLED_JS)
    options = {"resultTypes": ["violations"], "preload": False}
    return Axe().run(page, context=within, options=options).response["violations"]


# True once at least ``count`` results are shown and each has its link (its fragment has loaded).
LINKED_RESULTS_JS = """(count) => {
  const results = [...document.querySelectorAll('main li.pagefind-ui__result')];
  return results.length >= count && results.every((li) => li.querySelector('a.pagefind-ui__result-link'));
}"""


def search(context, base_url: str, lang: str, term: str) -> tuple[list[str], PageReport]:
    """Search ``term`` on ``<lang>/search.html?q=``; return the docnames of every result link, and a report.

    The results are Pagefind's links in the page's main area; "load more" is clicked until all are shown.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    url = f"{base_url}{lang}/search.html?q={quote(term)}"
    report = PageReport(docname=f"book/{lang}/search", url=url, base_url=base_url)
    page = watched_page(context, report)
    try:
        page.goto(report.url, wait_until="load")
        page.wait_for_function(
            "() => { const m = document.querySelector('main .pagefind-ui__message');"
            " return (m && /\\d/.test(m.textContent))"
            " || document.querySelector('main .pagefind-ui__result'); }",
            timeout=30_000,
        )
        page.wait_for_load_state("networkidle")
        # The message says how many pages match ("7 results for ...", "...결과 7건"); Pagefind shows
        # five at a time, then a "load more" button.
        total = int(re.search(r"\d+", page.text_content("main .pagefind-ui__message"))[0])
        results = page.locator("main li.pagefind-ui__result")
        misses = 0
        while (shown := results.count()) < total:
            # A result is drawn as a placeholder first and grows when its fragment has loaded: wait for
            # the shown ones, or the "load more" button moves while it is being clicked.
            page.wait_for_function(LINKED_RESULTS_JS, arg=shown, timeout=30_000)
            page.locator("main button.pagefind-ui__button").first.click(timeout=15_000)
            try:
                page.wait_for_function(
                    "(shown) => document.querySelectorAll('main li.pagefind-ui__result').length > shown",
                    arg=shown,
                    timeout=10_000,
                )
            except PlaywrightTimeoutError:
                # A click that missed (CI failed here once, under load): click again, three times at most.
                misses += 1
                if misses > 3:
                    raise
        page.wait_for_function(LINKED_RESULTS_JS, arg=total, timeout=30_000)
        hrefs = page.eval_on_selector_all(
            "main li.pagefind-ui__result a.pagefind-ui__result-link", "as => as.map(a => a.href)"
        )
    except Exception as error:
        report.visit_errors.append(f"{type(error).__name__}: {error}".splitlines()[0])
        hrefs = []
    finally:
        page.close()
    found = [docname_of_url(href.split("#")[0], base_url) for href in hrefs]
    return list(dict.fromkeys(name for name in found if name)), report


# How far a page scrolls sideways, and how its article breaks words (Korean: between words, keep-all).
PHONE_JS = """() => {
  const doc = document.documentElement;
  const article = document.querySelector('.bd-article');
  return {over: doc.scrollWidth - doc.clientWidth,
          wordBreak: article ? getComputedStyle(article).wordBreak : null};
}"""


def first_visit(browser, url: str, *, page_route=None) -> list[tuple[str, int]]:
    """What a reader's browser transfers to show ``url`` with an empty cache: (url, bytes of headers and
    body) for every request, in the order they finished.

    ``page_route``, if given, handles the request for ``url`` itself (a Playwright route handler),
    e.g. to serve a changed copy of the page.
    """
    context = new_context(browser)
    page = context.new_page()
    if page_route is not None:
        page.route(url, page_route)
    transfers = []

    def count(request):
        sizes = request.sizes()
        transfers.append((request.url, sizes["responseBodySize"] + sizes["responseHeadersSize"]))

    page.on("requestfinished", count)
    try:
        page.goto(url, wait_until="load")
        page.evaluate(MATH_READY_JS)
        page.wait_for_load_state("networkidle")
    finally:
        context.close()
    return transfers


def gzipped_size(site: Path, url: str, size: int) -> int:
    """The bytes of one transfer as a static host serves it gzip-encoded (level 6, nginx's and
    GitHub Pages' default): the file compressed, plus the headers the uncompressed count included."""
    path = site / unquote(urlsplit(url).path).lstrip("/")
    if path.is_dir():
        path = path / "index.html"
    if not path.is_file():
        return size
    body = path.stat().st_size
    return len(gzip.compress(path.read_bytes(), compresslevel=6)) + max(size - body, 0)


def first_visit_bytes(browser, url: str, *, page_route=None) -> int:
    """Bytes a reader's browser transfers to show ``url`` with an empty cache (headers and bodies)."""
    return sum(size for _, size in first_visit(browser, url, page_route=page_route))


# ------------------------------------------------------------------------------------------------
# Judging a page


def _allowed(message: str) -> bool:
    return any(re.search(pattern, message) for pattern in ALLOWED_CONSOLE_ERRORS)


def load_problems(report: PageReport) -> list[str]:
    """Blocked or failed requests, HTTP errors, console and JavaScript errors, a visit that failed."""
    found = [f"could not load the page: {error}" for error in report.visit_errors]
    found += [f"blocked a request to another host: {url}" for url in report.blocked_requests]
    found += [f"request failed: {failure}" for failure in report.failed_requests]
    found += [f"HTTP error: {error}" for error in report.http_errors]
    found += [f"uncaught JavaScript error: {error}" for error in report.page_errors]
    found += [f"console error: {error}" for error in report.console_errors if not _allowed(error)]
    return found


def math_problems(report: PageReport) -> list[str]:
    """Every formula typeset when the site was built, with its MathML, without error; no MathJax script."""
    found = [
        f"loads a MathJax script (the math is typeset at build time): {src}" for src in report.mathjax_scripts
    ]
    if report.math_unrendered:
        found.append(
            f"{len(report.math_unrendered)} of {report.math_total} formulas were not typeset, "
            f"first: {report.math_unrendered[0]!r}"
        )
    found += [f"MathJax error: {error}" for error in report.math_errors]
    return found


IMAGE_FILE = re.compile(r"^\S+\.(png|jpe?g|gif|svg|webp|avif)$", re.IGNORECASE)


def image_problems(report: PageReport) -> list[str]:
    """Every <img> loads (non-zero natural size) and has real alt text (not missing, empty or a file name)."""
    found = []
    for image in report.images:
        src = image["src"]
        name = PurePosixPath(urlsplit(src).path).name or src
        if not (image["width"] > 0 and image["height"] > 0):
            found.append(f"image did not load (natural size {image['width']}x{image['height']}): {src}")
        alt = image["alt"]
        if alt is None:
            found.append(f"image has no alt attribute: {name}")
        elif not alt.strip():
            found.append(f"image has empty alt text: {name}")
        elif IMAGE_FILE.match(alt.strip()) or (name and alt.strip().endswith(name)):
            found.append(f"image alt text is only a file name ({alt!r}): {name}")
    return found


def lang_problems(report: PageReport, expected: str) -> list[str]:
    if report.lang != expected:
        return [f'<html lang="{report.lang}"> on {report.docname}, but its path says "{expected}"']
    return []


def switch_problems(report: PageReport, docnames: list[str], langs: dict[str, str | None]) -> list[str]:
    """The language switch of a page links, with the right hreflang, to the same page in each other edition.

    ``langs`` maps each visited docname to the ``<html lang>`` it had, to check where a link lands.
    """
    found = []
    match = EDITION.match(report.docname)
    expected = {}
    if match:
        for other in editions(docnames):
            twin = f"book/{other}/{match['rest']}"
            if other != match["lang"] and twin in docnames:
                expected[other] = twin
    actual: dict[str, str | None] = {}
    for link in report.switch_links:
        hreflang, target = link["hreflang"], docname_of_url(link["href"].split("#")[0], report.base_url)
        if not hreflang:
            found.append(f"switch link without hreflang: {link['href']}")
            continue
        actual[hreflang] = target
        if target not in docnames:
            found.append(f"switch link ({hreflang}) to {link['href']}, which is not a page of the book")
        elif page_language(target) != hreflang:
            found.append(
                f'switch link hreflang="{hreflang}" goes to {target}, a "{page_language(target)}" page'
            )
        elif langs.get(target) not in (None, hreflang):
            found.append(
                f'switch link ({hreflang}) lands on {target}, whose <html lang> is "{langs[target]}"'
            )
    for other, twin in expected.items():
        if other not in actual:
            found.append(f"no switch link to the {other} edition of this page ({twin})")
        elif actual[other] != twin:
            found.append(f"switch link ({other}) goes to {actual[other]}, not to the same page {twin}")
    return found


def korean_fonts() -> set[str]:
    """Family and PostScript names of every font that fontconfig says covers Korean (empty if none)."""
    if shutil.which("fc-list") is None:
        return set()
    listing = subprocess.run(
        ["fc-list", ":lang=ko", "--format", "%{family}\t%{postscriptname}\n"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return {
        name.strip() for line in listing.splitlines() for name in re.split(r"[,\t]", line) if name.strip()
    }


def hangul_problems(hangul: dict | None, korean: set[str]) -> list[str]:
    """Every Hangul glyph drawn by a font that covers Korean; none left to a fallback (tofu) font."""
    if hangul is None:
        return []
    if not korean:
        return ["fontconfig lists no font covering Korean (fc-list :lang=ko): install fonts-noto-cjk"]
    text, fonts = hangul["text"], hangul["fonts"]

    def covers(font):
        return font["familyName"] in korean or font.get("postScriptName") in korean

    drawn = sum(font["glyphCount"] for font in fonts if covers(font))
    others = [f"{font['familyName']} ({font['glyphCount']} glyphs)" for font in fonts if not covers(font)]
    found = []
    if others:
        found.append(
            f"Hangul {text!r} in <{hangul['element']}> partly drawn by fonts without Hangul: {others}"
        )
    if drawn != len(text):
        found.append(
            f"Hangul {text!r} in <{hangul['element']}>: {drawn} of {len(text)} glyphs from a Korean font"
        )
    return found


# Words of English interface text; none of them is a word of Indonesian or Korean, nor part of a proper
# name on the pages (Binder, Colab, NumPy, PyTorch, MathJax, JavaScript, Ctrl+K, GitHub).
ENGLISH_UI_WORDS = frozenset(
    """the of to and in on this page toggle primary secondary sidebar search results result copy copied
    clipboard launch interactive content download source file print fullscreen light dark system
    settings link heading image equation error skip back top previous next click show hide hidden
    expand collapse contents navigation section version warning repository open issue edit suggest by
    with for activate functionality found more load clear not read""".split()
)


def english_ui_problems(strings: list[str]) -> list[str]:
    """Interface strings (see UI_STRINGS_JS) that contain an English word of ENGLISH_UI_WORDS."""
    found = []
    for text in dict.fromkeys(strings):
        words = {word.lower() for word in re.findall(r"[A-Za-z]+", text)}
        if english := sorted(words & ENGLISH_UI_WORDS):
            found.append(f"English in the interface ({', '.join(english)}): {text[:120]!r}")
    return found


AXE_IMPACTS = ("minor", "moderate", "serious", "critical")  # every impact axe reports


def axe_problems(violations: list[dict], impacts=("serious", "critical")) -> list[str]:
    found = []
    for violation in violations:
        if violation.get("impact") in impacts:
            targets = [" ".join(map(str, node["target"])) for node in violation["nodes"][:3]]
            found.append(
                f"{violation['id']} ({violation['impact']}): {violation['help']}; "
                f"{len(violation['nodes'])} element(s), e.g. {targets}"
            )
    return found


# ------------------------------------------------------------------------------------------------
# Every internal link of the built site, without a browser


class PageText(HTMLParser):
    """The text of an HTML page as a reader sees it: no tags, no scripts or styles, entities decoded."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag, attrs):
        self.skipping += tag in ("script", "style")

    def handle_endtag(self, tag):
        self.skipping -= tag in ("script", "style") and self.skipping > 0

    def handle_data(self, data):
        if not self.skipping:
            self.parts.append(data)


def page_text(path: Path) -> str:
    parser = PageText()
    parser.feed(path.read_text(encoding="utf-8"))
    return squeeze("".join(parser.parts))


def squeeze(text: str) -> str:
    return " ".join(text.split())


class _PageLinks(HTMLParser):
    RESOURCE_LINK_RELS = frozenset({"stylesheet", "icon", "shortcut", "preload", "modulepreload", "manifest"})

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []  # (kind, url): kind is "link" (navigated) or "resource"

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if attrs.get(key):
                self.ids.add(attrs[key])
        if tag in {"a", "area"} and attrs.get("href") is not None:
            self.links.append(("link", attrs["href"]))
        elif tag == "link" and attrs.get("href") is not None:
            rels = set((attrs.get("rel") or "").lower().split())
            self.links.append(("resource" if rels & self.RESOURCE_LINK_RELS else "link", attrs["href"]))
        for key in ("src", "data-src", "poster"):
            if attrs.get(key) and tag in {"img", "script", "iframe", "source", "video", "audio", "embed"}:
                self.links.append(("resource", attrs[key]))
        for key in ("srcset",):
            if attrs.get(key):
                for candidate in attrs[key].split(","):
                    if candidate.strip():
                        self.links.append(("resource", candidate.strip().split()[0]))
        if tag == "object" and attrs.get("data"):
            self.links.append(("resource", attrs["data"]))
        if tag == "meta" and (attrs.get("http-equiv") or "").lower() == "refresh":
            if match := re.search(r"url\s*=\s*['\"]?([^'\";]+)", attrs.get("content") or "", re.IGNORECASE):
                self.links.append(("link", match[1].strip()))


CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)|@import\s+(['"])([^'"]+)\3""")
SKIPPED_SCHEMES = {"mailto", "tel", "data", "javascript", "about", "blob"}


def internal_link_problems(site: Path, seeds: list[str]) -> tuple[list[str], dict[str, int]]:
    """Broken internal links and anchors of the site, found by crawling it like a link checker.

    Starts from ``seeds`` (paths relative to ``site``: the root page and every page of the TOC) and
    follows every internal link to an HTML page, so it reads every page a reader can reach (the
    index, the search page, ...), but not stale files that an older build left behind. In each page
    checks every href/src/srcset (links, scripts, stylesheets, images) and #anchor; in each stylesheet
    a page uses, every url(...) and @import. Also reports any resource (script, stylesheet, image,
    font) loaded from another host: the site must work offline. Links to other hosts are not followed.
    Returns the problems and counts of what was checked.
    """
    site = site.resolve()
    parsed: dict[Path, _PageLinks] = {}

    def parse(page: Path) -> _PageLinks:
        if page not in parsed:
            parser = _PageLinks()
            parser.feed(page.read_text(encoding="utf-8", errors="replace"))
            parsed[page] = parser
        return parsed[page]

    found: list[str] = []
    counts = {"pages": 0, "stylesheets": 0, "links": 0, "anchors": 0}
    queue = [site / seed for seed in seeds]
    seen: set[Path] = set()

    def check(origin: Path, kind: str, url: str):
        where = origin.relative_to(site).as_posix()
        parts = urlsplit(url.strip())
        if parts.scheme in SKIPPED_SCHEMES:
            return
        if parts.scheme or parts.netloc:
            if kind == "resource":
                found.append(f"{where}: loads a resource from another host: {url}")
            return
        counts["links"] += 1
        target = origin if not parts.path else Path(os.path.normpath(origin.parent / unquote(parts.path)))
        if parts.path.endswith("/") or target.is_dir():
            target = target / "index.html"
        if site not in target.parents:
            found.append(f"{where}: link leaves the site: {url}")
            return
        if not target.is_file():
            found.append(f"{where}: broken link: {url}")
            return
        if target.suffix in {".html", ".css"}:
            queue.append(target)
        fragment = unquote(parts.fragment)
        if fragment and target.suffix == ".html":
            counts["anchors"] += 1
            if fragment not in parse(target).ids:
                found.append(f"{where}: broken anchor: {url} (no id {fragment!r} in {target.name})")

    while queue:
        page = queue.pop()
        if page in seen:
            continue
        seen.add(page)
        if not page.is_file():
            found.append(f"{page.relative_to(site).as_posix()}: missing (a page of the TOC?)")
        elif page.suffix == ".css":
            counts["stylesheets"] += 1
            for match in CSS_URL.finditer(page.read_text(encoding="utf-8", errors="replace")):
                url = match[2] or match[4]
                if not url.startswith("#"):  # url(#id): an SVG reference inside the document
                    check(page, "resource", url)
        else:
            counts["pages"] += 1
            for kind, url in parse(page).links:
                check(page, kind, url)
    return found, counts


# ------------------------------------------------------------------------------------------------
# Chromium available?


def chromium_missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)"
    try:
        import axe_playwright_python  # noqa: F401
        import playwright.sync_api  # noqa: F401
    except ImportError as error:
        return f"{error.name} is not installed: run `make book` to install requirements.txt"
    return None


# The browser tests' Chromium, a pytest fixture that tests/site/conftest.py and tests/book/conftest.py
# import: a headless Chromium; without it the tests skip, except under CI=true.
@pytest.fixture(scope="module")
def browser():
    reason = chromium_missing()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the browser tests cannot run: {reason}")
        pytest.skip(f"browser tests skipped: {reason}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=LAUNCH_ARGS)
        yield chromium
        chromium.close()
