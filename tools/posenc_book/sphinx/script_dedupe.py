"""Sphinx extension: write each ``<script>`` of a page once.

Sphinx 7.4 registers an inline script added with ``app.add_js_file(None, body=...)``
twice: once as ``_JavaScript(None, ...)`` when it is added, and again as
``_JavaScript('', ...)`` when the HTML builder re-adds the registry's scripts, and the
two do not compare equal. sphinx-thebe adds ``const THEBE_JS_URL = ...`` this way, so
every page declared that constant twice and the browser logged "SyntaxError: Identifier
'THEBE_JS_URL' has already been declared" (tests/site/test_site.py checks for console errors).
"""

from __future__ import annotations


def _key(script) -> tuple:
    attributes = getattr(script, "attributes", {}) or {}
    return (str(getattr(script, "filename", script) or ""), tuple(sorted(attributes.items())))


def drop_duplicate_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        key = _key(script)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    # The builder restores its own list after each page, so editing it in place is safe.
    scripts[:] = unique


def setup(app):
    # Late, after other extensions have added their page-specific scripts.
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
