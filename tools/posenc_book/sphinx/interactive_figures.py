"""Sphinx extension: load plotly.js only on the pages that have an interactive figure.

A figure made by :mod:`posenc.plot.interactive` reaches the page as a ``<div
class="posenc-interactive">`` holding its plotly JSON and a PNG of its first
frame. On those pages, and only there, the script that draws the figures and
their stylesheet are added. The script loads the vendored plotly.js
(``book/_static/plotly``, see its SOURCE.txt), whose address each figure's div
carries as ``data-plotly``, only when a figure comes near the screen: a reader
who never scrolls that far does not download its 1.2 MB, and sees the PNG
until then. The PDF and EPUB take the figures' PNG and load no script.

Chapter 8's results table (:class:`posenc.plot.experiment.ResultsTable`)
reaches the page as an HTML table in a ``<div class="posenc-results-table">``;
its page gets the stylesheet only, which takes off the light mat that the
theme puts under HTML outputs in dark mode.

The figure's third output type, plotly's own JSON, is for JupyterLab;
myst-nb has no renderer for it and would warn about it on every build, so it
is dropped as each notebook is read (the HTML output holds the same JSON).
"""

from __future__ import annotations

import json

MARKER = 'class="posenc-interactive"'
TABLE_MARKER = 'class="posenc-results-table"'
PLOTLY = "plotly/plotly-basic.min.js"
PLOTLY_MIME = "application/vnd.plotly.v1+json"


def drop_plotly_json(app, docname, source):
    if PLOTLY_MIME not in source[0] or not str(app.env.doc2path(docname)).endswith(".ipynb"):
        return
    notebook = json.loads(source[0])
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(PLOTLY_MIME, None)
    source[0] = json.dumps(notebook, ensure_ascii=False)


def add_plotly(app, pagename, templatename, context, doctree):
    if app.builder.name != "html":
        return
    if TABLE_MARKER in context.get("body", "") and MARKER not in context.get("body", ""):
        app.add_css_file("posenc-figures.css")
        return
    if MARKER not in context.get("body", ""):
        return
    plotly = context["pathto"]("_static/" + PLOTLY, 1)
    context["body"] = context["body"].replace(MARKER, f'{MARKER} data-plotly="{plotly}"')
    # Added from html-page-context, a file goes into this page only.
    app.add_js_file("posenc-figures.js", loading_method="defer")
    app.add_css_file("posenc-figures.css")


def setup(app):
    app.connect("source-read", drop_plotly_json)
    app.connect("html-page-context", add_plotly)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
