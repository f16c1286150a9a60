"""Every formula of the notebooks' Markdown cells typesets where students run them: JupyterLab and Colab.

The site wraps each display equation in ``\\begin{split}`` (Sphinx's MathJax renderer), so an ``&``
written straight inside ``$$ … $$`` renders there, and only there: JupyterLab hands the same ``$$ … $$``
to MathJax as it stands, and MathJax answers "Misplaced &". This test sees the notebooks as JupyterLab does:

* :func:`remove_math` is a port of ``removeMath`` of ``@jupyterlab/rendermime`` (``src/latex.ts``): it
  splits each Markdown cell into text and math, as JupyterLab does before the Markdown renderer sees
  the cell (``$…$``, ``$$…$$``, ``\\\\(…\\\\)``, ``\\\\[…\\\\]`` and top-level ``\\begin{…}…\\end{…}``,
  with balanced braces, never across a blank line, ``$`` inside code spans and fences left alone);
* the text, with the math replaced by placeholders, goes through a CommonMark renderer, and a fragment
  whose placeholder lands in code (``<pre>``, ``<code>``) is dropped: MathJax does not typeset there;
* all the fragments of all the notebooks are typeset in one page of headless Chromium, each in its own
  element, by MathJax 3.2.2, JupyterLab's (the npm package ``mathjax``, installed in tools/mathjax by
  ``make``; the site itself typesets its math with MathJax 4 when it is built), configured as
  ``@jupyterlab/mathjax-extension`` configures its TeX input: every package of MathJax's AllPackages
  plus ``require``, ``$``/``\\(`` inline, ``$$``/``\\[`` display, ``processEscapes`` and
  ``processEnvironments``. Two packages of that list are left out, ``noerrors`` and ``noundefined``:
  they only disguise an error (as the raw TeX, or as the unknown macro in red), and the test must see it;
* every fragment whose output holds an ``mjx-merror`` (or no formula at all) is reported with its
  notebook, its 0-based cell index and MathJax's message.

A self-test (in the same page load) proves the check can fail: a bare ``&`` inside ``$$ … $$`` is
reported, the same lines inside ``\\begin{aligned}`` are not.

Skipped without /usr/bin/chromium, except under CI=true, where a missing browser is a failure (the
``browser`` fixture of site_helpers.py). The tests of the splitter need no browser.
"""

from __future__ import annotations

import html
import json
import re
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest
from book_files import BOOK, NOTEBOOKS, ROOT
from site_helpers import MATHJAX_ES5, evaluate_with_mathjax

MATHJAX = MATHJAX_ES5 / "tex-chtml.js"

# ------------------------------------------------------------------------------------------------
# Splitting Markdown into text and math, as @jupyterlab/rendermime's removeMath does

INLINE = "$"
# The delimiters and special symbols removeMath looks for (its MATHSPLIT, verbatim).
MATHSPLIT = re.compile(
    r"(\$\$?|\\(?:begin|end)\{[a-z]*\*?\}|\\[{}$]|[{}]|(?:\n\s*)+|@@\d+@@|\\\\(?:\(|\)|\[|\]))",
    re.IGNORECASE,
)
FENCE = re.compile(r"^(?P<fence>`{3,}|(~T){3,})[^`\n]*\n([\s\S]*?)^(?P=fence)`*$", re.MULTILINE)
CODE_SPAN = re.compile(r"(^|[^\\])(`+)([^\n]*?[^`\n])\2(?!`)", re.MULTILINE)
PLACEHOLDER = re.compile(r"@@(\d+)@@")


