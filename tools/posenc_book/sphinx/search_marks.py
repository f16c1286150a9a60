"""Sphinx extension: mark each page's HTML for the search (Pagefind, see templates/search.html).

Pagefind reads the built pages; these marks in the article decide what it indexes and links:

- **Section hits.** Pagefind turns a heading that has an ``id`` into a sub-result, linked as
  ``page.html#id``. Docutils puts the id on the ``<section>`` and none on its ``<h2>``, so every hit
  opened the top of a 39,000 px page. The id moves from the section to its heading (never copied:
  an id stays unique). The page's contents links, the theme's scrollspy (which follows a link's
  target, or the heading inside it) and the language switch still find it. The page's own section
  keeps its id: the text above the first subheading is the page's hit, not a sub-result that
  repeats the page's title.
- **No "#" in excerpts.** The heading's permalink (``a.headerlink``, text "#") is not indexed.
- **No TeX in excerpts.** A formula is indexed once, as readable text (``θ_i``, ``2^(-24)``), made
  from its TeX and given to Pagefind in an attribute (``data-pagefind-index-attrs``); the element
  itself is ignored, so neither the TeX source nor what a renderer draws from it (MathJax's glyphs
  and its hidden assistive MathML copy) reaches the index. Math already rendered at build time
  (no TeX left in the element) keeps the assistive MathML, whose text is real characters, and its
  drawn copy is ignored: again once.
- **Titles with their numbers.** A chapter's result is titled as its heading reads: "6. ...".
- **Chapters first.** Words on the course pages (the edition's index, the glossary, the API
  reference, the instructor pages) weigh less than a chapter's (``data-pagefind-weight``), so a
  topic's chapter ranks above the syllabus, the assessment and the glossary entries that name it.

All of it is done on the rendered body of the page (``html-page-context``), HTML builder only: the
EPUB has no search.
"""

from __future__ import annotations

import html
import re

# The pages that are not chapters (chapters are 01_motivation ... 10_real_model, with a chapter's own page of
# optional deep dives such as 06a_rope_deeper).
CHAPTER = re.compile(r"(^|/)\d\d[a-z]?_[^/]*$")
# How much a course page's words weigh, against 1 for a chapter's prose (Pagefind's scale, 0-10;
# headings weigh 5-7 on a chapter page, and inside an explicitly weighted block they take its weight).
COURSE_WEIGHT = "0.3"
# The attribute that carries a formula's readable text to Pagefind.
TEXT_ATTRIBUTE = "data-search-text"

SECTION_HEADING = re.compile(
    r'<section(?P<before>[^>]*?) id="(?P<id>[^"]+)"(?P<after>[^>]*)>'
    r"(?P<between>\s*(?:<span id=\"[^\"]*\"></span>\s*)*)<h(?P<level>[2-6])>"
)
HEADERLINK = re.compile(r'<a class="headerlink"(?![^>]*data-pagefind-ignore)')
FIRST_H1 = re.compile(r"<h1[^>]*>(?P<inner>.*?)</h1>", re.DOTALL)
MATH = re.compile(
    r'<(?P<tag>span|div) class="(?P<class>math\b[^"]*)"(?P<attributes>[^>]*)>(?P<content>.*?)</(?P=tag)>',
    re.DOTALL,
)
ASSISTIVE = re.compile(r"<mjx-assistive-mml(?![^>]*data-pagefind-ignore)")
DRAWN = re.compile(r"<mjx-math(?![^>]*data-pagefind-ignore)")

# TeX to readable text: the symbols the book's formulas use, then the commands that only space,
# size or style, then those whose argument is what a reader reads.
GREEK = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho varsigma"
SYMBOLS = {
    **{name: chr(0x3B1 + i) for i, name in enumerate(f"{GREEK} sigma tau upsilon phi chi psi omega".split())},
    **{name.capitalize(): chr(0x391 + i) for i, name in enumerate(GREEK.split()) if name != "varsigma"},
    **dict(
        pair.split("=")
        for pair in """
        Sigma=Σ Tau=Τ Upsilon=Υ Phi=Φ Chi=Χ Psi=Ψ Omega=Ω varepsilon=ε varphi=φ vartheta=ϑ ell=ℓ
        cdot=· times=× dots=… ldots=… cdots=⋯ vdots=⋮ ddots=⋱ approx=≈ le=≤ leq=≤ ge=≥ geq=≥ ne=≠
        neq=≠ lesssim=≲ top=⊤ sqrt=√ sum=Σ prod=Π infty=∞ in=∈ iff=⇔ mapsto=↦ to=→ rightarrow=→
        pm=± odot=⊙ angle=∠ partial=∂ lVert=‖ rVert=‖ lvert=| rvert=| lfloor=⌊ rfloor=⌋ lceil=⌈
        rceil=⌉ langle=⟨ rangle=⟩ mid=|
        """.split()  # noqa: RUF001 (the symbols are meant)
    ),
}
# The symbols that join their neighbours as a letter does (q^⊤k); the others stand apart (a · b).  # noqa: RUF003
JOINING = "⊤‖|⌊⌋⌈⌉⟨⟩√"  # noqa: RUF001
SPACING = set(
    "left right big Big bigl bigr Bigl Bigr bigg Bigg quad qquad displaystyle nonumber limits".split()
)
STYLE = set(
    "text mathrm operatorname texttt mathbf mathcal mathbb mathit boldsymbol hat widehat tilde"
    " widetilde bar overline underline underbrace overbrace vec textbf textit mbox".split()
)
INNER_BRACES = r"\{([^{}]*)\}"


