"""The search as a reader meets it (the site review, site.md #2 and #10): Pagefind's results page.

- **The topic's chapter comes first.** In each edition the word for "rotation" finds chapter 5 first
  (Korean "회전" had put it fourth, behind chapters 6 and 9 and the assessment page), and the first
  hits are chapters, not the course pages that name every chapter's topic.
- **A hit goes to its section.** A word of one section ("YaRN", §7.5.2) gives a sub-result that links
  to that section's anchor, and following it puts the section's heading at the top of the window.
- **Clean excerpts.** No permalink "#" after a heading's last word, no TeX (``\\(``, ``\\[``, a
  backslash command): formulas read as text.
- **Numbered chapter titles.** A chapter's result is titled as its heading reads ("5. ...").
- **Readable in both modes.** The results' titles, excerpts, marks, message and field have a
  contrast of 4.5:1 or more against what is behind them, in light and in dark mode (WCAG 2 formula).
- **Ids stay unique** when the section ids move to the headings, and every in-page link still lands.

What makes it so: posenc_book.sphinx.search_marks (the index), tools/posenc_book/templates/search.html
(the Korean ranking) and book/_static/posenc-search.css (the colours). Each test fails on a site built
without them (POSENC_SITE=<an older build> pytest tests/site/test_search.py). Screenshots of results
in light and dark mode go to _build/screenshots/search-*.png.
"""

from __future__ import annotations

import re
from collections import Counter
from urllib.parse import quote

import pytest
from posenc_book.sphinx.search_marks import mark, readable
from site_helpers import SCREENSHOTS, site_path

from posenc.words import LANGUAGES

pytestmark = pytest.mark.browser

# The word for "rotation" in each edition, and the chapter it names.
ROTATION = {"en": "rotation", "id": "rotasi", "ko": "회전"}
ROTATION_CHAPTER = "05_rotation"
# How many of the first hits must be chapters (the course pages name every topic too).
FIRST_CHAPTERS = 3
# A word that names a section of one chapter in every edition: §6, ALiBi (its heading and the optional
# section on its reference code).
SECTION_WORD, SECTION_CHAPTER = "ALiBi", "06_rope"
# Words whose excerpts run through headings and formulas.
EXCERPT_QUERIES = {
    "en": ["rotation", "angle", "YaRN"],
    "id": ["rotasi", "sudut", "YaRN"],
    "ko": ["회전", "각도", "YaRN"],
}
MIN_CONTRAST = 4.5
# A chapter page, or a chapter's page of deep dives (06a_rope_deeper, numbered 6.9 in the book).
CHAPTER = re.compile(r"/(\d\d[a-z]?_[a-z_]+)\.html")

RESULTS_READY_JS = """(n) => {
  const results = [...document.querySelectorAll('#search li.pagefind-ui__result')];
  return results.length >= n
    && results.slice(0, n).every(li => li.querySelector('a.pagefind-ui__result-link'));
}"""

RESULTS_JS = """() => [...document.querySelectorAll('#search li.pagefind-ui__result')].map(li => ({
  href: li.querySelector('.pagefind-ui__result-title a')?.href,
  title: li.querySelector('.pagefind-ui__result-title a')?.textContent.trim(),
  excerpts: [...li.querySelectorAll('.pagefind-ui__result-excerpt')].map(p => p.textContent),
  subs: [...li.querySelectorAll('.pagefind-ui__result-nested a')].map(a => a.href),
}))"""

# The colour of each text of the results and of what is behind it: the first ancestor (or itself)
# with an opaque background; an element's opacity is multiplied into its colour's alpha.
COLOURS_JS = """() => {
  const rgba = s => (s.match(/[\\d.]+/g) || []).map(Number).concat([1]).slice(0, 4);
  const back = el => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0.5) return c;
    }
    return rgba(getComputedStyle(document.body).backgroundColor);
  };
  const alpha = el => {
    let a = 1;
    for (let e = el; e; e = e.parentElement) a *= Number(getComputedStyle(e).opacity);
    return a;
  };
  const pick = {
    title: '#search .pagefind-ui__result-title a', excerpt: '#search .pagefind-ui__result-excerpt',
    mark: '#search mark', message: '#search .pagefind-ui__message', input: '#search input',
    sub: '#search .pagefind-ui__result-nested a',
  };
  const out = {};
  for (const [name, selector] of Object.entries(pick)) {
    const el = document.querySelector(selector);
    if (!el) continue;
    const fg = rgba(getComputedStyle(el).color);
    fg[3] *= alpha(el);
    out[name] = {fg, bg: back(el), theme: document.documentElement.dataset.theme};
  }
  return out;
}"""


