# ruff: noqa: RUF001, RUF002, RUF003  (this module reads ×, −, – and other look-alike characters)
"""The numbers that prose states, read as each edition writes them.

Shared by tests/book/test_claims_parity.py (the editions state the same numbers) and
tests/book/test_rubric_quotes.py (a rubric quotes what its exercise prints): en and ko write 65,504 and
0.25, id writes 65.504 and 0,25; e-notation, "× 10^k", "128K" and Korean myriads ("12만 8천") are read too.
"""

from __future__ import annotations

import re
from decimal import Decimal

from posenc.words import LANGUAGES

LANGS = LANGUAGES

LINK = re.compile(r"(!?)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]*)(?:\s+\"[^\"]*\")?\)")
URL = re.compile(r"<?\b(?:https?|ftp)://[^\s>)\]]+>?|\bwww\.[^\s)\]]+")
HTML_TAG = re.compile(r"</?[A-Za-z][^<>\n]*>")
LINK_DEFINITION = re.compile(r"^\s*\[(?!\^)[^\]]+\]:\s*(?:<[^>\s]*>|\S*[/#.]\S*)(?:\s+\"[^\"]*\")?\s*$", re.M)


def prose_text(prose: str) -> str:
    """Prose without what a reader does not see as text: URLs, link targets, HTML tags."""
    prose = LINK.sub(lambda m: f" {m['text']} ", prose)
    prose = URL.sub(" ", prose)
    prose = HTML_TAG.sub(" ", prose)
    # A link definition, "[label]: target": not a footnote ("[^note]: text" is prose), and not prose that
    # follows a code span ("`mrope_section` [16, 24, 24]: pairs 0 to 15 ..."), whose words are no target.
    prose = LINK_DEFINITION.sub(" ", prose)
    return prose


SEPARATORS = {"en": (",", "."), "ko": (",", "."), "id": (".", ",")}  # (thousands, decimal)
SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
MINUS = "-\u2212"  # hyphen-minus, minus sign; en dash and em dash are range dashes, never signs


def canonical(value: Decimal) -> str:
    """One spelling per value: no exponent, no trailing zeros ("1.50e-2" and "0.015" are one number)."""
    if value == value.to_integral_value():
        return str(value.quantize(Decimal(1)))
    return format(value.normalize(), "f")


def number_pattern(lang: str) -> re.Pattern:
    thousands, decimal = (re.escape(s) for s in SEPARATORS[lang])
    plain = rf"\d{{1,3}}(?:{thousands}\d{{3}})+(?!\d)(?:{decimal}\d+)?|\d+(?:{decimal}\d+)?"
    if lang == "id":  # "Latihan 6.1", "Python 3.12": numbering and versions keep their dot
        plain = r"\d{1,3}(?:\.\d{3})+(?!\d)(?:,\d+)?|\d+\.\d+(?!\d)|\d+(?:,\d+)?"
    return re.compile(
        # a version or dotted number that is not a grouped number of this edition: 1.0.4, 127.0.0.1
        rf"(?P<version>\d+(?:\.\d+){{2,}})(?!\d)"
        # a number, with an optional sign, mantissa-times-power or e-notation
        rf"|(?P<sign>[{MINUS}])?(?P<mantissa>{plain})"
        rf"(?:(?:\s*[×x·]\s*|\s*\*\s*)10\s*\^?\s*\{{?(?P<power>[{MINUS}+]?\d+)\}}?"
        rf"|[eE](?P<exponent>[{MINUS}+]?\d+)(?![A-Za-z0-9_])"
        rf"|(?P<kilo>[kK])(?![A-Za-z0-9_])"
        rf"|\s*\^\s*\{{?(?P<exp2>[{MINUS}+]?\d+)\}}?)?"
    )


