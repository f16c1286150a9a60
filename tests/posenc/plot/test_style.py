"""posenc.plot._style.finish: the last call on a chapter's own figure."""

import matplotlib.pyplot as plt

from posenc.plot._style import finish


def test_a_korean_label_with_math_gets_nanumgothic_first_and_the_figure_is_closed():
    fig, ax = plt.subplots()
    ax.set_title("\uc704\uce58 $m$")  # "position m": Hangul and mathtext
    ax.set_xlabel("position $m$")
    assert finish(fig) is fig
    assert ax.title.get_fontfamily() == ["NanumGothic", "DejaVu Sans"]
    assert ax.xaxis.label.get_fontfamily() != ["NanumGothic", "DejaVu Sans"]
    assert not plt.fignum_exists(fig.number)


def test_a_plain_figure_is_laid_out_tightly_and_a_constrained_one_keeps_its_engine():
    plain, _ = plt.subplots()
    default_left = plain.subplotpars.left
    constrained, axes = plt.subplots(1, 2, layout="constrained")
    constrained.colorbar(axes[0].imshow([[0, 1]]), ax=axes)  # a colorbar over both: not tight_layout's
    finish(plain)
    finish(constrained)
    assert plain.subplotpars.left != default_left  # tight_layout moved the axes
    assert type(constrained.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"
