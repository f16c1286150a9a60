"""Sphinx extension: what a reader's first visit of a page downloads (issue 25).

Two things the themes do not do:

- **Images load when they come near the screen.** Every ``<img>`` of a page's
  body gets ``loading="lazy"``, so a first visit downloads the figures of the
  first screen, not all of a chapter's. Only in the HTML build: EPUB's XHTML
  has no such attribute.
- **The icons come from a font of the icons used.** The theme draws its Font
  Awesome icons with its CSS and its webfont ``fa-solid-900`` (157 KB, some
  1,400 glyphs); the build writes ``_static/fa-solid-subset.woff`` with the
  glyphs of the icons its pages use, and ``_static/posenc-icons.css`` declares
  it under the same family and weight, after the theme's CSS, so the browser
  takes it instead. (``posenc_book/templates/static/webpack-macros.html`` already
  drops the theme's ``fontawesome.js``, 1.5 MB, which replaced every icon by an
  SVG drawn by script.)
"""

from __future__ import annotations

import re
from pathlib import Path

IMG = re.compile(r"<img(?![^>]*\bloading=)")
ICON_CLASS = re.compile(r"\bfa-([a-z0-9-]+)")
# The theme's rules: .fa-bars:before{content:"\f0c9"}, several names to one glyph allowed.
ICON_RULE = re.compile(r"((?:\.fa-[a-z0-9-]+:+before,?)+)\{content:\"\\(f[0-9a-f]{3})\"\}")
# Drawn by the theme's scripts, not written into any page.
SCRIPT_ICONS = ("xmark",)
THEME_FONT = "vendor/fontawesome/webfonts/fa-solid-900.ttf"
SUBSET = "fa-solid-subset.woff"


def lazy_images(app, pagename, templatename, context, doctree):
    if app.builder.name == "html" and "body" in context:
        context["body"] = IMG.sub('<img loading="lazy"', context["body"])


def icon_codepoints(css: str, names: set[str]) -> set[int]:
    """The codepoints that the theme's CSS draws for the icons ``names``."""
    return {
        int(code, 16)
        for selectors, code in ICON_RULE.findall(css)
        if names & set(re.findall(r"\.fa-([a-z0-9-]+):", selectors))
    }


def write_subset(app, exception):
    if exception is not None or app.builder.name != "html":
        return
    from fontTools import subset

    out = Path(app.outdir)
    names = set(SCRIPT_ICONS)
    for page in out.rglob("*.html"):
        names |= set(ICON_CLASS.findall(page.read_text(encoding="utf-8")))
    css = (out / "_static/styles/pydata-sphinx-theme.css").read_text(encoding="utf-8")
    codepoints = icon_codepoints(css, names)
    # The themes' own icons (admonitions, the "on this page" arrow...), written into their CSS as
    # private-use characters or escapes, outside the per-icon .fa-<name>:before rules.
    for sheet in (out / "_static").rglob("*.css"):
        text = ICON_RULE.sub("", sheet.read_text(encoding="utf-8"))
        codepoints |= {ord(ch) for ch in text if 0xF000 <= ord(ch) <= 0xF8FF}
        codepoints |= {int(code, 16) for code in re.findall(r"\\(f[0-9a-f]{3})\b", text)}
    options = subset.Options()
    options.flavor = "woff"  # woff2 would need brotli; the subset is a few KB either way
    options.layout_features = []
    options.name_IDs = ["*"]  # keep the font's copyright and licence (SIL OFL 1.1)
    font = subset.load_font(str(out / "_static" / THEME_FONT), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(codepoints))
    subsetter.subset(font)
    subset.save_font(font, str(out / "_static" / SUBSET), options)


def add_icon_css(app):
    if app.builder.name == "html":  # the PDF and EPUB draw no theme icons
        app.add_css_file("posenc-icons.css")


def setup(app):
    app.connect("builder-inited", add_icon_css)
    app.connect("html-page-context", lazy_images)
    app.connect("build-finished", write_subset)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
