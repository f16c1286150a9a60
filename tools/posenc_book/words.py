"""The words of the book's build in each language: the site's interface, the handouts' checks and the
PDF's title page, from ``posenc_book/locale/<lang>.po`` (keys ``site.*``, ``handout.*``, ``pdf.*``).

The catalogs have the format of posenc's own (see :mod:`posenc.words`); the library's figure labels
(``plot.*``) stay in posenc, which ships to readers without the site's words.
"""

from __future__ import annotations

from posenc.words import Catalog

CATALOG = Catalog("posenc_book")


def message(key: str, lang: str, **fields) -> str:
    """The text of the build's message ``key`` in ``lang``, its placeholders filled in with ``fields``."""
    return CATALOG.message(key, lang, **fields)


def messages(group: str, lang: str) -> dict[str, str]:
    """The build's messages one level below the key ``group`` in ``lang``, by the last part of their key."""
    return CATALOG.messages(group, lang)
