"""posenc_book.sphinx.langswitch's edition menu: every edition of the page, the current one marked."""

from __future__ import annotations

from types import SimpleNamespace

from posenc_book.sphinx.langswitch import language_menu

EDITIONS = {"en": {"name": "English"}, "id": {"name": "Bahasa Indonesia"}, "ko": {"name": "한국어"}}


def app(lang: str):
    return SimpleNamespace(config=SimpleNamespace(language=lang, editions=EDITIONS))


def twin(lang: str, page: str = "06_rope") -> dict:
    """As twin_pages() gives it: from the page's folder up to the site root, then the edition's."""
    return {
        "lang": lang,
        "label": EDITIONS[lang]["name"],
        "url": f"{'../' * (page.count('/') + 1)}{lang}/{page}.html",
    }


def test_the_menu_lists_every_edition_in_order_the_current_one_marked():
    menu = language_menu(app("id"), "06_rope", [twin("en"), twin("ko")])
    assert [(item["lang"], item["current"]) for item in menu] == [("en", False), ("id", True), ("ko", False)]
    assert menu[1] == {
        "lang": "id",
        "label": "Bahasa Indonesia",
        "url": "../id/06_rope.html",
        "current": True,
    }


def test_a_page_in_a_folder_links_to_itself_from_its_folder():
    menu = language_menu(app("ko"), "handouts/01", [twin("en", "handouts/01")])
    assert [item["url"] for item in menu] == ["../../en/handouts/01.html", "../../ko/handouts/01.html"]


def test_a_page_without_twins_has_no_menu():
    assert language_menu(app("en"), "api", []) == []