def luminance(rgb) -> float:
    def channel(c):
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg, bg) -> float:
    """WCAG 2 contrast of ``fg`` (RGBA; its alpha blended over ``bg``) on the opaque ``bg``."""
    alpha = fg[3]
    blended = [alpha * f + (1 - alpha) * b for f, b in zip(fg[:3], bg[:3], strict=True)]
    lighter, darker = sorted((luminance(blended), luminance(bg)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


@pytest.fixture(scope="module")
def readers(browser):
    contexts = {
        mode: browser.new_context(
            viewport={"width": 1280, "height": 900}, color_scheme=mode, service_workers="block"
        )
        for mode in ("light", "dark")
    }
    yield contexts
    for context in contexts.values():
        context.close()


def results(context, served: str, lang: str, query: str, *, shots: str | None = None):
    """Open ``<lang>/search.html?q=query``; return the page and its results as a reader sees them."""
    page = context.new_page()
    page.goto(f"{served}{lang}/search.html?q={quote(query)}", wait_until="load")
    page.wait_for_function(RESULTS_READY_JS, arg=1, timeout=30_000)
    total = int(re.search(r"\d+", page.text_content("#search .pagefind-ui__message"))[0])
    page.wait_for_function(RESULTS_READY_JS, arg=min(total, 5), timeout=30_000)
    if shots:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / shots))
    return page, page.evaluate(RESULTS_JS)


def chapter_of(href: str) -> str | None:
    match = CHAPTER.search(href or "")
    return match[1] if match else None


def heading_text(site, lang: str, chapter: str) -> str:
    """The chapter's h1 as the page shows it, number included, without the permalink's "#"."""
    html = (site / lang / f"{chapter}.html").read_text(encoding="utf-8")
    article = html[html.index("<article") :]
    h1 = re.search(r"<h1[^>]*>(.*?)</h1>", article, re.DOTALL)[1]
    h1 = re.sub(r'<a class="headerlink".*?</a>', "", h1, flags=re.DOTALL)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", h1)).strip()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_word_for_rotation_finds_chapter_5_first(readers, served, lang):
    page, found = results(readers["light"], served, lang, ROTATION[lang])
    page.close()
    order = [chapter_of(result["href"]) or result["href"].rsplit("/", 1)[-1] for result in found]
    print(f"{lang} {ROTATION[lang]!r}: {order}")
    assert order[0] == ROTATION_CHAPTER, order
    assert all(chapter_of(result["href"]) for result in found[:FIRST_CHAPTERS]), order


