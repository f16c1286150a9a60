"""What every figure of the book shares: the check of ``lang`` and the fonts.

Importing this module registers the bundled NanumGothic font (SIL OFL 1.1)
as a fallback, so Hangul renders on machines without a CJK system font.
"""

from __future__ import annotations

from importlib import resources

import matplotlib.pyplot as plt
from matplotlib import font_manager
from matplotlib.text import Text

from posenc.words import LANGUAGES, check_lang

__all__ = ["LANGUAGES", "check_lang", "finish"]

_FONT_FILE = resources.files("posenc.plot") / "fonts" / "NanumGothic.ttf"
font_manager.fontManager.addfont(str(_FONT_FILE))
# DejaVu Sans draws Latin letters and the minus sign; NanumGothic fills in Hangul.
plt.rcParams["font.family"] = ["DejaVu Sans", "NanumGothic"]


def _has_hangul(text: str) -> bool:
    return any("\uac00" <= ch <= "\ud7a3" for ch in text)


def finish(fig):
    """``fig`` with Hangul in NanumGothic, laid out tightly (unless it has a layout engine), closed in pyplot.

    The book's own figures call it; a chapter that draws with matplotlib directly calls it last, so that a
    Korean label that mixes Hangul and math renders, and the figure shows once, as the cell's value.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.

    Returns
    -------
    matplotlib.figure.Figure
        ``fig`` itself.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from posenc.plot import finish
    >>> fig, ax = plt.subplots()
    >>> _ = ax.set_title("\uc704\uce58 $m$")  # "position m" in Korean: Hangul and mathtext
    >>> finish(fig).axes[0].title.get_fontfamily()
    ['NanumGothic', 'DejaVu Sans']
    """
    # Plain text falls back from font to font, but a text with mathtext draws
    # its words in the first family only. A Korean label mixing Hangul with
    # mathtext therefore needs NanumGothic first; other texts keep DejaVu Sans
    # and its minus sign, which NanumGothic lacks.
    for label in fig.findobj(Text):
        if _has_hangul(label.get_text()):
            label.set_fontfamily(["NanumGothic", "DejaVu Sans"])
    if fig.get_layout_engine() is None:  # a figure made with layout="constrained" keeps it
        fig.tight_layout()
    plt.close(fig)
    return fig