def readable(tex: str) -> str:
    """Readable text of a TeX formula, for the search index: ``\\theta_i`` -> ``θ_i``.

    Not a typesetter: enough that an excerpt shows words and symbols, never a backslash command.
    """
    text = re.sub(r"^\s*\\[(\[]|\\[)\]]\s*$", "", tex.strip())
    text = re.sub(r"\\(begin|end)\{[^}]*\}(\{[^}]*\})?", " ", text)
    text = text.replace("\\\\", " ").replace("&", " ")
    text = re.sub(r"\\label\{[^}]*\}", "", text)
    # \frac{a}{b} -> (a)/(b), innermost first.
    fraction = re.compile(r"\\[dt]?frac\s*" + INNER_BRACES + r"\s*" + INNER_BRACES)
    while (new := fraction.sub(lambda m: f"{_group(m[1])}/{_group(m[2])}", text)) != text:
        text = new
    text = re.sub(r"\\([,;:! ])", " ", text)

    def command(match: re.Match) -> str:
        name = match[1]
        if name in SYMBOLS:
            symbol = SYMBOLS[name]
            return symbol if symbol.isalpha() or symbol in JOINING else f" {symbol} "
        if name in SPACING:
            return " "
        if name in STYLE:
            return ""
        return f"{name} "  # cos, sin, ln, exp, max ...: the function's name

    text = re.sub(r"\\([A-Za-z]+)\s*", command, text)
    text = re.sub(r"\\(.)", r"\1", text)  # \{ \} \% \_
    # Sub- and superscripts: x_{ij} -> x_ij, 2^{-24} -> 2^(-24).
    while (new := re.sub(r"([_^])" + INNER_BRACES, lambda m: m[1] + _group(m[2]), text)) != text:
        text = new
    text = text.replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", text).strip()


def _group(text: str) -> str:
    text = text.strip()
    return text if len(text) <= 1 or re.fullmatch(r"[\w.·]+", text) else f"({text})"


def _mark_math(match: re.Match) -> str:
    tag, classes, attributes, content = match["tag"], match["class"], match["attributes"], match[4]
    if "data-pagefind-ignore" in attributes:
        return match[0]
    if "<mjx-" in content and not re.search(r"\\[(\[]", content):
        # Rendered at build time: the assistive MathML is the text; the drawn copy is ignored.
        content = DRAWN.sub("<mjx-math data-pagefind-ignore", content)
        return f'<{tag} class="{classes}"{attributes}>{content}</{tag}>'
    tex = html.unescape(re.sub(r"<[^>]+>", "", content))
    # A zero-width space ends the text: Pagefind adds a full stop after an attribute ending in a word
    # character ("θ_i." mid-sentence); it drops the zero-width space from the index.
    text = html.escape(readable(tex) + "\u200b", quote=True)
    marks = f' data-pagefind-ignore data-pagefind-index-attrs="{TEXT_ATTRIBUTE}" {TEXT_ATTRIBUTE}="{text}"'
    return f'<{tag} class="{classes}"{attributes}{marks}>{content}</{tag}>'


def mark(body: str, pagename: str) -> str:
    """The page body ``body`` with the search's marks (see the module's docstring)."""
    body = SECTION_HEADING.sub(
        lambda m: f'<section{m["before"]}{m["after"]}>{m["between"]}<h{m["level"]} id="{m["id"]}">',
        body,
    )
    body = HEADERLINK.sub('<a class="headerlink" data-pagefind-ignore', body)
    body = MATH.sub(_mark_math, body)
    if CHAPTER.search(pagename) and (heading := FIRST_H1.search(body)):
        # The result's title is the heading as it reads, number included ("6. ...", "6. 상대 ..."),
        # given on the page's section (the headings stay as Sphinx writes them: tests read them).
        title = re.sub(r'<a class="headerlink".*?</a>', "", heading["inner"], flags=re.DOTALL)
        title = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", title))).strip()
        meta = html.escape(f"title:{title}", quote=True)
        body = re.sub(r"<section\b", f'<section data-pagefind-meta="{meta}"', body, count=1)
    elif not CHAPTER.search(pagename):
        # On the page's first section, which holds all of it (no wrapper that the CSS would meet).
        body = re.sub(r"<section\b", f'<section data-pagefind-weight="{COURSE_WEIGHT}"', body, count=1)
    return body


def mark_page(app, pagename, templatename, context, doctree):
    if app.builder.name != "html" or "body" not in context or doctree is None:
        return
    context["body"] = mark(context["body"], pagename)


def setup(app):
    app.connect("html-page-context", mark_page)
    # A Sphinx build rewrites a page only if its source changed: raise env_version when the marks
    # change, so that the next build rewrites every page.
    return {"env_version": 2, "parallel_read_safe": True, "parallel_write_safe": True}
