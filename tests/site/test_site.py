"""The built site, verified in a real browser, offline.

Debian's Chromium, driven by Playwright, reads `_build/html` served on 127.0.0.1; every request to
any other host is blocked and counted as a failure, as for a reader with no internet. Every page of
_toc.yml, and each edition's search, index and 404 page, is visited once (the `reports` fixture) and
judged by the functions of tests/site_helpers.py; the last tests break copies of the built site on
purpose and show that those same functions notice.

`make test` builds the site first. Without /usr/bin/chromium these tests are skipped, except under
CI=true, where a missing browser is a failure.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from site_helpers import (
    AXE_IMPACTS,
    EDITION,
    MATH_READY_JS,
    PHONE_JS,
    SCREENSHOTS,
    PageReport,
    axe_problems,
    docname_of_url,
    editions,
    english_ui_problems,
    hangul_problems,
    image_problems,
    internal_link_problems,
    korean_fonts,
    lang_problems,
    load_problems,
    math_problems,
    new_context,
    page_language,
    screenshot_name,
    search,
    serve,
    showcase_pages,
    site_docnames,
    site_path,
    switch_problems,
    toc_docnames,
    visit,
    watched_page,
)

pytestmark = pytest.mark.browser

TOC_DOCNAMES = toc_docnames()
DOCNAMES = site_docnames()
SHOWCASE = showcase_pages(TOC_DOCNAMES)
# Where the link crawler starts: every page a reader can land on.
SEEDS = [site_path(name) for name in DOCNAMES]


# ------------------------------------------------------------------------------------------------
# Fixtures (the browser, the site and its server are in conftest.py): one visit of every page


@pytest.fixture(scope="module")
def context(browser):
    context = new_context(browser)
    yield context
    context.close()


@pytest.fixture(scope="module")
def reports(context, served) -> dict[str, PageReport]:
    """Each page, visited once, with an axe scan; the showcase pages also get a screenshot."""
    expected = {screenshot_name(name) for name in SHOWCASE}
    for stale in SCREENSHOTS.glob("*.png"):
        if stale.name not in expected:
            stale.unlink(missing_ok=True)
    return {
        name: visit(
            context,
            served,
            name,
            screenshot=SCREENSHOTS / screenshot_name(name) if name in SHOWCASE else None,
            axe=True,
            phone_sizes=tuple(PHONES.values()),
        )
        for name in DOCNAMES
    }


@pytest.fixture(scope="module")
def korean():
    return korean_fonts()


def edition_pages(lang):
    return [name for name in DOCNAMES if EDITION.match(name) and page_language(name) == lang]


# ------------------------------------------------------------------------------------------------
# Every page of the table of contents


def test_every_toc_page_was_built(site):
    missing = [name for name in DOCNAMES if not (site / site_path(name)).is_file()]
    assert not missing, f"pages with no HTML in {site}: {missing}"


def test_each_edition_is_a_build_of_its_own(site):
    """en/, id/ and ko/ each hold a complete Sphinx build: their own assets, search page and index."""
    for lang in editions(TOC_DOCNAMES):
        for name in ("_static/documentation_options.js", "search.html", "genindex.html", "404.html"):
            assert (site / lang / name).is_file(), f"{lang}/{name} is missing"
        options = (site / lang / "_static" / "documentation_options.js").read_text(encoding="utf-8")
        assert re.search(rf"LANGUAGE: '{lang}'", options), f"{lang}/ was not built with language {lang!r}"


@pytest.mark.parametrize("docname", DOCNAMES)
def test_page_loads_offline_without_errors(reports, docname):
    """No blocked request, no failed request or HTTP error, no console or JavaScript error."""
    assert load_problems(reports[docname]) == []


@pytest.mark.parametrize("docname", DOCNAMES)
def test_math_renders_from_the_site_itself(reports, docname):
    """MathJax comes from the built site, once, and typesets every formula without error."""
    assert math_problems(reports[docname]) == []


def test_math_is_there_to_check(reports):
    """The book is about a formula: if no page had formulas, the math checks would prove nothing."""
    assert sum(report.math_total for report in reports.values()) > 0


@pytest.mark.parametrize("docname", DOCNAMES)
def test_images_load_and_have_alt_text(reports, docname):
    assert image_problems(reports[docname]) == []


@pytest.mark.parametrize("docname", DOCNAMES)
def test_korean_text_is_drawn_with_a_hangul_font(reports, korean, docname):
    """Chromium's own account (DevTools CSS.getPlatformFontsForNode) of the fonts that drew Hangul.

    Checked on every page that shows Hangul (the landing page, the Korean edition, the switch labels).
    """
    report = reports[docname]
    if page_language(docname) == "ko" and report.hangul is None and not report.visit_errors:
        pytest.fail(f"{docname} is in the Korean edition but shows no Hangul")
    assert hangul_problems(report.hangul, korean) == []


def test_some_page_shows_hangul(reports):
    """The landing page names the Korean edition (한국어), so the font check always has a subject."""
    assert any(report.hangul for report in reports.values()), "no page shows Hangul: nothing was checked"


@pytest.mark.parametrize("docname", DOCNAMES)
def test_html_lang_matches_the_page_path(reports, docname):
    """book/en/ -> en, book/id/ -> id, book/ko/ -> ko, the landing page -> en.

    Strict for every page once any page has a lang other than "en" (the language-switch extension has
    landed); until then only the pages expected to be "en" can be judged.
    """
    expected = page_language(docname)
    switched = any(report.lang not in (None, "en") for report in reports.values())
    if expected != "en" and not switched:
        pytest.skip(f'no page has a <html lang> other than "en" yet, so {docname} ({expected}) is not judged')
    assert lang_problems(reports[docname], expected) == []


@pytest.mark.parametrize("docname", DOCNAMES)
def test_language_switch_lands_on_the_same_page(reports, docname):
    """Links a.lang-switch[hreflang] go to this page in each other edition that has it."""
    if not any(report.switch_links for report in reports.values()):
        pytest.skip("no page has a .lang-switch link yet (language-switch extension, or only one edition)")
    langs = {name: report.lang for name, report in reports.items()}
    assert switch_problems(reports[docname], DOCNAMES, langs) == []


# ------------------------------------------------------------------------------------------------
# The site as a whole


def test_site_root_is_the_landing_page_with_the_language_chooser(context, served):
    report = PageReport(docname="book/index", url=served, base_url=served)
    page = watched_page(context, report)
    try:
        page.goto(served, wait_until="load")
        links = page.eval_on_selector_all(
            "main a[hreflang]", "as => as.map(a => [a.getAttribute('hreflang'), a.href])"
        )
        offline_note = page.text_content("main")
    finally:
        page.close()
    assert load_problems(report) == []
    assert {lang: docname_of_url(href, served) for lang, href in links} == {
        lang: f"book/{lang}/index" for lang in editions(TOC_DOCNAMES)
    }
    assert "make serve" in offline_note  # the search needs HTTP: the landing page says how


# ------------------------------------------------------------------------------------------------
# Search: one index per edition, with each language's word forms

# Per edition: (query, the inflected forms that pages use instead of it). Each query must find every
# page of its edition that uses one of those forms, at least one such page must not contain the query
# itself as a word (so the match needs the language analysis), and no page of another edition.
SEARCH_QUERIES = {
    "en": [
        ("frequency", r"\bfrequencies\b"),
        ("rotate", r"\brotat(?:es|ed|ing|ion|ions)\b"),
        ("shift", r"\bshift(?:s|ed|ing)\b"),
        ("prove", r"\bprov(?:es|ed|ing)\b"),  # not "improved"
        ("encode", r"\bencod(?:es|ed|ing|ings)\b"),
    ],
    "id": [
        ("putar", r"(?:memutar|diputar|perputaran|berputar|putarannya)"),
        ("jumlah", r"(?:dijumlahkan|menjumlahkan|penjumlahan|jumlahnya)"),
        ("banding", r"(?:membandingkan|dibandingkan|perbandingan)"),
        ("geser", r"(?:pergeseran|digeser|menggeser|bergeser)"),
        ("hitung", r"(?:menghitung|dihitung|perhitungan|hitungan)"),
    ],
    "ko": [
        ("내적", r"내적(?:은|이|을|의|에|과|도|으로)"),
        ("행렬", r"행렬(?:은|이|을|의|에|과|도|로)"),
        ("모델", r"모델(?:은|이|을|의|에|과|도|로|에서)"),
        ("단어", r"단어(?:는|가|를|의|에|와|도|로)"),
        ("문장", r"문장(?:은|이|을|의|에|과|도|으로)"),
    ],
}
# One word of all three editions: each edition's search must still find only its own pages.
SHARED_QUERY = "NumPy"


def article_text(site, docname) -> str:
    html = (site / site_path(docname)).read_text(encoding="utf-8")
    article = re.search(r'<article class="bd-article"[^>]*>(.*)</article>', html, re.DOTALL)
    return re.sub(r"<[^>]+>", " ", article[1] if article else "")


def pages_using(site, lang, pattern) -> list[str]:
    return [
        name
        for name in TOC_DOCNAMES
        if page_language(name) == lang
        and EDITION.match(name)
        and re.search(pattern, article_text(site, name))
    ]


@pytest.mark.parametrize(
    ("lang", "query", "forms"),
    [(lang, query, forms) for lang, queries in SEARCH_QUERIES.items() for query, forms in queries],
)
def test_search_finds_inflected_forms_in_its_own_edition(site, context, served, lang, query, forms):
    expected = pages_using(site, lang, forms)
    assert expected, f"no {lang} page uses {forms}: choose another query"
    bare = re.compile(rf"(?<![\w]){re.escape(query)}(?![\w])", re.IGNORECASE)
    assert any(not bare.search(article_text(site, name)) for name in expected), (
        f"every page with {forms} also has {query!r} itself: the query proves nothing about word forms"
    )
    found, report = search(context, served, lang, query)
    print(f"search {lang} {query!r}: {len(found)} pages: {found}")
    assert load_problems(report) == []
    assert not set(expected) - set(found), f"{query!r} missed {sorted(set(expected) - set(found))}"
    assert all(page_language(name) == lang for name in found), found


@pytest.mark.parametrize("lang", SEARCH_QUERIES)
def test_search_of_a_word_in_every_edition_stays_in_its_own(site, context, served, lang):
    expected = pages_using(site, lang, SHARED_QUERY)
    found, report = search(context, served, lang, SHARED_QUERY)
    print(f"search {lang} {SHARED_QUERY!r}: {len(found)} pages: {found}")
    assert load_problems(report) == []
    assert expected and not set(expected) - set(found), (expected, found)
    assert all(page_language(name) == lang for name in found), found


def test_search_box_of_every_page_goes_to_its_edition_search(site):
    for name in DOCNAMES:
        if EDITION.match(name):
            html = (site / site_path(name)).read_text(encoding="utf-8")
            actions = set(re.findall(r'<form class="bd-search[^"]*"\s+action="([^"]*)"', html))
            # On the search page itself, the box submits to the page ("#").
            allowed = {"#"} if name.endswith("/search") else {"search.html"}
            assert actions and actions <= allowed, (name, actions)


# ------------------------------------------------------------------------------------------------
# No English on the Indonesian and Korean pages; what a first visit weighs


@pytest.mark.parametrize("docname", [name for name in DOCNAMES if page_language(name) in ("id", "ko")])
def test_no_english_in_the_interface(reports, docname):
    """Accessible names, tooltips, chrome and interface words of id and ko pages are in their language."""
    report = reports[docname]
    assert report.ui_strings, f"no interface strings were read: {report.visit_errors}"
    assert english_ui_problems(report.ui_strings) == []


# Phones (issue 25): the widths of the two most common small screens, in portrait.
PHONES = {"360 x 780": (360, 780), "390 x 844": (390, 844)}


@pytest.mark.parametrize("docname", DOCNAMES)
def test_no_page_scrolls_sideways_on_a_phone(reports, docname):
    """At each phone width the header's buttons wrap, wide tables, math and code scroll in their own box,
    long words break (the reports narrow each visited page), and Korean breaks between words."""
    report = reports[docname]
    assert set(report.phone) == {width for width, _ in PHONES.values()}, report.visit_errors
    wide = {width: found["over"] for width, found in report.phone.items() if found["over"] > 0}
    assert wide == {}, f"scrolls sideways by (px, at each width): {wide}"
    if page_language(docname) == "ko":
        assert all(found["wordBreak"] in (None, "keep-all") for found in report.phone.values()), report.phone


@pytest.mark.parametrize("screen", PHONES)
def test_phone_with_touch_loads_each_landing_page_without_sideways_scroll(browser, served, screen):
    """A touch phone (mobile viewport, touch events) on the landing page of each edition and a chapter."""
    width, height = PHONES[screen]
    context = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=True, is_mobile=True, service_workers="block"
    )
    page = context.new_page()
    pages = [name for name in DOCNAMES if name.endswith(("/index", "/02_formula", "/06_rope"))]
    found = {}
    for name in pages:
        page.goto(served + site_path(name), wait_until="load")
        page.evaluate(MATH_READY_JS)
        found[name] = page.evaluate(PHONE_JS)["over"]
    context.close()
    assert len(pages) >= 9 and all(over <= 0 for over in found.values()), found


def test_no_broken_internal_link(site):
    problems, counts = internal_link_problems(site, SEEDS)
    assert counts["pages"] >= len(DOCNAMES)  # every page a reader can land on, at least
    assert problems == [], f"{len(problems)} problems in {counts}"


@pytest.mark.parametrize("docname", DOCNAMES)
def test_no_accessibility_violation(reports, docname):
    """axe-core on every page, at 1280 px in light mode: no violation, whatever its impact (test_header.py
    scans some pages on a phone and in dark mode)."""
    report = reports[docname]
    assert report.axe_violations is not None, f"axe did not run: {report.visit_errors}"
    assert axe_problems(report.axe_violations, impacts=AXE_IMPACTS) == []


@pytest.mark.parametrize("docname", SHOWCASE)
def test_screenshot_written(reports, docname):
    path = SCREENSHOTS / screenshot_name(docname)
    assert reports[docname].screenshot == path
    assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


# ------------------------------------------------------------------------------------------------
# The checks can fail: deliberately broken copies of the built site


def first_page_with(site: Path, marker: str) -> str:
    for name in DOCNAMES:
        if marker in (site / site_path(name)).read_text(encoding="utf-8"):
            return name
    pytest.fail(f"no page of the book contains {marker!r}: cannot build the broken fixture")


def _swap_lang(html: str) -> str:
    return re.sub(r'<html lang="en"', '<html lang="ko"', html, count=1)


def _in_head(snippet: str):
    return lambda html: html.replace("</head>", snippet + "</head>", 1)


def _first_img(change):
    """Change the first figure of the page (an <img> from _images/, not a theme icon)."""
    return lambda html: re.sub(r"<img [^>]*_images/[^>]*>", lambda m: change(m[0]), html, count=1)


CDN_MATHJAX = "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"
BROKEN = {
    # name: (what the page must contain, how to break it, what the checks must then report)
    "unchanged": ('class="math', lambda html: html, []),
    # The math is typeset when the site is built: a formula left as TeX, or MathJax loaded, is reported.
    "math-left-as-tex": (
        'class="math',
        lambda html: re.sub(
            r'(<span class="math[^"]*">)<mjx-container.*?</mjx-container>',
            r"\1\\(x_i\\)",
            html,
            count=1,
            flags=re.S,
        ),
        ["formulas were not typeset"],
    ),
    "mathjax-from-cdn": (
        "</head>",
        _in_head(f'<script src="{CDN_MATHJAX}"></script>'),
        ["blocked a request to another host: https://cdn.jsdelivr.net", "loads a MathJax script"],
    ),
    "image-without-alt": ("_images/", _first_img(lambda tag: re.sub(r' alt="[^"]*"', "", tag)), ["no alt"]),
    "image-alt-is-file-name": (
        "_images/",
        _first_img(lambda tag: re.sub(r' alt="[^"]*"', ' alt="../../_images/figure.png"', tag)),
        ["only a file name"],
    ),
    "image-missing": (
        "_images/",
        _first_img(lambda tag: re.sub(r' src="[^"]*"', ' src="_images/missing.png"', tag)),
        ["image did not load", "HTTP error: 404"],
    ),
    "wrong-lang": ('<html lang="en"', _swap_lang, ['<html lang="ko">']),
    "console-error": ("</head>", _in_head("<script>console.error('deliberate')</script>"), ["console error"]),
    "javascript-error": ("</head>", _in_head("<script>notDefined()</script>"), ["uncaught JavaScript"]),
    "stylesheet-from-cdn": (
        "</head>",
        _in_head('<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">'),
        ["blocked a request to another host: https://fonts.googleapis.com"],
    ),
}


@pytest.fixture(scope="module")
def broken_copy(site, tmp_path_factory):
    """A copy of the built site, served on its own port; each case adds one broken twin of a page."""
    copy = tmp_path_factory.mktemp("broken") / "html"
    shutil.copytree(site, copy)
    with serve(copy) as base_url:
        yield copy, base_url


@pytest.mark.parametrize("case", BROKEN)
def test_checks_catch_a_broken_page(site, context, broken_copy, case):
    """A page broken on purpose, next to the original in a copy of the site: the checks report it."""
    marker, spoil, expected = BROKEN[case]
    docname = first_page_with(site, marker)
    copy, base_url = broken_copy
    original = (copy / site_path(docname)).read_text(encoding="utf-8")
    broken = spoil(original)
    assert (broken != original) == bool(expected), "the fixture did not change the page"
    # Beside the original, so that its relative links and assets resolve as they do for the original.
    twin = site_path(docname).replace(".html", f".broken-{case}.html")
    (copy / twin).write_text(broken, encoding="utf-8")
    report = visit(context, base_url, docname, path=twin)
    problems = (
        load_problems(report)
        + math_problems(report)
        + image_problems(report)
        + lang_problems(report, page_language(docname))
    )
    for message in expected:
        assert any(message in problem for problem in problems), (message, problems)
    if not expected:
        assert problems == []


def test_link_check_catches_broken_links_and_remote_resources(site, tmp_path):
    copy = tmp_path / "html"
    shutil.copytree(site, copy)
    page = copy / site_path(DOCNAMES[0])
    html = page.read_text(encoding="utf-8")
    page.write_text(
        html.replace(
            "</body>",
            '<a href="en/no-such-page.html">x</a><a href="#no-such-anchor">y</a>'
            f'<script src="{CDN_MATHJAX}"></script></body>',
            1,
        ),
        encoding="utf-8",
    )
    problems, _ = internal_link_problems(copy, SEEDS)
    for message in ("broken link: en/no-such-page.html", "broken anchor: #no-such-anchor", "another host"):
        assert any(message in problem for problem in problems), (message, problems)


# The switch and font checks, on made-up reports (no browser needed).

PAGES = ["book/index", "book/en/index", "book/en/01_x", "book/id/index", "book/id/01_x", "book/ko/index"]
BASE = "http://127.0.0.1:1/"


def switch_report(*links):
    report = PageReport(docname="book/en/01_x", url=f"{BASE}en/01_x.html", base_url=BASE)
    report.switch_links = [{"hreflang": lang, "href": BASE + href, "text": lang} for lang, href in links]
    return report


@pytest.mark.parametrize(
    ("links", "langs", "message"),
    [
        ([("id", "id/01_x.html")], {}, None),
        ([], {}, "no switch link to the id edition"),
        ([("id", "id/index.html")], {}, "not to the same page"),
        ([("ko", "id/01_x.html")], {}, 'a "id" page'),
        ([("id", "id/02_y.html")], {}, "not a page of the book"),
        ([("id", "id/01_x.html")], {"book/id/01_x": "en"}, "whose <html lang>"),
        ([(None, "id/01_x.html")], {}, "without hreflang"),
    ],
)
def test_switch_check(links, langs, message):
    problems = switch_problems(switch_report(*links), PAGES, langs)
    if message is None:
        assert problems == []
    else:
        assert any(message in problem for problem in problems), problems


def test_switch_check_knows_the_landing_page_and_missing_twins():
    assert editions(PAGES) == ["en", "id", "ko"]
    assert showcase_pages(PAGES) == ["book/index", "book/en/01_x", "book/id/01_x", "book/ko/index"]
    landing = PageReport(docname="book/index", url=f"{BASE}index.html", base_url=BASE)
    assert switch_problems(landing, PAGES, {}) == []  # the landing page needs no switch
    assert docname_of_url(f"{BASE}en/", BASE) == "book/en/index"
    assert docname_of_url(f"{BASE}ko/05_rotation.html", BASE) == "book/ko/05_rotation"
    assert docname_of_url(BASE, BASE) == "book/index"
    assert (
        site_path("book/ko/05_rotation") == "ko/05_rotation.html" and site_path("book/index") == "index.html"
    )


def test_english_check_catches_theme_words_and_spares_proper_names():
    assert english_ui_problems(['title="Toggle primary sidebar"', "Copied!"]) != []
    assert len(english_ui_problems(['title="Toggle primary sidebar"', "Copied!"])) == 2
    assert english_ui_problems(['alt="Binder (logo)"', "Jalankan di Colab", "NumPy", "Ctrl+K", "검색"]) == []


@pytest.mark.parametrize(
    ("fonts", "message"),
    [
        ([{"familyName": "Noto Sans CJK KR", "glyphCount": 4}], None),
        ([{"familyName": "DejaVu Sans", "glyphCount": 4}], "fonts without Hangul"),
        (
            [{"familyName": "Noto Sans CJK KR", "glyphCount": 2}, {"familyName": "X", "glyphCount": 2}],
            "2 of 4",
        ),
    ],
)
def test_hangul_check(fonts, message):
    hangul = {"text": "회전행렬", "element": "p", "fonts": fonts}
    problems = hangul_problems(hangul, {"Noto Sans CJK KR"})
    if message is None:
        assert problems == []
    else:
        assert any(message in problem for problem in problems), problems
    assert hangul_problems(hangul, set())[0].startswith("fontconfig lists no font covering Korean")
    assert hangul_problems(None, set()) == []