@pytest.mark.parametrize("lang", LANGUAGES)
def test_chapter_hits_carry_their_number(readers, served, site, lang):
    page, found = results(readers["light"], served, lang, ROTATION[lang])
    page.close()
    chapters = [(chapter_of(result["href"]), result["title"]) for result in found]
    chapters = [(chapter, title) for chapter, title in chapters if chapter]
    assert chapters
    for chapter, title in chapters:
        expected = heading_text(site, lang, chapter)
        assert re.match(r"\d+(?:\.\d+)*\.\s", expected), f"{chapter}'s heading has no number: {expected!r}"
        assert title == expected, f"{lang}/{chapter}: the result is titled {title!r}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_hit_in_a_section_goes_to_the_section(readers, served, site, lang):
    html = (site / lang / f"{SECTION_CHAPTER}.html").read_text(encoding="utf-8")
    article = html[html.index("<article") :]
    # The sections whose heading names the word, and the anchors those headings carry now (Pagefind shows
    # a page's best few sections, and ALiBi has two, the second optional: either may be the hit).
    anchors = re.findall(rf'<h[2-4] id="([^"]+)">(?:(?!</h).)*{SECTION_WORD}', article, re.DOTALL)
    assert anchors, f"no heading of {lang}/{SECTION_CHAPTER} with an id names {SECTION_WORD}"
    page, found = results(readers["light"], served, lang, SECTION_WORD)
    subs = [sub for result in found for sub in result["subs"]]
    print(f"{lang} {SECTION_WORD}: {len(subs)} sub-results, e.g. {subs[:3]}")
    ends = tuple(f"/{SECTION_CHAPTER}.html#{anchor}" for anchor in anchors)
    target = next((sub for sub in subs if sub.endswith(ends)), None)
    assert target, f"no hit links to {SECTION_CHAPTER}.html#{anchors}: {subs}"
    anchor = target.rsplit("#", 1)[1]
    # Following it puts that heading at the top of the window, not the page's first line.
    page.click(f'#search .pagefind-ui__result-nested a[href$="#{anchor}"]')
    page.wait_for_url(re.compile(re.escape(f"{SECTION_CHAPTER}.html#{anchor}")))
    page.wait_for_function(
        "id => { const h = document.getElementById(id); if (!h) return false;"
        " const top = h.getBoundingClientRect().top; return top >= 0 && top < innerHeight / 2; }",
        arg=anchor,
        timeout=15_000,
    )
    assert page.evaluate("() => scrollY") > 1000
    # The theme's scrollspy follows the headings now: scrolled (no address change) to the first section,
    # then to this one, the page's contents mark each one's entry as the active one in turn. (Opened
    # without the "#": after a jump to an anchor the theme ignores scrolling for a second.)
    active = "id => document.querySelector(`nav.page-toc a[href='#${id}']`)?.classList.contains('active')"
    page.goto(page.url.split("#")[0], wait_until="load")
    first = page.eval_on_selector("nav.page-toc a[href^='#']", "a => a.hash.slice(1)")
    for section in (first, anchor):
        page.evaluate("id => document.getElementById(id).scrollIntoView()", section)
        page.wait_for_function(active, arg=section, timeout=15_000)
    page.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_excerpts_have_no_permalink_sign_and_no_tex(readers, served, lang):
    noise = re.compile(r"\S#(?=\s|$)|\\[(\[)\]]|\\[A-Za-z]+")
    seen = 0
    for query in EXCERPT_QUERIES[lang]:
        page, found = results(readers["light"], served, lang, query)
        page.close()
        for result in found:
            for excerpt in result["excerpts"]:
                seen += 1
                assert not noise.search(excerpt), f"{lang} {query!r}, {result['href']}: {excerpt!r}"
    assert seen >= 3 * len(EXCERPT_QUERIES[lang])


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_results_are_legible_in_light_and_dark_mode(readers, served, lang, mode):
    page, _ = results(readers[mode], served, lang, ROTATION[lang], shots=f"search-{lang}-{mode}.png")
    colours = page.evaluate(COLOURS_JS)
    page.close()
    assert {"title", "excerpt", "mark", "message", "input"} <= colours.keys(), colours.keys()
    assert {c["theme"] for c in colours.values()} == {mode}
    ratios = {name: round(contrast(c["fg"], c["bg"]), 2) for name, c in colours.items()}
    print(f"{lang} {mode}: {ratios}")
    low = {name: ratio for name, ratio in ratios.items() if ratio < MIN_CONTRAST}
    assert not low, f"{lang} {mode}: contrast below {MIN_CONTRAST}:1: {low}"