def remove_math(text: str) -> tuple[str, list[str], set[int]]:
    """``text`` with its math replaced by ``@@n@@``, the math strings, and which of them are not math.

    A port of ``removeMath``: math delimiters must match and braces balance; math never runs through a
    blank line (a new paragraph). Text that already looks like a placeholder (``@@3@@``) is stored in
    the list as it is, like math, so that it comes back unchanged: its index is in the returned set.
    The math strings are the source text (removeMath's HTML escaping of ``&<>`` is undone by the
    browser when it parses the rendered cell, so it is not applied).
    """
    math: list[str] = []
    literal: set[int] = set()

    def de_tilde(value: str) -> str:
        return value

    if "`" in text or "~~~" in text:
        # Hide every $ of a code fence or code span (as ~D) so that it starts no math.
        text = text.replace("~", "~T")
        text = FENCE.sub(lambda match: match[0].replace("$", "~D"), text)
        text = CODE_SPAN.sub(lambda match: match[0].replace("$", "~D"), text)

        def de_tilde(value: str) -> str:
            return re.sub(r"~([TD])", lambda match: "~" if match[1] == "T" else INLINE, value)

    blocks = MATHSPLIT.split(re.sub(r"\r\n?", "\n", text))
    start: int | None = None
    end: str | None = None
    last: int | None = None
    braces = 0

    def process_math(i: int, j: int) -> None:
        block = "".join(blocks[i : j + 1])
        for k in range(i + 1, j + 1):
            blocks[k] = ""
        blocks[i] = f"@@{len(math)}@@"
        math.append(de_tilde(block))

    i = 1
    while i < len(blocks):
        block = blocks[i]
        if block.startswith("@"):
            blocks[i] = f"@@{len(math)}@@"
            literal.add(len(math))
            math.append(block)
        elif start is not None:
            if block == end:
                if braces:
                    last = i
                else:
                    process_math(start, i)
                    start = end = last = None
            elif re.search(r"\n.*\n", block):
                if last is not None:
                    i = last
                    process_math(start, i)
                start = end = last = None
                braces = 0
            elif block == "{":
                braces += 1
            elif block == "}" and braces:
                braces -= 1
        elif block in (INLINE, "$$"):
            start, end, braces = i, block, 0
        elif block in ("\\\\(", "\\\\["):
            start, end, braces = i, "\\\\)" if block.endswith("(") else "\\\\]", 0
        elif block[1:6] == "begin":
            start, end, braces = i, "\\end" + block[6:], 0
        i += 2
    if start is not None and last is not None:
        process_math(start, last)
    return de_tilde("".join(blocks)), math, literal


def replaced_math(group: str) -> str:
    """One math string as replaceMath puts it back: ``\\\\(…\\\\)`` and ``\\\\[…\\\\]`` lose a backslash."""
    if group.startswith("\\\\(") and group.endswith("\\\\)"):
        return "\\(" + group[3:-3] + "\\)"
    if group.startswith("\\\\[") and group.endswith("\\\\]"):
        return "\\[" + group[3:-3] + "\\]"
    return group


# MathJax's default skipHtmlTags: it typesets nothing inside these.
SKIPPED_TAGS = frozenset({"script", "noscript", "style", "textarea", "pre", "code", "annotation"})


class _TypesetText(HTMLParser):
    """The placeholders that a rendered cell shows as text outside the tags MathJax skips."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.skipped = 0
        self.found: set[int] = set()

    def handle_starttag(self, tag, attrs):
        if tag in SKIPPED_TAGS:
            self.skipped += 1

    def handle_endtag(self, tag):
        if tag in SKIPPED_TAGS and self.skipped:
            self.skipped -= 1

    def handle_data(self, data):
        if not self.skipped:
            self.found.update(int(n) for n in PLACEHOLDER.findall(data))


def _markdown():
    from markdown_it import MarkdownIt

    # Close enough to JupyterLab's marked (GFM): raw HTML kept, tables and strikethrough on.
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def math_fragments(source: str, md=None) -> list[str]:
    """The formulas JupyterLab's MathJax typesets in a Markdown cell, each with its delimiters."""
    text, math, literal = remove_math(source)
    parser = _TypesetText()
    parser.feed((md or _markdown()).render(text))
    parser.close()
    return [replaced_math(group) for n, group in enumerate(math) if n in parser.found and n not in literal]


@dataclass(frozen=True)
class Fragment:
    notebook: str  # relative to the repository
    cell: int  # 0-based index of the Markdown cell in the notebook
    tex: str  # with its delimiters, as MathJax finds it


def notebook_fragments(notebooks: list[Path] = NOTEBOOKS) -> list[Fragment]:
    md = _markdown()
    found = []
    for path in notebooks:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for index, cell in enumerate(cells):
            if cell["cell_type"] != "markdown":
                continue
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            rel = path.relative_to(ROOT).as_posix()
            found += [Fragment(rel, index, tex) for tex in math_fragments(source, md)]
    return found