PATTERNS = {lang: number_pattern(lang) for lang in LANGS}
# Number idioms that name a kind of quantity and that en and id write in words, ko in digits: "a power of
# two" (pangkat bulat dari 2, 2의 거듭제곱), "a quarter" (seperempat, 4분의 1). They are not claims.
IDIOMS = {
    "en": re.compile(r"\bpowers? of (?:two|ten|2|10)\b", re.I),
    "id": re.compile(r"\b(?:per)?pangkat(?:an)?(?:\s+bulat)?(?:\s+dari)?\s+(?:2|10|dua|sepuluh)\b", re.I),
    "ko": re.compile(r"\d+\s?분의\s?\d+|\d+\s?의\s?(?:거듭\s?|몇\s?)제곱"),
}
KOREAN_MYRIAD = re.compile(r"(\d+)\s?만\s?(\d+)\s?천|(\d+)\s?천(?!천)")  # "12만 8천" is 128,000


def to_decimal(text: str, lang: str) -> Decimal:
    thousands, decimal = SEPARATORS[lang]
    if lang == "id" and re.fullmatch(r"\d+\.\d+", text) and not re.fullmatch(r"\d{1,3}(\.\d{3})+", text):
        # "Latihan 6.1", "Python 3.12": a dotted number that cannot be grouped thousands is numbering.
        return Decimal(text)
    return Decimal(text.replace(thousands, "").replace(decimal, "."))


def read_numbers(prose: str, lang: str) -> list[tuple[str, str, int]]:
    """(canonical value, as written, line in the piece) for every number in prose of edition ``lang``.

    A number glued to a word on its left is part of a name (float32, GPT-2, ex-1, H100) and is skipped;
    Indonesian ordinals (ke-5) are read. A sign counts only where a number starts (after a space,
    bracket, = or the start); between two numbers a dash is a range (8–16, 0-4). A percent sign is
    dropped: the claim is the value, and the editions space and group "%" differently. Words for
    numbers are not read (an edition that writes "two" where another writes "2" is an exception)."""
    prose = prose_text(prose).translate(SUPERSCRIPT)
    prose = IDIOMS[lang].sub(lambda m: " " * len(m[0]), prose)
    found = []
    if lang == "ko":

        def myriad(match):
            if match[1]:
                value = int(match[1]) * 10_000 + int(match[2]) * 1_000
            else:
                value = int(match[3]) * 1_000
            found.append((str(value), match[0], prose.count("\n", 0, match.start())))
            return " " * len(match[0])

        prose = KOREAN_MYRIAD.sub(myriad, prose)
    for match in PATTERNS[lang].finditer(prose):
        sign = match["sign"]
        if sign and re.search(r"[\w)\]]\Z", prose[: match.start()]):
            sign = None  # "8-16", "0-4", "GPT-2": a dash after a word or number is not a sign
        start = match.start() if sign or match["version"] else match.start("mantissa")
        before = prose[max(0, start - 3) : start]
        if re.search(r"[A-Za-z_\d.]\Z", before) or (
            re.search(r"[A-Za-z_]-\Z", before) and not re.search(r"(\A|[^A-Za-z])ke-\Z", before)
        ):
            continue  # float32, x2, GPT-2, ex-1; but "ke-5"
        if match["version"]:
            if lang == "id" and re.fullmatch(r"\d{1,3}(\.\d{3})+", match["version"]):
                pass  # 1.000.000 is a grouped number in id
            else:
                found.append((match["version"], match[0], prose.count("\n", 0, match.start())))
                continue
        text = match["mantissa"]
        if lang == "id" and match["version"]:
            text = match["version"]
        value = to_decimal(text, lang)
        power = match["power"] or match["exponent"]
        if power:
            value = value * Decimal(10) ** int(power.replace("\u2212", "-"))
        elif match["kilo"]:
            value *= 1000  # "128K tokens"
        elif match["exp2"]:
            exponent = int(match["exp2"].replace("\u2212", "-"))
            value = value**exponent if abs(exponent) <= 64 else value
        if sign:
            value = -value
        found.append((canonical(value), match[0].strip(), prose.count("\n", 0, match.start())))
    return found
