"""The interactive figures on the built site, in headless Chromium, offline.

Chapters 2, 5 and 6 of every edition carry a figure made by posenc.plot.interactive.
On each of these pages the browser must draw it with the vendored plotly.js,
move its data when the reader moves the slider (here with the keyboard), log no
console error and send no request off the site; a reader without JavaScript
sees its PNG. The first-visit weight of each page is measured with its
figure and with the figure and its scripts cut out of the same page; the
difference is printed and held to an allowance.

Screenshots of one slider step of each figure, before and after, go to
_build/screenshots-interactive/. Skipped without /usr/bin/chromium, except
under CI=true, where a missing browser is a failure.
"""

from __future__ import annotations

import json
import re

import pytest
from site_helpers import (
    INTERACTIVE_ALLOWANCE,
    MATH_READY_JS,
    SITE,
    PageReport,
    axe_problems,
    first_visit_bytes,
    new_context,
    run_axe,
    site_path,
    watched_page,
)

pytestmark = pytest.mark.browser

FIGURES = {"02_formula": "formula-base", "05_rotation": "rotation-shift", "06_rope": "rope-decay-base"}
PAGES = [f"book/{lang}/{chapter}" for lang in ("en", "id", "ko") for chapter in FIGURES]
SHOTS = SITE.parent / "screenshots-interactive"
# The traces' data as plotly holds them, and the figure's slider steps as the page stores them.
READ_JS = """
(id) => {
  const box = document.getElementById(id);
  const plot = box.querySelector('.posenc-plot');
  const figure = JSON.parse(box.querySelector('script.posenc-figure-data').textContent);
  const input = box.querySelector('.posenc-slider input[type=range]');
  return {
    data: plot.data.map(trace => ({x: trace.x, y: trace.y, text: trace.text})),
    steps: figure.layout.sliders[0].steps,
    prefix: figure.layout.sliders[0].currentvalue.prefix,
    value: Number(input.value),
    valuetext: input.getAttribute('aria-valuetext'),
    output: box.querySelector('.posenc-slider output').textContent,
    label: input.labels.length ? input.labels[0].textContent : null,
    dataLabel: box.dataset.label,
    fallbackImages: plot.querySelectorAll('img').length,
    plotlySlider: plot.querySelectorAll('.slider-container').length,
    scripts: performance.getEntriesByType('resource').map(entry => entry.name),
  };
}
"""


def div_id(docname: str) -> str:
    return "posenc-fig-" + FIGURES[docname.rsplit("/", 1)[1]]


def shown_by(step: dict, data: list) -> bool:
    """Whether the traces ``data`` hold what slider step ``step`` puts into them."""
    update, indices = step["args"]
    return all(
        data[index][key] == values[n] for key, values in update.items() for n, index in enumerate(indices)
    )


@pytest.mark.parametrize("docname", PAGES)
def test_the_slider_moves_the_plotted_data(browser, served, docname):
    context = new_context(browser)
    report = PageReport(docname=docname, url=served + site_path(docname), base_url=served)
    page = watched_page(context, report)
    try:
        page.goto(report.url, wait_until="load")
        page.evaluate(MATH_READY_JS)
        box = page.locator(f"#{div_id(docname)}")
        box.scroll_into_view_if_needed()  # plotly.js is loaded when the figure comes near the screen
        box.locator(".posenc-slider input").wait_for(timeout=30_000)  # added once plotly has drawn
        lang, name = docname.split("/")[1], FIGURES[docname.rsplit("/", 1)[1]]
        SHOTS.mkdir(parents=True, exist_ok=True)
        before = page.evaluate(READ_JS, div_id(docname))
        box.screenshot(path=str(SHOTS / f"{lang}-{name}-step{before['value']}.png"))

        # The keyboard moves the labelled range input two steps; the traces follow.
        box.locator(".posenc-slider input").focus()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "([id, v]) => Number(document.querySelector('#' + id + ' .posenc-slider input').value) === v",
            arg=[div_id(docname), before["value"] + 2],
        )
        after = page.evaluate(READ_JS, div_id(docname))
        box.screenshot(path=str(SHOTS / f"{lang}-{name}-step{after['value']}.png"))
        violations = run_axe(page, within=f"#{div_id(docname)}")  # the page around it: test_site.py
    finally:
        context.close()

    steps = before["steps"]
    assert shown_by(steps[before["value"]], before["data"]), "the figure does not start at its active step"
    assert after["value"] == before["value"] + 2
    assert shown_by(steps[after["value"]], after["data"]), "the traces do not show the slider's step"
    assert after["data"] != before["data"]
    # The control is named, and tells its value to screen readers, in the page's words.
    assert after["label"] == after["dataLabel"] and after["label"].strip()
    assert after["output"] == after["valuetext"] == after["prefix"] + steps[after["value"]]["label"]
    # plotly has replaced the PNG; its own slider is hidden, so the page shows one slider.
    assert after["fallbackImages"] == 0 and after["plotlySlider"] in (0, 1)
    assert any("/_static/plotly/plotly-basic.min.js" in script for script in after["scripts"]), after[
        "scripts"
    ]
    assert report.console_errors == [] and report.page_errors == []
    assert report.blocked_requests == [] and report.failed_requests == [] and report.http_errors == []
    assert axe_problems(violations) == []


