"""What a first visit weighs, and what loads lazily: apart from tests/site/test_site.py, whose fixture
visits every page of the site, so that the two run side by side on two test workers."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from site_helpers import first_visit, gzipped_size, site_path, toc_docnames

TOC_DOCNAMES = toc_docnames()


# A chapter page's first visit, with an empty cache (issue 32): at most 2.0 MB as transferred here
# (uncompressed, headers included) and 0.5 MB gzip-encoded, as a static host serves it. Before issue 25
# the heaviest transferred 5.60 MB (2.20 MB gzip-encoded): fontawesome.js (1.49 MB) on every page, and
# plotly.js (1.19 MB) and every figure on the pages with a slider; before issue 32, 2.31 MB (0.61 MB):
# MathJax 3 (1.16 MB) on every page with math, sphinx-design's and sphinx-thebe's files on every page.
FIRST_VISIT_LIMIT = 2_000_000
FIRST_VISIT_GZIP_LIMIT = 500_000
# Loaded by no page: MathJax in the browser (the math is typeset at build time), the files of
# sphinx-design and sphinx-thebe, which Jupyter Book adds to every build and no page uses.
UNUSED_FILES = re.compile(r"mathjax/tex-|tex-chtml|sphinx-design|design-tabs|sphinx-thebe|thebe")


def test_first_visit_weight_of_every_chapter(browser, served, site):
    """Each chapter within both limits; the heaviest page and its three heaviest files are printed."""
    chapters = [name for name in TOC_DOCNAMES if re.match(r"\d\d_", PurePosixPath(name).name)]
    weights = {}
    for name in chapters:
        transfers = first_visit(browser, served + site_path(name))
        zipped = [gzipped_size(site, url, size) for url, size in transfers]
        weights[name] = (sum(size for _, size in transfers), sum(zipped), transfers)
    for column, unit in ((0, "uncompressed"), (1, "gzip-encoded")):
        heaviest = max(weights, key=lambda name: weights[name][column])
        top = sorted(weights[heaviest][2], key=lambda transfer: -transfer[1])[:3]
        files = ", ".join(f"{urlsplit(url).path.rsplit('/', 1)[-1]} {size / 1e6:.2f} MB" for url, size in top)
        print(f"first visit, heaviest {unit}: {heaviest} {weights[heaviest][column] / 1e6:.2f} MB; {files}")
    for name, (size, zipped, _) in sorted(weights.items()):
        print(f"  {name}: {size / 1e6:.3f} MB, {zipped / 1e6:.3f} MB gzip-encoded")
    unused = {urlsplit(url).path for _, _, transfers in weights.values() for url, _ in transfers}
    assert not {path for path in unused if UNUSED_FILES.search(path)}
    too_heavy = [name for name, (size, _, _) in weights.items() if size > FIRST_VISIT_LIMIT]
    too_big_zipped = [name for name, (_, zipped, _) in weights.items() if zipped > FIRST_VISIT_GZIP_LIMIT]
    assert too_heavy == [] and too_big_zipped == [], (too_heavy, too_big_zipped)


def test_images_load_lazily_and_the_icons_come_from_a_subset(site):
    """Every article image has loading="lazy"; no page loads fontawesome.js; the icon font is a subset."""
    eager = {}
    for page in sorted(site.glob("*/*.html")):
        text = page.read_text(encoding="utf-8")
        assert "scripts/fontawesome.js" not in text, page
        # The article's images; the header's two small launch-button logos load with the page.
        article = text[text.find('<article class="bd-article"') : text.rfind("</article>")]
        eager_images = [tag for tag in re.findall(r"<img\b[^>]*>", article) if 'loading="lazy"' not in tag]
        if eager_images:
            eager[page.relative_to(site).as_posix()] = len(eager_images)
    assert eager == {}, f"pages with images that load before they are needed: {eager}"
    for lang in ("en", "id", "ko"):
        subset = site / lang / "_static" / "fa-solid-subset.woff"
        full = site / lang / "_static" / "vendor" / "fontawesome" / "webfonts" / "fa-solid-900.woff2"
        assert 0 < subset.stat().st_size < full.stat().st_size / 10, (subset, subset.stat().st_size)


def test_no_page_loads_mathjax_sphinx_design_or_thebe(site):
    """No page's scripts or stylesheets are MathJax's, sphinx-design's or sphinx-thebe's, nor its inline
    configuration (``THEBE_JS_URL``, ``thebe_selector``)."""
    found = {}
    for page in [*sorted(site.glob("*/*.html")), site / "index.html"]:
        text = page.read_text(encoding="utf-8")
        assets = re.findall(r"<(?:script|link)\b[^>]*(?:src|href)=\"([^\"]+)\"", text)
        loaded = [url for url in assets if UNUSED_FILES.search(url)]
        loaded += re.findall(r"THEBE_JS_URL|thebe_selector", text)
        if loaded:
            found[page.relative_to(site).as_posix()] = loaded
    assert found == {}
