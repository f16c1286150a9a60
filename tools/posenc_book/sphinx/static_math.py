"""Sphinx extension: the site's math typeset at build time, by MathJax 4 (issue 32).

A reader on a slow connection saw raw TeX (``\\(\\omega_i\\)``) for seconds: MathJax (1.16 MB)
typeset the page in the browser after it loaded, about 6.8 s after the first paint on Fast 3G. This
extension is an HTML math renderer (``html_math_renderer = "posenc_static"``) whose visitors hand
each formula to MathJax 4 in Node (``tools/mathjax/render.mjs``, one process for the whole build)
and write its CommonHTML output into the page:

- the characters themselves are text of the page (the italic omega U+1D714, not a CSS picture
  of it), so math can be selected, copied and found with the browser's search; each formula
  carries its MathML, hidden on screen, for screen readers (MathJax's assistive MathML); no
  formula is a tab stop;
- no script loads on any page; pages with math link ``_static/posenc-math.css``, the stylesheet of
  every formula of the edition, and the fonts it uses (``_static/mathjax-fonts/``, only those) are
  copied from ``tools/mathjax/node_modules`` when the build ends;
- a TeX error (an undefined macro, a misplaced ``&``) is a Sphinx warning at the formula, which
  fails the build (warnings are errors).

A renderer rather than a pass over the written pages: Sphinx calls it with the formula's node, so
the equation numbers, their permalinks and the ids of labelled equations are Sphinx's own, written as
sphinx.ext.mathjax writes them; and no HTML is parsed again. Display formulas are wrapped as
sphinx.ext.mathjax wraps them (``split`` for several lines, ``align`` for several paragraphs), so the
TeX means what it meant under MathJax 3 in the browser.

The stylesheet has a rule for each character of the formulas it has typeset. An incremental build
writes only the changed pages, so the formulas of every page are kept in the environment when it is
read, and those not typeset by this run are typeset at the end, for the stylesheet.

The EPUB keeps sphinx.ext.imgmath (posenc_book.build); the PDF is LaTeX. Neither calls this renderer.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import time
from pathlib import Path

from docutils import nodes
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

from posenc_book.paths import ROOT

logger = logging.getLogger(__name__)

NAME = "posenc_static"
MATHJAX = ROOT / "tools" / "mathjax"
SCRIPT = MATHJAX / "render.mjs"
FONTS = MATHJAX / "node_modules" / "@mathjax" / "mathjax-newcm-font" / "chtml" / "woff2"
CSS = "posenc-math.css"
FONT_DIR = "mathjax-fonts"  # in _static, next to the stylesheet
# The @font-face rules of the stylesheet, and the font classes of the output (NCM-DS: double-struck).
FONT_FACE = re.compile(
    r"@font-face /\* (?P<family>[\w-]+) \*/ \{[^}]*?url\(\"[^\"]*/(?P<file>[\w.-]+)\"\)[^}]*\}\n*"
)
FONT_CLASS = re.compile(r"\bNCM-[\w-]+")
# Used by every formula: the zero-width font behind every family, the line-break one, the upright text.
ALWAYS = {"MJX-NCM-ZERO", "MJX-BRK", "MJX-NCM-N"}


class MathJaxError(RuntimeError):
    pass


class Renderer:
    """One MathJax process, started at the first formula; formulas typeset once each."""

    def __init__(self):
        self.process: subprocess.Popen | None = None
        self.done: dict[tuple[str, bool], str] = {}
        self.seconds = 0.0  # spent waiting for MathJax: what typesetting costs the build

    def _ask(self, request: dict) -> dict:
        began = time.perf_counter()
        try:
            return self._send(request)
        finally:
            self.seconds += time.perf_counter() - began

    def _send(self, request: dict) -> dict:
        if self.process is None:
            if not (MATHJAX / "node_modules").is_dir():
                raise MathJaxError(
                    f"MathJax is not installed: run `npm ci --prefix {MATHJAX}` (make book does)"
                )
            self.process = subprocess.Popen(
                ["node", str(SCRIPT), FONT_DIR],
                cwd=MATHJAX,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                encoding="utf-8",
            )
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise MathJaxError(f"MathJax ({SCRIPT.name}) stopped, exit code {self.process.poll()}")
        return json.loads(line)

    def html(self, tex: str, display: bool) -> str:
        key = (tex, display)
        if key not in self.done:
            reply = self._ask({"tex": tex, "display": display})
            if "error" in reply:
                raise MathJaxError(reply["error"])
            self.done[key] = reply["html"]
        return self.done[key]

    def stylesheet(self) -> str:
        return self._ask({"css": True})["css"]

    def close(self):
        if self.process is not None:
            self.process.stdin.close()
            self.process.wait(timeout=30)
            self.process = None


def display_tex(node: nodes.math_block) -> str:
    """The TeX of a display formula as sphinx.ext.mathjax hands it to MathJax (without \\[ \\])."""
    text = node.astext()
    if node.get("nowrap"):
        return text
    parts = [part for part in text.split("\n\n") if part.strip()]
    body = r"\\".join(r"\begin{split}" + part + r"\end{split}" if r"\\" in part else part for part in parts)
    return r"\begin{align}\begin{aligned}" + body + r"\end{aligned}\end{align}" if len(parts) > 1 else body


def formulas(doctree) -> set[tuple[str, bool]]:
    found = {(node.astext(), False) for node in doctree.findall(nodes.math)}
    return found | {(display_tex(node), True) for node in doctree.findall(nodes.math_block)}


def _typeset(self, node, tex: str, display: bool) -> str:
    try:
        return self.builder.app.posenc_math.html(tex, display)
    except MathJaxError as error:
        logger.warning("MathJax cannot typeset %r: %s", tex, error, location=node, type="math")
        return self.encode(tex)


def html_visit_math(self, node: nodes.math) -> None:
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate nohighlight"))
    self.body.append(_typeset(self, node, node.astext(), False) + "</span>")
    raise nodes.SkipNode


def html_visit_displaymath(self, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight"))
    # The equation number and its permalink, as sphinx.ext.mathjax writes them.
    if node["number"] and not node.get("nowrap"):
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    self.body.append(_typeset(self, node, display_tex(node), True) + "</div>\n")
    raise nodes.SkipNode


def _active(app) -> bool:
    return app.builder.format == "html" and getattr(app.builder, "math_renderer_name", None) == NAME


def collect(app, doctree):
    if not hasattr(app.env, "posenc_math"):
        app.env.posenc_math = {}
    app.env.posenc_math[app.env.docname] = formulas(doctree)


def purge(app, env, docname):
    getattr(env, "posenc_math", {}).pop(docname, None)


def merge(app, env, docnames, other):
    if not hasattr(env, "posenc_math"):
        env.posenc_math = {}
    env.posenc_math.update({name: other.posenc_math[name] for name in docnames if name in other.posenc_math})


def link_stylesheet(app, pagename, templatename, context, doctree):
    """Pages with math link the math stylesheet and preload its two tiny fonts; no page loads a script
    for its math.

    Every family of the stylesheet starts with MJX-NCM-ZERO (840 bytes), and the browser asks for the
    family's next font (MJX-NCM-N, the letters) only once it has that one: a round trip more (0.56 s on
    Fast 3G). Preloaded, the zero font is there when the page is laid out. The other fonts are not
    preloaded: they would share the connection with the stylesheets the first paint waits for (all of
    chapter 6's, preloaded, put it off by 1.1 s; the zero font alone by about 0.1 s, and brought the
    math 0.5 s sooner).
    """
    if not (_active(app) and getattr(app.env, "posenc_math", {}).get(pagename)):
        return
    body = context.get("body", "")
    families = ["MJX-NCM-ZERO", *(["MJX-BRK"] if "<mjx-break" in body else [])]
    pathto = context["pathto"]
    links = [
        f'<link rel="preload" href="{pathto(f"_static/{FONT_DIR}/{font_file(family)}", 1)}"'
        ' as="font" type="font/woff2" crossorigin="anonymous" />'
        for family in families
    ]
    # Not through app.add_css_file, which takes no query string: see stylesheet_version.
    links.append(
        f'<link rel="stylesheet" type="text/css" href="{pathto(f"_static/{CSS}", 1)}'
        f'?v={stylesheet_version(app)}" />'
    )
    if "<mjx-container" in body and 'display="true"' in body:
        links.append(SCROLL_FOCUS)
    context["metatags"] = context.get("metatags", "") + "\n".join(links) + "\n"


# A display formula wider than its column scrolls sideways in its own box (langswitch.css). That one, and
# only that one, takes the keyboard focus, so that the arrow keys scroll it (WCAG 2.1.1; axe's
# scrollable-region-focusable), as Chromium does by itself since version 130; a formula that fits, and
# every inline one, is no tab stop (MathJax 3 made each formula one: 233 of chapter 6's 440 tab stops).
# Checked again whenever a formula or its box changes size (the fonts arrive, the window turns).
SCROLL_FOCUS = """<script>
document.addEventListener("DOMContentLoaded", () => {
  const check = new ResizeObserver(entries => entries.forEach(({target}) => {
    const box = target.closest("mjx-container");
    if (box.scrollWidth > box.clientWidth) box.tabIndex = 0; else box.removeAttribute("tabindex");
  }));
  document.querySelectorAll('mjx-container[display="true"]').forEach(box => {
    check.observe(box);
    check.observe(box.firstElementChild);
  });
});
</script>"""


def stylesheet_version(app) -> str:
    """A digest of every formula of the edition and of MathJax's version, which make the stylesheet.

    The stylesheet is written when the build ends, after the pages, so Sphinx cannot add its own
    ``?v=`` checksum to the link, and a page must not get a cached stylesheet that lacks its formulas'
    rules. A page that an incremental build does not write again keeps its link, to the same file,
    whose rules are a superset of the ones it needs.
    """
    if getattr(app, "posenc_math_version", None) is None:
        digest = hashlib.sha256((MATHJAX / "package-lock.json").read_bytes())
        for tex, display in sorted(set().union(*app.env.posenc_math.values())):
            digest.update(f"{display:d}{tex}\0".encode())
        app.posenc_math_version = digest.hexdigest()[:8]
    return app.posenc_math_version


def font_file(family: str) -> str:
    """A family's file: MJX-NCM-DS -> mjx-ncm-ds.woff2, MJX-BRK -> mjx-ncm-brk.woff2."""
    return ("MJX-NCM-BRK" if family == "MJX-BRK" else family).lower() + ".woff2"