# ------------------------------------------------------------------------------------------------
# Typesetting them all in one page

# The TeX input of @jupyterlab/mathjax-extension. Its packages, AllPackages + require, are set in
# startup.ready from MathJax 3's all-packages component (which also loads them), so that they are the
# list of that MathJax version, minus the packages that hide errors.
HIDE_ERRORS = ["noerrors", "noundefined"]
MATHJAX_CONFIG = {
    "loader": {"load": ["[tex]/all-packages"]},
    "tex": {
        "inlineMath": [["$", "$"], ["\\(", "\\)"]],
        "displayMath": [["$$", "$$"], ["\\[", "\\]"]],
        "processEscapes": True,
        "processEnvironments": True,
    },
    "options": {"enableMenu": False},
    "startup": {"typeset": False},
}
READY_JS = """
window.MathJax.startup.ready = () => {
  const all = MathJax._.input.tex.AllPackages.AllPackages;
  MathJax.config.tex.packages = all.concat('require').filter(name => !HIDE_ERRORS.includes(name));
  MathJax.startup.defaultReady();
};
"""

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>notebook math</title>
<script>const HIDE_ERRORS = {hide};\nwindow.MathJax = {config};\n{ready}</script>
<script src="tex-chtml.js"></script>
</head><body>
{divs}
</body></html>
"""

TYPESET_JS = """
async () => {
  await MathJax.startup.promise;
  await MathJax.typesetPromise();
  const results = {};
  for (const div of document.querySelectorAll('div[data-fragment]')) {
    results[div.dataset.fragment] = {
      formulas: div.querySelectorAll('mjx-container').length,
      errors: [...div.querySelectorAll('mjx-merror, [data-mjx-error]')]
                 .map(e => e.getAttribute('data-mjx-error') || e.getAttribute('title') || e.textContent),
    };
  }
  const tex = MathJax.startup.document.inputJax[0];
  return {version: MathJax.version, packages: tex.parseOptions.options.packages,
          allPackages: MathJax._.input.tex.AllPackages.AllPackages, results};
}
"""


def typeset(browser, fragments: list[str]) -> tuple[dict, list[str]]:
    """Typeset every fragment in its own <div>, in one page load; return MathJax's results and problems.

    The results: ``version``, the TeX ``packages`` in force, and for each fragment (by its index as a
    string) the number of formulas MathJax made of it and the messages of its errors. The problems:
    what went wrong with the page itself (a failed request, a console error, a request off 127.0.0.1).
    """
    divs = "\n".join(f'<div data-fragment="{n}">{html.escape(tex)}</div>' for n, tex in enumerate(fragments))
    page_html = (
        PAGE.replace("{hide}", json.dumps(HIDE_ERRORS))
        .replace("{config}", json.dumps(MATHJAX_CONFIG))
        .replace("{ready}", READY_JS)
        .replace("{divs}", divs)
    )
    return evaluate_with_mathjax(browser, "notebook-math", page_html, TYPESET_JS)


def fragment_problems(fragments: list[str], results: dict) -> list[tuple[int, str]]:
    """(index, message) for every fragment MathJax typeset with an error, or did not find as math."""
    found = []
    for n, _ in enumerate(fragments):
        result = results[str(n)]
        if result["errors"]:
            found.append((n, "; ".join(dict.fromkeys(result["errors"]))))
        elif not result["formulas"]:
            found.append((n, "MathJax found no formula in it (shown as raw TeX)"))
    return found


# A bare & inside $$ … $$ (what the site's split wrapper hides), and the same lines inside aligned.
SELF_TEST_BAD = "$$\na &= b + c \\\\\n&= d\n$$"
SELF_TEST_GOOD = "$$\n\\begin{aligned}\na &= b + c \\\\\n&= d\n\\end{aligned}\n$$"
SELF_TEST_UNDEFINED = "$\\notamacro{x}$"


@pytest.fixture(scope="module")
def typeset_all(browser):
    """The notebooks' fragments, then the self-test's, typeset in one page load.

    Returns (the notebooks' fragments, the TeX of all fragments, MathJax's results, page problems, seconds).
    """
    if not MATHJAX.is_file():
        pytest.fail(f"no MathJax 3 at {MATHJAX}: run `make` (npm ci --prefix tools/mathjax)")
    fragments = notebook_fragments()
    texts = [fragment.tex for fragment in fragments] + [SELF_TEST_BAD, SELF_TEST_GOOD, SELF_TEST_UNDEFINED]
    began = time.perf_counter()
    data, problems = typeset(browser, texts)
    return fragments, texts, data, problems, time.perf_counter() - began


@pytest.mark.browser
def test_mathjax_is_configured_like_jupyterlab(typeset_all):
    _, _, data, problems, seconds = typeset_all
    assert not problems, "\n".join(problems)
    assert data["version"].startswith("3."), data["version"]
    packages = set(data["packages"])
    assert packages == set(data["allPackages"]) - set(HIDE_ERRORS) | {"require"}, sorted(packages)
    assert {"base", "ams", "mathtools", "textmacros"} <= packages, sorted(packages)
    print(f"MathJax {data['version']}, {len(data['results'])} fragments typeset in {seconds:.1f} s")


@pytest.mark.browser
def test_the_check_can_fail(typeset_all):
    _, texts, data, _, _ = typeset_all
    bad, good, undefined = (texts.index(tex) for tex in (SELF_TEST_BAD, SELF_TEST_GOOD, SELF_TEST_UNDEFINED))
    problems = dict(fragment_problems(texts, data["results"]))
    assert "Misplaced &" in problems.get(bad, ""), problems.get(bad)
    assert good not in problems, problems[good]
    assert "Undefined control sequence" in problems.get(undefined, ""), problems.get(undefined)


@pytest.mark.browser
def test_every_notebook_formula_typesets_as_in_jupyterlab(typeset_all):
    fragments, texts, data, _, _ = typeset_all
    assert fragments, f"no math found in the notebooks under {BOOK}"
    problems = [
        (fragments[n], message)
        for n, message in fragment_problems(texts, data["results"])
        if n < len(fragments)
    ]
    lines = [
        f"{fragment.notebook} cell {fragment.cell}: {message}: {' '.join(fragment.tex.split())[:80]!r}"
        for fragment, message in problems
    ]
    assert not lines, (
        f"{len(lines)} of {len(fragments)} formulas of the notebooks do not typeset in JupyterLab"
        " (use \\begin{aligned} … \\end{aligned} for & and \\\\ inside $$ … $$):\n" + "\n".join(lines)
    )


# ------------------------------------------------------------------------------------------------
# The splitter, on made-up cells (no browser)


@pytest.mark.parametrize(
    "source, expected",
    [
        ("hello, $ \\alpha $, there", ["$ \\alpha $"]),
        ("a $$x = 1$$ b $y$", ["$$x = 1$$", "$y$"]),
        ("$$\na &= b \\\\\n&= c\n$$", ["$$\na &= b \\\\\n&= c\n$$"]),
        ("text\n\\begin{align}\na &= b\n\\end{align}\nmore", ["\\begin{align}\na &= b\n\\end{align}"]),
        ("`$foo` and `$bar` are variables", []),
        ("```python\nprice = '$5'\nx = '$6'\n```\n$z$", ["$z$"]),
        ("`\\begin{aligned}` is an environment", []),
        ("costs $5 and\n\nthen $6", []),  # math never runs through a blank line
        ("$\\{a\\}$ and $x_{a $ b}$", ["$\\{a\\}$", "$x_{a $ b}$"]),  # braces balance
        ("\\\\(x\\\\) and \\\\[y\\\\]", ["\\(x\\)", "\\[y\\]"]),
        ("a \\$5 price, $b$", ["$b$"]),
        ("@@0@@ is not math, $c$ is", ["$c$"]),
        ("| a | $x|y$ |\n|---|---|\n| 1 | $z$ |", ["$x|y$", "$z$"]),
        ("~~~\n$q$\n~~~\n$r$ ~ `s`", ["$r$"]),
    ],
)
def test_math_is_split_out_as_jupyterlab_does(source, expected):
    assert math_fragments(source) == expected


def test_remove_math_keeps_the_text_around_the_math():
    text, math, literal = remove_math("`$a` costs ~$b$~ @@7@@")
    assert text == "`$a` costs ~@@0@@~ @@1@@"
    assert math == ["$b$", "@@7@@"]
    assert literal == {1}