def test_phone_results_in_dark_mode(browser, served):
    """A screenshot, for the eye: the Korean results on a 390 px phone in dark mode (the review's)."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        color_scheme="dark",
        has_touch=True,
        is_mobile=True,
        service_workers="block",
    )
    page, found = results(context, served, "ko", ROTATION["ko"], shots="search-ko-phone390-dark.png")
    # The field's magnifier stays left of the first typed letter.
    icon_right, text_left = page.evaluate(
        "() => { const i = document.querySelector('#search input'); const r = i.getBoundingClientRect();"
        " const b = getComputedStyle(i.parentElement, '::before');"
        " return [r.left + parseFloat(b.left) + parseFloat(b.width),"
        " r.left + parseFloat(getComputedStyle(i).paddingLeft)]; }"
    )
    context.close()
    assert found
    assert icon_right <= text_left, (icon_right, text_left)


def test_ids_are_unique_and_in_page_links_land(site):
    pages = [
        site / site_path(f"book/{lang}/{name}")
        for lang in LANGUAGES
        for name in ("06_rope", "07_long_context", "assessment", "glossary")
    ]
    for path in pages:
        html = path.read_text(encoding="utf-8")
        ids = Counter(re.findall(r'\sid="([^"]+)"', html))
        # (sphinx-exercise repeats "exercise-content" and "solution-content" in every exercise: not ours.)
        headings = re.findall(r'<h[1-6] id="([^"]+)"', html)
        twice = sorted(name for name in headings if ids[name] > 1)
        assert headings, f"{path.name}: no heading has an id"
        assert not twice, f"{path.name}: heading ids used twice: {twice[:5]}"
        links = set(re.findall(r'href="#([^"]+)"', html))
        assert not links - ids.keys(), f"{path.name}: links to no id: {sorted(links - ids.keys())[:5]}"
    # The sections' ids are on their headings now: what Pagefind makes sub-results of.
    article = (site / "en" / f"{SECTION_CHAPTER}.html").read_text(encoding="utf-8")
    assert re.search(rf'<h[2-4] id="[^"]+">(?:(?!</h).)*{SECTION_WORD}', article, re.DOTALL)


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"\(\text{pos} \cdot \theta_i\)", "pos · θ_i"),
        (r"\(2^{-24}\)", "2^(-24)"),
        (r"\[ r_i = \frac{L\,\theta_i}{2\pi} \]", "r_i = (L θ_i)/(2π)"),
        (r"\(\omega_i = 10000^{-2i/d}\)", "ω_i = 10000^(-2i/d)"),
    ],
)
def test_formulas_are_indexed_as_text(tex, text):
    assert readable(tex) == text


def test_marks_move_ids_and_index_a_formula_once():
    body = (
        '<section id="top">\n<h1>5. Top<a class="headerlink" href="#top">#</a></h1>\n'
        '<section id="sub">\n<span id="label"></span><h2>5.1. Sub<a class="headerlink" href="#sub">#</a></h2>'
        '<p><span class="math notranslate nohighlight">\\(\\theta_i\\)</span></p>'
        # Math rendered at build time (MathJax CHTML): its drawn copy is ignored, the MathML read.
        '<p><span class="math"><mjx-container><mjx-math aria-hidden="true"><mjx-mi>θ</mjx-mi></mjx-math>'
        "<mjx-assistive-mml><math><mi>θ</mi></math></mjx-assistive-mml></mjx-container></span></p>"
        "</section></section>"
    )
    marked = mark(body, "05_rotation")
    assert 'id="top">\n<h1>' in marked  # the page's own section keeps its id
    assert '<section>\n<span id="label"></span><h2 id="sub">' in marked
    assert marked.count('id="sub"') == 1
    assert marked.count('<a class="headerlink" data-pagefind-ignore') == 2
    assert 'data-pagefind-ignore data-pagefind-index-attrs="data-search-text" data-search-text="θ_i' in marked
    assert '<mjx-math data-pagefind-ignore aria-hidden="true">' in marked
    assert "<mjx-assistive-mml>" in marked
    assert marked.startswith('<section data-pagefind-meta="title:5. Top" id="top">')
    assert "<h1>5. Top<a" in marked  # the heading itself as Sphinx wrote it
    # A course page: no numbered title of its own, and its words weigh less than a chapter's.
    assert 'data-pagefind-meta="title"' not in mark(body, "assessment")
    assert mark(body, "assessment").startswith('<section data-pagefind-weight="0.3" id="top">')
