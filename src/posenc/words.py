"""The words of posenc's figures in each language, read from one gettext catalog per language.

The figures' labels live in ``posenc/locale/<lang>.po`` and nowhere in the code. A message's ``msgid``
is a dotted key naming where it is used (``plot.figures.heatmap``), its ``msgstr`` the text in that
language. A text with placeholders is a ``str.format`` template (``{d}``, ``{name}``, and ``{{`` for a
literal brace); the same key has the same placeholders in every language. In ``id.po`` and ``ko.po``,
each message carries the English text as a translator comment (``#. en: ...``), so that a translator
sees what to translate and a changed English text shows up as a stale comment.

:class:`Catalog` reads such a folder of catalogs in any package: the book's build
(``posenc_book``) keeps the site's, the handouts' and the PDF's words in one of its own.
``import posenc.words`` is cheap: Babel is imported, and a catalog read, on the first lookup.

The chapters' printed words follow gettext's idiom instead: the English text is the key. Each chapter's
``lang`` cell binds ``_ = translator(LANG)``, a cell prints ``_("largest difference:")``, and the
translations live in ``posenc/locale/cells/<chapter>.<lang>.po`` (Indonesian and Korean; English is the
key itself). They ship with the package, so a chapter opened on Colab prints in its edition's language.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from functools import cache
from importlib import resources

__all__ = ["GROUPING", "LANGUAGES", "Catalog", "check_lang", "message", "messages", "translator"]

#: The languages of the catalogs, the values of every ``lang`` argument.
LANGUAGES = ("en", "id", "ko")


def check_lang(lang: str) -> None:
    """Raise ValueError unless ``lang`` is one of :data:`LANGUAGES`.

    Parameters
    ----------
    lang : str
        The language asked for.

    Raises
    ------
    ValueError
        If ``lang`` is not one of :data:`LANGUAGES`, naming the argument and the languages.

    Examples
    --------
    >>> from posenc.words import check_lang
    >>> check_lang("ko")
    >>> check_lang("fr")
    Traceback (most recent call last):
    ...
    ValueError: lang must be one of ('en', 'id', 'ko'), got 'fr'
    """
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {LANGUAGES}, got {lang!r}")


@cache
def _read(package: str, folder: str, name: str) -> dict[str, str]:
    """Every message of ``<package>/<folder>/<name>.po``: key -> text."""
    # Imported here, not at the top: `import posenc` stays light, and Babel is read only when words are.
    # Babel comes with the figures' extra, `posenc[plot]`.
    from posenc._checks import require_extra

    require_extra(__name__, "plot", "babel")
    from babel.messages.pofile import read_po

    with (resources.files(package) / folder / f"{name}.po").open("rb") as file:
        catalog = read_po(file, locale=None, abort_invalid=True)
    return {entry.id: entry.string for entry in catalog if entry.id}


class Catalog:
    """The catalogs ``<package>/<folder>/<lang>.po`` of one package, one per language.

    Parameters
    ----------
    package : str
        The importable package that holds the catalogs, such as ``"posenc"``.
    folder : str, default "locale"
        Their folder inside the package.

    Examples
    --------
    >>> from posenc.words import Catalog
    >>> words = Catalog("posenc")
    >>> words.message("plot.figures.dimension", "id")
    'kolom $j$'
    """

    def __init__(self, package: str, folder: str = "locale") -> None:
        self.package = package
        self.folder = folder

    def _all(self, lang: str) -> dict[str, str]:
        check_lang(lang)
        return _read(self.package, self.folder, lang)

    def _where(self, lang: str) -> str:
        return f"{self.package}/{self.folder}/{lang}.po"

    def message(self, key: str, lang: str, **fields) -> str:
        """The text of the message ``key`` in ``lang``, its placeholders filled in with ``fields``.

        Parameters
        ----------
        key : str
            The message's dotted key, such as ``"plot.figures.heatmap"``.
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
            If the catalog has no message ``key``, or if ``fields`` leave one of its placeholders
            unfilled (the error names the placeholder).

        Examples
        --------
        >>> from posenc.words import Catalog
        >>> Catalog("posenc").message("plot.figures.heatmap", "en")
        'Sinusoidal positional encoding'
        """
        try:
            text = self._all(lang)[key]
        except KeyError:
            raise KeyError(f"no message {key!r} in {self._where(lang)}") from None
        return _fill(f"message({key!r})", text, (), fields)

    def messages(self, group: str, lang: str) -> dict[str, str]:
        """The messages one level below the key ``group`` in ``lang``, by the last part of their key.

        Parameters
        ----------
        group : str
            A key prefix without its final dot, such as ``"plot.figures"``: the result holds
            ``plot.figures.heatmap`` as ``"heatmap"``, and no key that lies one level further down.
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
        >>> from posenc.words import Catalog
        >>> Catalog("posenc").messages("plot.figures", "id")["dimension"]
        'kolom $j$'
        """
        prefix = f"{group}."
        found = {
            key[len(prefix) :]: text
            for key, text in self._all(lang).items()
            if key.startswith(prefix) and "." not in key[len(prefix) :]
        }
        if not found:
            raise KeyError(f"no message one level below {group!r} in {self._where(lang)}")
        return found


_POSENC = Catalog("posenc")


def message(key: str, lang: str, **fields) -> str:
    """The text of posenc's message ``key`` in ``lang``: :meth:`Catalog.message` on ``posenc/locale``.

    Parameters
    ----------
    key : str
        The message's dotted key, such as ``"plot.figures.heatmap"``.
    lang : {"en", "id", "ko"}
        The language.
    **fields
        Values for the text's ``str.format`` placeholders.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> from posenc.words import message
    >>> message("plot.figures.dimension", "id")
    'kolom $j$'
    """
    return _POSENC.message(key, lang, **fields)


def messages(group: str, lang: str) -> dict[str, str]:
    """posenc's messages one level below ``group``: :meth:`Catalog.messages` on ``posenc/locale``.

    Parameters
    ----------
    group : str
        A key prefix without its final dot, such as ``"plot.figures"``.
    lang : {"en", "id", "ko"}
        The language.

    Returns
    -------
    dict of str to str
        The texts as stored, by the last part of their key.

    Examples
    --------
    >>> from posenc.words import messages
    >>> messages("plot.figures", "en")["dimension"]
    'column $j$'
    """
    return _POSENC.messages(group, lang)


#: The chapters' catalogs, ``<chapter>.<lang>.po`` for ``lang`` in id and ko: msgid is the English text.
CELLS = "locale/cells"


@cache
def _cells(lang: str) -> dict[str, str]:
    """Every translation of ``posenc/locale/cells/*.<lang>.po``: English text -> text in ``lang``."""
    table: dict[str, str] = {}
    where: dict[str, str] = {}
    folder = resources.files("posenc") / CELLS
    for file in sorted(folder.iterdir(), key=lambda file: file.name):
        if not file.name.endswith(f".{lang}.po"):
            continue
        for text, translation in _read("posenc", CELLS, file.name.removesuffix(".po")).items():
            if not translation:
                raise ValueError(f"{CELLS}/{file.name}: {text!r} has no translation (an empty msgstr)")
            if table.get(text, translation) != translation:
                raise ValueError(
                    f"{text!r} has two translations: {table[text]!r} in {where[text]}, "
                    f"{translation!r} in {file.name}; one English text, one translation"
                )
            table[text], where[text] = translation, file.name
    return table


def translator(lang: str) -> Callable[..., str]:
    """gettext's ``_`` for the chapters: the English text in, its words in ``lang`` out.

    Parameters
    ----------
    lang : {"en", "id", "ko"}
        The edition's language.

    Returns
    -------
    callable
        ``_(text, *values, **fields)``: ``text`` itself in English, else its translation from
        ``posenc/locale/cells/*.<lang>.po``. A text with ``str.format`` placeholders is translated
        first and filled in after, so that a translation may move them: ``_("{n} pairs", n=18)``.
        Without values and fields the text is returned as stored (placeholders and ``{{`` kept).

    Raises
    ------
    ValueError
        If ``lang`` is not one of :data:`LANGUAGES`, or if the catalogs give one English text two
        translations.
    KeyError
        From ``_``, for a text that the catalogs of ``lang`` do not translate: a chapter never prints
        English words in another edition without a test failing; and for a placeholder that the
        values and fields do not fill, naming the placeholder and the text.

    Examples
    --------
    >>> from posenc.words import translator
    >>> _ = translator("id")
    >>> _("largest difference:")
    'selisih terbesar:'
    >>> translator("en")("largest difference:")
    'largest difference:'
    >>> _("who bites, read from the order: {word}", word="dog")
    'siapa yang menggigit, dibaca dari urutannya: dog'
    >>> _("{parameters:,} parameters, head dimension {head}, {pairs} pairs per head, "
    ...   "RoPE in the 'half' layout", parameters=139584, head=16, pairs=8)[:7]  # digits grouped
    '139\\u202f584'
    """
    check_lang(lang)
    table = None if lang == "en" else _cells(lang)
    grouping = GROUPING[lang]

    def _(text: str, /, *values, **fields) -> str:
        if table is None:  # English: the key is the text
            words = text
        elif text in table:
            words = table[text]
        else:
            raise KeyError(f"no translation of {text!r} in posenc/{CELLS}/*.{lang}.po")
        if grouping != ",":  # a template that the cell fills in later groups digits the same way
            words = _Template(words, grouping)
        return _fill(f"_({text!r})", words, values, fields)

    return _


#: How each edition groups the digits of a number that a template formats with a "," in its spec
#: (``{n:,}``). en and ko write 16,777,216. Indonesian writes 16.777.216 in its prose, but its outputs
#: print decimals with a point (1.25, as Python does), so a point between digit groups would read as a
#: decimal; they group with a narrow no-break space instead, the SI's separator: 16 777 216.
GROUPING = {"en": ",", "id": "\u202f", "ko": ","}


class _Formatter(string.Formatter):
    """``str.format`` whose "," digit grouping is an edition's separator."""

    def __init__(self, grouping: str) -> None:
        self.grouping = grouping

    def format_field(self, value, format_spec: str) -> str:
        text = super().format_field(value, format_spec)
        return text.replace(",", self.grouping) if "," in format_spec else text


class _Template(str):
    """A translated text whose ``format`` groups digits as its edition does (:data:`GROUPING`)."""

    def __new__(cls, text: str, grouping: str):
        template = super().__new__(cls, text)
        template.formatter = _Formatter(grouping)
        return template

    def format(self, /, *values, **fields) -> str:
        return self.formatter.format(str(self), *values, **fields)


def _fill(call: str, text: str, values: tuple, fields: dict) -> str:
    """``text`` with its ``str.format`` placeholders filled in, or as stored when given nothing.

    A placeholder left unfilled raises a ``KeyError`` that names it and ``call`` (the message or
    text asked for), not ``str.format``'s bare ``KeyError('name')``.
    """
    if not values and not fields:
        return text
    try:
        return text.format(*values, **fields)
    except KeyError as error:
        raise KeyError(f"{call}: no value for its placeholder {{{error.args[0]}}}") from None
    except IndexError:
        raise KeyError(
            f"{call}: its placeholders need more positional values than the {len(values)} given"
        ) from None
