"""The words of the book's code in each language: figure labels, the site's interface, handout checks.

They live in one gettext catalog per language, ``posenc/locale/<lang>.po``, and nowhere in the code. A
message's ``msgid`` is a dotted key naming where it is used (``plot.heatmap``, ``site.search``,
``handout.passed``), its ``msgstr`` the text in that language. A text with placeholders is a
``str.format`` template (``{d}``, ``{name}``, and ``{{`` for a literal brace); the same key has the
same placeholders in every language. In ``id.po`` and ``ko.po``, each message carries the English text as
a translator comment (``#. en: ...``), so that a translator sees what to translate and a changed English
text shows up as a stale comment (tests/test_words.py).

``import posenc.words`` is cheap: Babel is imported, and a catalog read, on the first lookup.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["LANGUAGES", "message", "messages"]

#: The languages of the catalogs, the values of every ``lang`` argument.
LANGUAGES = ("en", "id", "ko")


def _check_lang(lang: str) -> None:
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {LANGUAGES}, got {lang!r}")


@cache
def _catalog(lang: str) -> dict[str, str]:
    """Every message of ``locale/<lang>.po``: key -> text."""
    # Imported here, not at the top: `import posenc` stays light, and Babel is read only when words are.
    from babel.messages.pofile import read_po

    with (resources.files("posenc") / "locale" / f"{lang}.po").open("rb") as file:
        catalog = read_po(file, locale=None, abort_invalid=True)
    return {entry.id: entry.string for entry in catalog if entry.id}


def message(key: str, lang: str, **fields) -> str:
    """The text of the message ``key`` in ``lang``, its placeholders filled in with ``fields``.

    Parameters
    ----------
    key : str
        The message's dotted key, such as ``"handout.passed"``.
    lang : {"en", "id", "ko"}
        The language.
    **fields
        Values for the text's ``str.format`` placeholders. Without them the text is returned as
        stored: a template keeps its placeholders and doubled braces.

    Returns
    -------
    str
        The text.

    Raises
    ------
    ValueError
        If ``lang`` is not one of :data:`LANGUAGES`.
    KeyError
        If the catalog has no message ``key``.

    Examples
    --------
    >>> from posenc.words import message
    >>> message("handout.passed", "id")
    'Jawaban Anda lolos semua pemeriksaan.'
    >>> message("handout.missing", "en", name="best")
    'Not checked yet: best is not defined. Write your answer in the cell above and run it first.'
    """
    _check_lang(lang)
    try:
        text = _catalog(lang)[key]
    except KeyError:
        raise KeyError(f"no message {key!r} in posenc/locale/{lang}.po") from None
    return text.format(**fields) if fields else text


def messages(group: str, lang: str) -> dict[str, str]:
    """The messages one level below the key ``group`` in ``lang``, by the last part of their key.

    Parameters
    ----------
    group : str
        A key prefix without its final dot, such as ``"handout"``: the result holds ``handout.passed``
        as ``"passed"``, and not ``handout.ex-formula-3.define``, which is one level further down.
    lang : {"en", "id", "ko"}
        The language.

    Returns
    -------
    dict of str to str
        The texts as stored (templates unfilled), in the order of the catalog.

    Raises
    ------
    ValueError
        If ``lang`` is not one of :data:`LANGUAGES`.
    KeyError
        If no message's key lies one level below ``group``.

    Examples
    --------
    >>> from posenc.words import messages
    >>> messages("site.copybutton", "id")["copy"]
    'Salin'
    >>> sorted(messages("site.copybutton", "en"))
    ['copy', 'copy_failure', 'copy_success', 'copy_to_clipboard']
    """
    _check_lang(lang)
    prefix = f"{group}."
    found = {
        key[len(prefix) :]: text
        for key, text in _catalog(lang).items()
        if key.startswith(prefix) and "." not in key[len(prefix) :]
    }
    if not found:
        raise KeyError(f"no message one level below {group!r} in posenc/locale/{lang}.po")
    return found