def test_plotlys_slider_is_hidden(browser, served):
    context = new_context(browser)
    page = context.new_page()
    try:
        page.goto(served + site_path("book/en/06_rope"), wait_until="load")
        # chapter 6 has two figures a reader can move: every one of them hides plotly's slider
        for box in page.locator(".posenc-interactive").all():
            box.scroll_into_view_if_needed()
            box.locator(".posenc-slider input").wait_for(timeout=30_000)
        visible = page.evaluate(
            "() => [...document.querySelectorAll('.posenc-plot .slider-container')]"
            ".filter(e => e.getBoundingClientRect().width > 0).length"
        )
    finally:
        context.close()
    assert visible == 0


@pytest.mark.parametrize("docname", ["book/en/05_rotation", "book/ko/02_formula"])
def test_without_javascript_the_png_frame_is_shown(browser, served, docname):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(served + site_path(docname), wait_until="load")
        image = page.locator(f"#{div_id(docname)} .posenc-plot img")
        shown = image.evaluate(
            "img => [img.naturalWidth, img.naturalHeight, img.alt, img.parentElement.ariaLabel]"
        )
    finally:
        context.close()
    width, height, alt, name = shown
    assert width > 500 and height > 300
    assert alt and alt == name


def test_plotly_is_loaded_only_on_pages_with_a_figure():
    pages = {page.relative_to(SITE).as_posix(): page.read_text() for page in sorted(SITE.glob("*/*.html"))}
    assert len(pages) > 30, f"no built site at {SITE}"
    loading = {name for name, text in pages.items() if "plotly-basic.min.js" in text}
    with_figure = {name for name, text in pages.items() if 'class="posenc-interactive"' in text}
    assert loading == with_figure == {site_path(docname) for docname in PAGES}
    for name, text in pages.items():
        assert not re.search(r"<script[^>]+src=\"https?://", text), name


WITHOUT_FIGURE = [
    re.compile(r'<div class="posenc-interactive".*?</script>\s*</div>', re.S),
    re.compile(r"<script[^>]*(plotly-basic|posenc-figures)[^>]*></script>"),
    re.compile(r"<link[^>]*posenc-figures\.css[^>]*>"),
]


def without_figure(route):
    """Serve the page with its figure, plotly.js, the figure script and its CSS cut out."""
    response = route.fetch()
    body = response.text()
    for pattern in WITHOUT_FIGURE:
        body, count = pattern.subn("", body)
        assert count >= 1, pattern.pattern
    route.fulfill(response=response, body=body)


def test_first_visit_weight_with_and_without_the_figure(browser, served):
    rows = []
    for docname in PAGES:
        url = served + site_path(docname)
        with_figure, without = (
            first_visit_bytes(browser, url),
            first_visit_bytes(browser, url, page_route=without_figure),
        )
        rows.append((docname, with_figure, without, with_figure - without))
    print("first visit (bytes): page, with the figure, without it, added")
    for docname, with_figure, without, added in rows:
        print(f"  {docname}: {with_figure:,} {without:,} +{added:,} ({added / without:.0%})")
    plotly = (SITE / "en" / "_static" / "plotly" / "plotly-basic.min.js").stat().st_size
    for docname, _, _, added in rows:
        # The figure's JSON, PNG, script and CSS; plotly.js waits until the reader scrolls to the figure.
        assert 0 < added <= INTERACTIVE_ALLOWANCE < plotly, (docname, added)
    (SITE.parent / "interactive-weights.json").write_text(json.dumps(rows, indent=1))
