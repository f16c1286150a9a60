"""posenc_book.sphinx.static_math on a small project: the math typeset at build time by MathJax 4 in Node,
with Sphinx's own equation numbers, labels and references; a TeX error fails the build. The whole site
is tests/site/test_math_speed.py."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest
from posenc_book.sphinx import static_math

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (static_math.MATHJAX / "node_modules").is_dir(),
    reason="no Node.js or no tools/mathjax/node_modules (make installs it)",
)

PAGE = r"""
Math
====

Inline :math:`\omega_i = 10000^{-2i/d}` and a labelled equation:

.. math::
   :label: rotation

   R(\theta) = \begin{pmatrix} \cos\theta & -\sin\theta \\ \sin\theta & \cos\theta \end{pmatrix}

Two lines, which Sphinx wraps in ``split``, and two paragraphs, in ``align``:

.. math::

   a &= b \\
     &= \mathbb{R}

.. math::

   x = 1

   y = 2

.. math::
   :nowrap:

   \begin{align} p &= q \end{align}

As :eq:`rotation` says.
"""

CONF = "extensions = ['posenc_book.sphinx.static_math']\nhtml_math_renderer = 'posenc_static'\n"


def sphinx_build(folder, page: str):
    (folder / "index.rst").write_text(page, encoding="utf-8")
    (folder / "conf.py").write_text(CONF, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(folder), str(folder / "_out")],
        capture_output=True,
        text=True,
        check=False,
    )


def test_every_formula_is_typeset_with_sphinx_numbers_and_labels(tmp_path):
    build = sphinx_build(tmp_path, PAGE)
    assert build.returncode == 0, build.stderr
    out = tmp_path / "_out"
    html = (out / "index.html").read_text(encoding="utf-8")
    formulas = re.findall(r'<(?:span|div) class="math notranslate nohighlight"', html)
    assert len(formulas) == 5, formulas
    # Each typeset, with its MathML for screen readers; no script for the math; no TeX left.
    assert html.count("<mjx-container") == 5 and html.count("<mjx-assistive-mml") == 5
    assert not re.search(r"<script[^>]*mathjax", html, re.IGNORECASE) and "data-latex" not in html
    assert "\\(" not in html and "\\[" not in html
    # The search index reads each formula once, from its MathML, not from the characters on screen.
    assert html.count("<mjx-math data-pagefind-ignore") == 5
    # Sphinx's number, permalink and id on the labelled equation, and the reference to it.
    assert re.search(
        r'<div class="math notranslate nohighlight" id="equation-rotation">\s*<span class="eqno">\(1\)', html
    )
    assert 'href="#equation-rotation"' in html
    # The characters are text (selectable): the italic omega, the double-struck R.
    assert "\U0001d714" in html and "\u211d" in html
    # The stylesheet, linked; the fonts its formulas use, each there, and no others.
    assert re.search(
        r'<link rel="stylesheet" type="text/css" href="_static/posenc-math\.css\?v=[0-9a-f]{8}"', html
    )
    assert '<link rel="preload" href="_static/mathjax-fonts/mjx-ncm-zero.woff2"' in html
    css = (out / "_static" / "posenc-math.css").read_text(encoding="utf-8")
    fonts = set(re.findall(r'url\("mathjax-fonts/([\w.-]+)"\)', css))
    copied = {path.name for path in (out / "_static" / "mathjax-fonts").glob("*.woff2")}
    assert fonts == copied and {"mjx-ncm-n.woff2", "mjx-ncm-ds.woff2"} <= fonts, (fonts, copied)
    assert "mjx-ncm-c.woff2" not in fonts  # no calligraphic letter on the page


def test_a_tex_error_fails_the_build_at_its_formula(tmp_path):
    build = sphinx_build(tmp_path, "Bad\n===\n\nA :math:`\\notamacro{x}` here.\n")
    assert build.returncode != 0
    assert "index.rst:4" in build.stderr and "Undefined control sequence \\notamacro" in build.stderr, (
        build.stderr
    )