def used_fonts(css: str, html: list[str]) -> tuple[str, list[str]]:
    """The stylesheet without the @font-face rules of fonts no formula uses, and the files of the others."""
    families = ALWAYS | {"MJX-" + name for page in html for name in FONT_CLASS.findall(page)}
    files = []

    def keep(match: re.Match) -> str:
        if match["family"] in families:
            files.append(match["file"])
            return match[0]
        return ""

    return FONT_FACE.sub(keep, css), files


def write_assets(app, exception):
    renderer = app.posenc_math
    try:
        if exception is not None or not _active(app):
            return
        for name, found in getattr(app.env, "posenc_math", {}).items():
            for tex, display in found:
                try:
                    renderer.html(tex, display)  # typeset already, unless its page was not rewritten
                except MathJaxError as error:
                    logger.warning("MathJax cannot typeset %r: %s", tex, error, location=name, type="math")
        if not renderer.done:
            return
        css, files = used_fonts(renderer.stylesheet(), list(renderer.done.values()))
        static = Path(app.outdir) / "_static"
        (static / CSS).write_text(css, encoding="utf-8")
        fonts = static / FONT_DIR
        shutil.rmtree(fonts, ignore_errors=True)
        fonts.mkdir(parents=True)
        for file in files:
            shutil.copyfile(FONTS / file, fonts / file)
        shutil.copyfile(MATHJAX / "node_modules" / "@mathjax" / "src" / "LICENSE", fonts / "LICENSE")
        logger.info(
            "static_math: %d formulas typeset by MathJax 4 in %.1f s; %d fonts",
            len(renderer.done),
            renderer.seconds,
            len(files),
        )
    finally:
        renderer.close()


def setup(app):
    app.posenc_math = Renderer()
    app.add_html_math_renderer(NAME, (html_visit_math, None), (html_visit_displaymath, None))
    app.connect("doctree-read", collect)
    app.connect("env-purge-doc", purge)
    app.connect("env-merge-info", merge)
    app.connect("html-page-context", link_stylesheet)
    app.connect("build-finished", write_assets)
    # One MathJax process gathers the stylesheet of every formula: pages are written in this process.
    return {"parallel_read_safe": True, "parallel_write_safe": False, "env_version": 1}
