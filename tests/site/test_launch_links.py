"""Every notebook page of the built site has its launch (Binder, Colab) and download links.

Reads the HTML that `make book` wrote (site_helpers.SITE: _build/html; `make test` builds it first). The
expected URLs are derived from the ``repository`` and ``launch_buttons`` settings of _config.yml, so a fork
that changes the repository URL there gets links to its own repository.
"""

from __future__ import annotations

import posixpath
from html.parser import HTMLParser

import nbformat
import pytest
import yaml
from book_files import ROOT
from site_helpers import SITE, site_path, toc_docnames

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))


NOTEBOOK_PAGES = [page for page in toc_docnames() if (ROOT / page).with_suffix(".ipynb").is_file()]


class Links(HTMLParser):
    """Collects every ``<a href>`` and every ``<button onclick>`` of a page, with their classes."""

    def __init__(self):
        super().__init__()
        self.anchors: list[tuple[str, str]] = []
        self.buttons: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = attributes.get("class") or ""
        if tag == "a" and attributes.get("href"):
            self.anchors.append((attributes["href"], classes))
        elif tag == "button" and attributes.get("onclick"):
            self.buttons.append((attributes["onclick"], classes))


def links_of(page: str) -> Links:
    path = SITE / site_path(page)
    assert path.is_file(), f"{path.relative_to(ROOT)} is missing: run `make book` first"
    parser = Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def expected_launch_urls(page: str) -> dict[str, str]:
    repo = CONFIG["repository"]
    launch = CONFIG["launch_buttons"]
    owner, name = repo["url"].rstrip("/").removeprefix("https://github.com/").split("/")
    prefix = repo.get("path_to_book", "").strip("/")
    in_repo = f"{prefix}/{page}.ipynb" if prefix else f"{page}.ipynb"
    ui = {"classic": "tree", "jupyterlab": "lab/tree"}[launch["notebook_interface"]]
    binder = launch["binderhub_url"].rstrip("/")
    colab = launch["colab_url"].rstrip("/")
    return {
        "Binder": f"{binder}/v2/gh/{owner}/{name}/{repo['branch']}?urlpath={ui}/{in_repo}",
        "Colab": f"{colab}/github/{owner}/{name}/blob/{repo['branch']}/{in_repo}",
    }


def test_the_book_has_notebook_pages():
    assert NOTEBOOK_PAGES, "no notebook listed in _toc.yml"
    assert all(page.startswith("book/") for page in NOTEBOOK_PAGES)


def test_launch_settings_name_one_github_repository():
    assert CONFIG["repository"]["url"].startswith("https://github.com/")
    assert CONFIG["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert CONFIG["launch_buttons"]["colab_url"] == "https://colab.research.google.com"


def test_expected_urls_for_a_chapter():
    urls = expected_launch_urls("book/ko/05_rotation")
    repo, branch = CONFIG["repository"]["url"], CONFIG["repository"]["branch"]
    slug = repo.removeprefix("https://github.com/")
    notebook = "book/ko/05_rotation.ipynb"
    assert urls["Binder"] == f"https://mybinder.org/v2/gh/{slug}/{branch}?urlpath=lab/tree/{notebook}"
    assert urls["Colab"] == f"https://colab.research.google.com/github/{slug}/blob/{branch}/{notebook}"


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_launch_links(page):
    hrefs = {href for href, _ in links_of(page).anchors}
    for service, url in expected_launch_urls(page).items():
        assert url in hrefs, f"{page}: no {service} link {url}"


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_download_links(page):
    links = links_of(page)
    downloads = [href for href, classes in links.anchors if "btn-download-source-button" in classes.split()]
    assert len(downloads) == 1, f"{page}: expected one .ipynb download link, found {downloads}"
    built = site_path(page)
    target = posixpath.normpath(posixpath.join(posixpath.dirname(built), downloads[0]))
    assert target == built.replace("/", "/_sources/", 1).removesuffix(".html") + ".ipynb"
    downloaded = nbformat.read(SITE / target, as_version=4)
    source = nbformat.read(ROOT / f"{page}.ipynb", as_version=4)
    # The same chapter: the same kernel and the same label on the first line (its title may have been
    # edited since the last build).
    assert downloaded.metadata.get("kernelspec") == source.metadata.get("kernelspec")
    assert downloaded.cells[0].source.splitlines()[0] == source.cells[0].source.splitlines()[0]
    # The print-to-PDF button of the theme: the browser's print dialog, with the theme's print styles.
    assert any("btn-download-pdf-button" in classes.split() for _, classes in links.buttons), page
