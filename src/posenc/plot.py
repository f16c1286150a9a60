"""Figures for the chapters, labelled in English, Indonesian or Korean.

Every function returns a :class:`matplotlib.figure.Figure` that is already
closed in pyplot, so a notebook shows it exactly once: as the cell's value.
Importing this module registers the bundled NanumGothic font (SIL OFL 1.1)
as a fallback, so Hangul renders on machines without a CJK system font.
"""

from __future__ import annotations

import re
from importlib import resources

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import font_manager
from matplotlib.text import Text

from posenc._checks import check_d_model, check_int
from posenc.encoding import frequencies, sinusoidal_encoding
from posenc.interactive import SLIDER_SPACE, InteractiveFigure, rounded
from posenc.relative import alibi_bias, alibi_slopes, t5_relative_bucket
from posenc.rope import rope_decay_bound, rope_frequencies
from posenc.scaling import scaled_frequencies

__all__ = [
    "LANGUAGES",
    "alibi",
    "circle",
    "dot_products",
    "heatmap",
    "rope_decay",
    "scaling_ratios",
    "t5_buckets",
    "wavelengths",
    "waves",
]

LANGUAGES = ("en", "id", "ko")

_FONT_FILE = resources.files("posenc") / "fonts" / "NanumGothic.ttf"
font_manager.fontManager.addfont(str(_FONT_FILE))
# DejaVu Sans draws Latin letters and the minus sign; NanumGothic fills in Hangul.
plt.rcParams["font.family"] = ["DejaVu Sans", "NanumGothic"]

# Titles and axis labels use matplotlib's mathtext ($...$) for symbols, so that
# omega_i, d_model and the like render as in the text. Templates are filled in
# with str.format, hence the doubled braces inside the mathtext.
_LABELS = {
    "en": {
        "heatmap": "Sinusoidal positional encoding",
        "heatmap_split": "Sinusoidal positional encoding: sine columns left, cosine columns right",
        "position": r"position ($\mathrm{pos}$)",
        "dimension": "dimension (column)",
        "value": "value",
        "waves": "Selected dimensions as waves over position",
        "dim": "dimension {j}",
        "wavelengths": r"Wavelength $2\pi/\omega_i$ of each frequency pair ($d_{{\mathrm{{model}}}} = {d}$)",
        "pair": r"pair index $i$",
        "wavelength": "wavelength (positions, log scale)",
        "dots": r"$\mathrm{{PE}}(p) \cdot \mathrm{{PE}}(p + k)$ depends only on the offset $k$",
        "offset": r"offset $k$",
        "dot": "dot product",
        "p": r"$p = {p}$",
        "circle": (
            r"Pair $i = {i}$: each time $\mathrm{{pos}}$ grows by 1,"  # two lines: the figure is narrow
            "\n"
            r"the point turns by $\omega_{{{i}}}$"
        ),
    },
    "id": {
        "heatmap": "Positional encoding sinusoidal",
        "heatmap_split": "Positional encoding sinusoidal: kolom sinus di kiri, kosinus di kanan",
        "position": r"posisi ($\mathrm{pos}$)",
        "dimension": "dimensi (kolom)",
        "value": "nilai",
        "waves": "Beberapa dimensi sebagai gelombang terhadap posisi",
        "dim": "dimensi {j}",
        "wavelengths": (
            r"Panjang gelombang $2\pi/\omega_i$ tiap pasangan frekuensi ($d_{{\mathrm{{model}}}} = {d}$)"
        ),
        "pair": r"indeks pasangan $i$",
        "wavelength": "panjang gelombang (posisi, skala log)",
        "dots": r"$\mathrm{{PE}}(p) \cdot \mathrm{{PE}}(p + k)$ hanya bergantung pada selisih $k$",
        "offset": r"selisih $k$",
        "dot": "hasil kali titik",
        "p": r"$p = {p}$",
        "circle": (
            r"Pasangan $i = {i}$: setiap $\mathrm{{pos}}$ bertambah 1,"
            "\n"
            r"titik berputar sebesar $\omega_{{{i}}}$"
        ),
    },
    "ko": {
        "heatmap": "사인파 위치 인코딩",
        "heatmap_split": "사인파 위치 인코딩: 왼쪽은 사인 열, 오른쪽은 코사인 열",
        "position": r"위치 ($\mathrm{pos}$)",
        "dimension": "차원 (열)",
        "value": "값",
        "waves": "위치에 따른 몇몇 차원의 파형",
        "dim": "{j}번 차원",
        "wavelengths": r"주파수 쌍별 파장 $2\pi/\omega_i$ ($d_{{\mathrm{{model}}}} = {d}$)",
        "pair": r"쌍 번호 $i$",
        "wavelength": "파장 (위치 단위, 로그 눈금)",
        "dots": r"$\mathrm{{PE}}(p) \cdot \mathrm{{PE}}(p + k)$는 간격 $k$에만 달려 있다",
        "offset": r"간격 $k$",
        "dot": "내적",
        "p": r"$p = {p}$",
        "circle": r"{i}번 쌍: $\mathrm{{pos}}$가 1 늘 때마다 점이 $\omega_{{{i}}}$만큼 돈다",
    },
}

# Axis labels of the circle figure and of the two blocks of the split heatmap:
# pure mathtext, the same in every language.
_SIN = r"$\sin(\mathrm{{pos}}\,\omega_{{{i}}})$"
_COS = r"$\cos(\mathrm{{pos}}\,\omega_{{{i}}})$"
_LAYOUTS = ("interleaved", "split")


def _labels(lang: str) -> dict:
    if lang not in _LABELS:
        raise ValueError(f"lang must be one of {LANGUAGES}, got {lang!r}")
    return _LABELS[lang]


def _has_hangul(text: str) -> bool:
    return any("\uac00" <= ch <= "\ud7a3" for ch in text)


def _finish(fig):
    # Plain text falls back from font to font, but a text with mathtext draws
    # its words in the first family only. A Korean label mixing Hangul with
    # mathtext therefore needs NanumGothic first; other texts keep DejaVu Sans
    # and its minus sign, which NanumGothic lacks.
    for label in fig.findobj(Text):
        if _has_hangul(label.get_text()):
            label.set_fontfamily(["NanumGothic", "DejaVu Sans"])
    fig.tight_layout()
    plt.close(fig)
    return fig


def heatmap(num_positions: int = 64, d_model: int = 128, *, layout: str = "interleaved", lang: str = "en"):
    """Heatmap of the table: positions down, dimensions across.

    Parameters
    ----------
    num_positions : int, default 64
        Number of rows, ``pos = 0 ... num_positions - 1``.
    d_model : int, default 128
        Width of the encoding; a positive even integer.
    layout : {"interleaved", "split"}, default "interleaved"
        ``"interleaved"`` draws the columns in the table's order, sine and
        cosine alternating. ``"split"`` draws the ``d_model / 2`` sine columns
        first and the ``d_model / 2`` cosine columns after them, both in
        pair order ``i = 0, 1, ...``, with a line between the two blocks.
    lang : {"en", "id", "ko"}, default "en"
        Language of the title and labels.

    Returns
    -------
    matplotlib.figure.Figure
    """
    text = _labels(lang)
    if layout not in _LAYOUTS:
        raise ValueError(f"layout must be one of {_LAYOUTS}, got {layout!r}")
    table = sinusoidal_encoding(num_positions, d_model)
    half = d_model // 2
    if layout == "split":
        # Neighbouring columns of the table alternate between two different
        # functions, which reads as a barcode; grouping them shows each
        # function's smooth change from fast (left) to slow (right).
        table = np.hstack([table[:, 0::2], table[:, 1::2]])
    fig, ax = plt.subplots(figsize=(8, 4))
    image = ax.imshow(table, aspect="auto", cmap="RdBu", vmin=-1, vmax=1, interpolation="nearest")
    fig.colorbar(image, ax=ax, label=text["value"])
    if layout == "interleaved":
        ax.set(title=text["heatmap"], xlabel=text["dimension"], ylabel=text["position"])
        return _finish(fig)
    ax.axvline(half - 0.5, color="black", linewidth=1.5)
    # Bottom axis: the pair index i, restarting at 0 in the cosine block.
    step = max(1, half // 4)
    ticks = np.arange(0, half, step)
    ax.set_xticks(np.concatenate([ticks, half + ticks]), labels=[str(i) for i in ticks] * 2)
    top = ax.secondary_xaxis("top")
    top.set_xticks([(half - 1) / 2, half + (half - 1) / 2], labels=[_SIN.format(i="i"), _COS.format(i="i")])
    top.tick_params(length=0)
    ax.set(title=text["heatmap_split"], xlabel=text["pair"], ylabel=text["position"])
    return _finish(fig)


def waves(num_positions: int = 100, d_model: int = 128, dims=(0, 1, 6, 7, 20), *, lang: str = "en"):
    """Chosen columns of the table, one panel each, as curves over position."""
    text = _labels(lang)
    table = sinusoidal_encoding(num_positions, d_model)
    dims = [check_int("dims", j) for j in dims]
    if not dims or max(dims) >= d_model:
        raise ValueError(f"dims must be a non-empty list of columns < d_model={d_model}, got {dims}")
    # One panel per column: overlaid, the fast waves hide the slow ones.
    fig, axes = plt.subplots(len(dims), 1, figsize=(8, 1.1 * len(dims) + 1), sharex=True, squeeze=False)
    for ax, j in zip(axes[:, 0], dims, strict=True):
        ax.plot(table[:, j], marker=".", markersize=3, linewidth=1, color=f"C{j % 10}")
        ax.set(ylim=(-1.2, 1.2), yticks=[-1, 0, 1])
        ax.text(1.01, 0.5, text["dim"].format(j=j), transform=ax.transAxes, va="center", fontsize="small")
    axes[0, 0].set_title(text["waves"])
    axes[-1, 0].set_xlabel(text["position"])
    return _finish(fig)


def wavelengths(d_model: int = 512, *, base: float = 10000.0, lang: str = "en"):
    """Wavelength ``2 pi / omega_i`` of every pair ``i`` on a log scale."""
    text = _labels(lang)
    wavelength = 2 * np.pi / frequencies(d_model, base)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.semilogy(wavelength, marker=".", linestyle="none")
    ax.axhline(2 * np.pi, color="grey", linewidth=0.8)
    ax.axhline(base * 2 * np.pi, color="grey", linewidth=0.8)
    ax.set(title=text["wavelengths"].format(d=d_model), xlabel=text["pair"], ylabel=text["wavelength"])
    return _finish(fig)


def dot_products(d_model: int = 128, max_offset: int = 50, positions=(0, 20, 70), *, lang: str = "en"):
    """``PE(p) . PE(p + k)`` against ``k`` for a few starting positions ``p``."""
    text = _labels(lang)
    max_offset = check_int("max_offset", max_offset)
    positions = [check_int("positions", p) for p in positions]
    table = sinusoidal_encoding(max(positions) + max_offset + 1, d_model)
    offsets = np.arange(max_offset + 1)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    styles = ("-", "--", ":", "-.")
    for n, p in enumerate(positions):
        dots = table[p + offsets] @ table[p]
        ax.plot(offsets, dots, styles[n % len(styles)], linewidth=2, label=text["p"].format(p=p))
    ax.set(title=text["dots"].format(), xlabel=text["offset"], ylabel=text["dot"])
    ax.legend()
    return _finish(fig)


def circle(pair: int = 0, d_model: int = 8, num_positions: int = 6, *, lang: str = "en"):
    """Positions ``0 ... num_positions - 1`` of one (sin, cos) pair on the unit circle."""
    text = _labels(lang)
    d_model = check_d_model(d_model)
    pair = check_int("pair", pair)
    if pair >= d_model // 2:
        raise ValueError(f"pair must be < d_model // 2 = {d_model // 2}, got {pair}")
    table = sinusoidal_encoding(num_positions, d_model)
    sin, cos = table[:, 2 * pair], table[:, 2 * pair + 1]
    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    theta = np.linspace(0, 2 * np.pi, 200)
    ax.plot(np.sin(theta), np.cos(theta), color="lightgrey")
    ax.plot(sin, cos, "o-", color="tab:blue")
    for pos, (x, y) in enumerate(zip(sin, cos, strict=True)):
        ax.annotate(f"pos={pos}", (x, y), textcoords="offset points", xytext=(6, 4), fontsize="small")
    ax.set(
        title=text["circle"].format(i=pair),
        xlabel=_SIN.format(i=pair),
        ylabel=_COS.format(i=pair),
        aspect="equal",
        xlim=(-1.3, 1.3),
        ylim=(-1.3, 1.3),
    )
    return _finish(fig)


# Figures of the chapters on relative positions, RoPE and long context.
_LABELS["en"].update(
    {
        "decay": r"Long-term decay of RoPE: the bound on the score ($d = {d}$)",
        "distance": r"relative distance $m - n$",
        "bound": r"relative bound $\frac{{1}}{{d/2}}\sum_j |S_j|$",
        "alibi": r"ALiBi: the bias $-m\,|i - j|$ added to the attention logits",
        "alibi_head": r"head {h}, slope $m = {m:.4g}$",
        "query": r"query position $i$",
        "key": r"key position $j$",
        "bias": "bias",
        "t5": "T5 relative position buckets ({n} buckets, max distance {m})",
        "relative": r"relative position $j - i$ (key minus query)",
        "bucket": "bucket",
        "bidirectional": "encoder (bidirectional)",
        "unidirectional": "decoder (causal)",
        "scaling": r"Rescaled frequencies $\theta'_i/\theta_i$ for a context $s = {s:g}$ times longer",
        "ratio": r"$\theta'_i/\theta_i$",
        "linear": "position interpolation (linear)",
        "ntk": "NTK-aware",
        "yarn": r"YaRN ($L = {L}$)",
    }
)
_LABELS["id"].update(
    {
        "decay": r"Peluruhan jangka panjang RoPE: batas atas skor ($d = {d}$)",
        "distance": r"jarak relatif $m - n$",
        "bound": r"batas relatif $\frac{{1}}{{d/2}}\sum_j |S_j|$",
        "alibi": r"ALiBi: bias $-m\,|i - j|$ yang ditambahkan ke logit attention",
        "alibi_head": r"head {h}, kemiringan $m = {m:.4g}$",
        "query": r"posisi query $i$",
        "key": r"posisi key $j$",
        "bias": "bias",
        "t5": "Bucket posisi relatif T5 ({n} bucket, jarak maksimum {m})",
        "relative": r"posisi relatif $j - i$ (key dikurangi query)",
        "bucket": "bucket",
        "bidirectional": "encoder (dua arah)",
        "unidirectional": "decoder (kausal)",
        "scaling": r"Frekuensi baru $\theta'_i/\theta_i$ untuk konteks $s = {s:g}$ kali lebih panjang",
        "ratio": r"$\theta'_i/\theta_i$",
        "linear": "interpolasi posisi (linear)",
        "ntk": "NTK-aware",
        "yarn": r"YaRN ($L = {L}$)",
    }
)
_LABELS["ko"].update(
    {
        "decay": r"회전 위치 임베딩의 장기 감쇠: 점수의 상한 ($d = {d}$)",
        "distance": r"상대 거리 $m - n$",
        "bound": r"상대 상한 $\frac{{1}}{{d/2}}\sum_j |S_j|$",
        "alibi": r"ALiBi: 어텐션 로짓에 더하는 편향 $-m\,|i - j|$",
        "alibi_head": r"헤드 {h}, 기울기 $m = {m:.4g}$",
        "query": r"쿼리 위치 $i$",
        "key": r"키 위치 $j$",
        "bias": "편향",
        "t5": "T5의 상대 위치 버킷 (버킷 {n}개, 최대 거리 {m})",
        "relative": r"상대 위치 $j - i$ (키 위치에서 쿼리 위치를 뺀 값)",
        "bucket": "버킷",
        "bidirectional": "인코더 (양방향)",
        "unidirectional": "디코더 (인과적)",
        "scaling": r"문맥을 $s = {s:g}$배로 늘릴 때 바뀐 주파수 $\theta'_i/\theta_i$",
        "ratio": r"$\theta'_i/\theta_i$",
        "linear": "위치 보간(선형)",
        "ntk": "NTK-aware",
        "yarn": r"YaRN ($L = {L}$)",
    }
)


def rope_decay(dim: int = 128, max_distance: int = 256, *, base: float = 10000.0, lang: str = "en"):
    """RoFormer's bound on the RoPE score against the relative distance.

    Plots :func:`posenc.rope_decay_bound`: the mean of ``|S_j|`` over the
    ``dim / 2`` partial sums ``S_j = sum_{k<j} exp(1j r theta_k)``, for
    ``r = 0 ... max_distance``.
    """
    text = _labels(lang)
    bound = rope_decay_bound(max_distance, dim, base=base)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot(np.arange(bound.size), bound, linewidth=1.5)
    ax.set(
        title=text["decay"].format(d=dim),
        xlabel=text["distance"],
        ylabel=text["bound"].format(),
        xlim=(0, bound.size - 1),
        ylim=(0, None),
    )
    return _finish(fig)


def alibi(num_heads: int = 8, seq_len: int = 12, heads=(0, 3, 7), *, causal: bool = True, lang: str = "en"):
    """ALiBi's bias matrices ``-m_h |i - j|`` for a few heads ``h``, side by side.

    With ``causal=True`` the keys after the query (``j > i``), which a causal
    model masks, are left blank.
    """
    text = _labels(lang)
    bias = alibi_bias(num_heads, seq_len)
    slopes = alibi_slopes(num_heads)
    heads = [check_int("heads", h) for h in heads]
    if not heads or max(heads) >= num_heads:
        raise ValueError(
            f"heads must be a non-empty list of head indices < num_heads={num_heads}, got {heads}"
        )
    # One more, narrow column of the grid holds the colour bar that all panels share.
    fig, axes = plt.subplots(
        1,
        len(heads) + 1,
        figsize=(3.2 * len(heads) + 1, 4.2),
        gridspec_kw={"width_ratios": [1] * len(heads) + [0.08]},
        squeeze=False,
    )
    lowest = min(bias[h].min() for h in heads)
    for ax, h in zip(axes[0], heads, strict=False):
        shown = bias[h].copy()
        if causal:
            shown[np.triu_indices(seq_len, 1)] = np.nan
        image = ax.imshow(shown, cmap="viridis", vmin=lowest, vmax=0, interpolation="nearest")
        ax.set(title=text["alibi_head"].format(h=h, m=slopes[h]), xlabel=text["key"])
    axes[0, 0].set_ylabel(text["query"])
    fig.colorbar(image, cax=axes[0, -1], label=text["bias"])
    fig.suptitle(text["alibi"])
    _finish(fig)
    fig.subplots_adjust(top=0.8)  # tight_layout leaves no room for the suptitle above the panel titles
    return fig


def t5_buckets(span: int = 200, *, num_buckets: int = 32, max_distance: int = 128, lang: str = "en"):
    """T5's bucket of each relative position ``-span ... span``, encoder and decoder."""
    text = _labels(lang)
    span = check_int("span", span, minimum=1)
    relative = np.arange(-span, span + 1)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for bidirectional, style in ((True, "-"), (False, "--")):
        buckets = t5_relative_bucket(
            relative, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
        )
        label = text["bidirectional" if bidirectional else "unidirectional"]
        ax.step(relative, buckets, style, where="mid", linewidth=1.5, label=label)
    # Beyond max_distance every position shares the last bucket of its side.
    for edge in (-max_distance, max_distance):
        if edge in relative:
            ax.axvline(edge, color="grey", linewidth=0.8, linestyle=":")
    ax.set(
        title=text["t5"].format(n=num_buckets, m=max_distance), xlabel=text["relative"], ylabel=text["bucket"]
    )
    ax.legend()
    return _finish(fig)


def scaling_ratios(
    dim: int = 128,
    factor: float = 8.0,
    *,
    base: float = 10000.0,
    original_max_position: int = 4096,
    lang: str = "en",
):
    """``theta'_i / theta_i`` per pair ``i`` for the three recipes of chapter 7: PI, NTK-aware and YaRN.

    YaRN is :func:`posenc.scaled_frequencies`'s default, the ramp of its
    reference code; the methods that checkpoints ship besides these are
    compared in chapter 9.
    """
    text = _labels(lang)
    theta = rope_frequencies(dim, base)
    pairs = np.arange(theta.size)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for method, style in zip(("linear", "ntk", "yarn"), ("-", "--", "-."), strict=True):
        scaled = scaled_frequencies(
            dim, factor, method=method, base=base, original_max_position=original_max_position
        )
        ax.plot(pairs, scaled / theta, style, linewidth=2, label=text[method].format(L=original_max_position))
    # 1: the frequency is kept; 1/s: it is interpolated.
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.axhline(1.0 / factor, color="grey", linewidth=0.8, linestyle=":")
    ax.set(title=text["scaling"].format(s=factor), xlabel=text["pair"], ylabel=text["ratio"], ylim=(0, 1.08))
    ax.legend()
    return _finish(fig)


# ----------------------------------------------------------------------------- chapter 8: the experiment
# These take the results of posenc.experiment.chapter_sweep, as posenc.results.load() reads them from the
# committed file; they only read numbers, so this module still does not import torch.

_EXPERIMENT_LABELS = {
    "en": {
        "order": "order: is the first token smaller than the last?",
        "relative": "relative: is the copy 3 steps back?",
        "curves": "Learning curves: accuracy on each new training batch, every seed",
        "step": "training step",
        "accuracy": "accuracy",
        "lengths": "Accuracy against test length (trained on lengths 8 to 16): mean and every seed",
        "length": "test length (tokens)",
        "half": "50%",
        "table": "Test accuracy (%): mean over the seeds [lowest-highest]",
        "no_rows": "no rows",
        "short": {"order": "order", "relative": "relative"},
        "rescaling": "RoPE on the relative task read with chapter 7's recipes (s = 4): every seed",
        "rescaled": "as trained, no further training",
        "fine-tuned": "after a fine-tune of {steps} steps at 32-64 tokens",
        "recipe": "recipe",
        "recipes": {"none": "none", "linear": "PI", "ntk": "NTK", "dynamic": "dynamic\nNTK",
                    "yarn": "YaRN\n(code)", "yarn-paper": "YaRN\n(paper)", "llama3": "llama3"},
        "distances": "Which distance do the RoPE models answer \"yes\" to? (32 tokens, every seed)",
        "distance": "distance from the last token to its copy",
        "yes": "share of \"yes\" answers",
        "probes": {"none": "as trained", "linear": "PI (s = 4)", "pi-fastest": "PI on the fastest pair only"},
    },
    "id": {
        "order": "urutan: apakah token pertama lebih kecil daripada token terakhir?",
        "relative": "relatif: apakah salinannya 3 langkah di belakang?",
        "curves": "Kurva belajar: akurasi pada setiap batch pelatihan baru, semua seed",
        "step": "langkah pelatihan",
        "accuracy": "akurasi",
        "lengths": "Akurasi terhadap panjang uji (dilatih pada panjang 8 sampai 16): rerata dan setiap seed",
        "length": "panjang uji (token)",
        "half": "50%",
        "table": "Akurasi uji (%): rerata atas seed [terendah-tertinggi]",
        "no_rows": "tanpa baris",
        "short": {"order": "urutan", "relative": "relatif"},
        "rescaling": "RoPE pada tugas relatif dengan resep Bab 7 (s = 4): setiap seed",
        "rescaled": "apa adanya, tanpa pelatihan lagi",
        "fine-tuned": "setelah fine-tuning {steps} langkah pada 32-64 token",
        "recipe": "resep",
        "recipes": {"none": "asli", "linear": "PI", "ntk": "NTK", "dynamic": "NTK\ndinamis",
                    "yarn": "YaRN\n(kode)", "yarn-paper": "YaRN\n(makalah)", "llama3": "llama3"},
        "distances": "Pada jarak berapa model RoPE menjawab \"ya\"? (32 token, setiap seed)",
        "distance": "jarak dari token terakhir ke salinannya",
        "yes": "proporsi jawaban \"ya\"",
        "probes": {
            "none": "seperti dilatih",
            "linear": "PI (s = 4)",
            "pi-fastest": "PI hanya pada pasangan tercepat",
        },
    },
    "ko": {
        "order": "순서: 첫 토큰이 마지막 토큰보다 작은가?",
        "relative": "상대 위치: 같은 토큰이 3칸 앞에 있는가?",
        "curves": "학습 곡선: 새 학습 배치마다 잰 정확도, 모든 시드",
        "step": "학습 단계",
        "accuracy": "정확도",
        "lengths": "테스트 길이에 따른 정확도 (길이 8~16으로 학습): 평균과 각 시드",
        "length": "테스트 길이 (토큰 수)",
        "half": "50%",
        "table": "테스트 정확도 (%): 시드 평균 [최저-최고]",
        "no_rows": "행 없음",
        "short": {"order": "순서", "relative": "상대 위치"},
        "rescaling": "7장의 방법을 적용한 상대 위치 과제의 RoPE 모델 (s = 4): 모든 시드",
        "rescaled": "추가 학습 없이",
        "fine-tuned": "토큰 32~64개로 {steps}단계 미세 조정한 뒤",
        "recipe": "방법",
        "recipes": {"none": "그대로", "linear": "PI", "ntk": "NTK", "dynamic": "동적\nNTK",
                    "yarn": "YaRN\n(코드)", "yarn-paper": "YaRN\n(논문)", "llama3": "llama3"},
        "distances": "RoPE 모델은 어느 거리에서 \"예\"라고 답하는가? (토큰 32개, 모든 시드)",
        "distance": "마지막 토큰에서 복사본까지의 거리",
        "yes": "\"예\" 답의 비율",
        "probes": {"none": "학습한 그대로", "linear": "PI (s = 4)", "pi-fastest": "가장 빠른 쌍에만 PI"},
    },
}


def _experiment_text(lang: str) -> dict:
    _labels(lang)  # the same check, and the same message, as every other figure
    return _EXPERIMENT_LABELS[lang]


def _groups(results, study: str, by: str) -> dict:
    """task -> {variant or recipe -> [records, one per seed]}, in the file's order."""
    if not hasattr(results, "select"):
        raise TypeError(f"results must be posenc.results.Results (posenc.results.load), got {results!r:.60}")
    grouped: dict = {}
    for record in results.select(study):
        grouped.setdefault(record.task, {}).setdefault(getattr(record, by), []).append(record)
    return grouped


def _half_line(ax, text: dict) -> None:
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.text(1.0, 0.5, text["half"], transform=ax.get_yaxis_transform(), ha="right", va="bottom",
            color="grey", fontsize="small")


def experiment_curves(results, *, lang: str = "en"):
    """Training accuracy against step, one panel per task, one thin line per variant and seed."""
    text = _experiment_text(lang)
    grouped = _groups(results, "main", "position")
    fig, axes = plt.subplots(1, len(grouped), figsize=(5.5 * len(grouped), 3.8), squeeze=False, sharey=True)
    for ax, (task, variants) in zip(axes[0], grouped.items(), strict=True):
        for n, (position, records) in enumerate(variants.items()):
            for k, record in enumerate(records):
                steps, accuracy = record.curve
                ax.plot(steps, accuracy, color=f"C{n}", linewidth=0.8, alpha=0.7,
                        label=position if k == 0 else None)
        _half_line(ax, text)
        ax.set(title=text.get(task, task), xlabel=text["step"], ylim=(0.3, 1.02))
        ax.title.set_fontsize("medium")
    axes[0, 0].set_ylabel(text["accuracy"])
    axes[0, -1].legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize="small")
    fig.suptitle(text["curves"])
    return _finish(fig)


def _seed_dots(ax, x: float, values, color: str, marker: str = "o") -> None:
    # Seeds side by side around x, so that equal accuracies do not hide each other.
    spread = np.linspace(-0.06, 0.06, len(values)) if len(values) > 1 else np.zeros(1)
    ax.scatter(x * 2.0**spread, values, s=12, color=color, marker=marker, alpha=0.6, linewidths=0)


def experiment_lengths(results, *, lang: str = "en"):
    """Test accuracy against test length: the mean over the seeds as a line, every seed as a dot.

    A variant that cannot run at a length has no point there.
    """
    text = _experiment_text(lang)
    grouped = _groups(results, "main", "position")
    lengths = results.lengths()
    fig, axes = plt.subplots(1, len(grouped), figsize=(5.5 * len(grouped), 3.8), squeeze=False, sharey=True)
    markers = "os^vDx"
    for ax, (task, variants) in zip(axes[0], grouped.items(), strict=True):
        for n, (position, records) in enumerate(variants.items()):
            xs, means = [], []
            for length in lengths:
                values = [record.accuracy(length) for record in records]
                if any(value is None for value in values):
                    continue
                _seed_dots(ax, length, values, f"C{n}", markers[n % len(markers)])
                xs.append(length)
                means.append(np.mean(values))
            ax.plot(xs, means, marker=markers[n % len(markers)], color=f"C{n}", label=position)
        _half_line(ax, text)
        ax.set_xscale("log", base=2)
        ax.set_xticks(lengths, labels=[str(length) for length in lengths])
        ax.minorticks_off()
        ax.set(title=text.get(task, task), xlabel=text["length"], ylim=(0.3, 1.02))
        ax.title.set_fontsize("medium")
    axes[0, 0].set_ylabel(text["accuracy"])
    axes[0, -1].legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize="small")
    fig.suptitle(text["lengths"])
    return _finish(fig)


def experiment_table(results, *, lang: str = "en"):
    """The results table as a figure: a variant per row, a task and test length per column.

    Each cell gives the mean over the seeds and, below it, the lowest and highest seed.
    """
    text = _experiment_text(lang)
    grouped = _groups(results, "main", "position")
    lengths = results.lengths()
    positions = list(dict.fromkeys(position for variants in grouped.values() for position in variants))
    columns = [(task, length) for task in grouped for length in lengths]
    fig, ax = plt.subplots(figsize=(1.05 * len(columns) + 2.5, 0.6 * len(positions) + 1.6))
    means = np.full((len(positions), len(columns)), np.nan)
    labels = {}
    for row, position in enumerate(positions):
        for column, (task, length) in enumerate(columns):
            values = [record.accuracy(length) for record in grouped[task].get(position, [])]
            if not values or any(value is None for value in values):
                labels[row, column] = text["no_rows"]
                continue
            means[row, column] = 100 * np.mean(values)
            low, high = 100 * min(values), 100 * max(values)
            labels[row, column] = f"{means[row, column]:.0f}\n{low:.0f}-{high:.0f}"
    ax.imshow(means, cmap="Greens", vmin=40, vmax=100, aspect="auto")
    for (row, column), label in labels.items():
        color = "white" if means[row, column] > 85 else "black"
        ax.text(column, row, label, ha="center", va="center", fontsize="x-small", color=color)
    ax.set_yticks(range(len(positions)), labels=positions)
    ax.set_xticks(range(len(columns)), labels=[str(length) for _, length in columns])
    ax.tick_params(length=0)
    top = ax.secondary_xaxis("top")
    middles = [len(lengths) * n + (len(lengths) - 1) / 2 for n in range(len(grouped))]
    top.set_xticks(middles, labels=[text["short"].get(task, task) for task in grouped])
    top.tick_params(length=0)
    for n in range(1, len(grouped)):
        ax.axvline(n * len(lengths) - 0.5, color="black", linewidth=1.5)
    ax.set(title=text["table"], xlabel=text["length"])
    return _finish(fig)


def experiment_rescaling(results, *, lang: str = "en"):
    """The trained RoPE models read with each recipe: without training (left) and after a fine-tune (right).

    For each recipe and test length, every seed is a dot and the mean a short bar.
    """
    text = _experiment_text(lang)
    lengths = results.lengths()
    studies = ("rescaled", "fine-tuned")
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.0), sharey=True)
    for ax, study in zip(axes, studies, strict=True):
        ((_task, recipes),) = _groups(results, study, "recipe").items()
        for x, records in enumerate(recipes.values()):
            for n, length in enumerate(lengths):
                where = x + (n - 1) * 0.25
                values = [record.accuracy(length) for record in records]
                spread = np.linspace(-0.06, 0.06, len(values))
                ax.scatter(where + spread, values, s=12, color=f"C{n}", alpha=0.6, linewidths=0,
                           label=f"{length}" if x == 0 else None)
                ax.plot([where - 0.1, where + 0.1], [np.mean(values)] * 2, color=f"C{n}", linewidth=2)
        names = [text["recipes"].get(recipe, recipe) for recipe in recipes]
        ax.set_xticks(range(len(names)), labels=names, fontsize="small")
        steps = records[0].steps
        ax.set(title=text[study].format(steps=steps), xlabel=text["recipe"], ylim=(0.3, 1.02))
        ax.title.set_fontsize("medium")
        _half_line(ax, text)
    axes[0].set_ylabel(text["accuracy"])
    axes[-1].legend(title=text["length"], loc="upper left", bbox_to_anchor=(1.02, 1), fontsize="small")
    fig.suptitle(text["rescaling"])
    return _finish(fig)


def experiment_distances(results, *, lang: str = "en"):
    """The distance probe: the share of "yes" answers against the distance of the copy, per recipe.

    The line is the mean over the seeds, the dots are the seeds; the dotted
    lines mark distance 3, the one that training rewarded, and distance 12,
    which position interpolation with ``s = 4`` turns as training turned 3.
    """
    text = _experiment_text(lang)
    ((_task, recipes),) = _groups(results, "distance", "recipe").items()
    fig, ax = plt.subplots(figsize=(8, 3.8))
    for n, (recipe, records) in enumerate(recipes.items()):
        distances = list(records[0].correct)
        shares = np.array([[record.accuracy(d) for d in distances] for record in records])
        for row in shares:
            ax.scatter(distances, row, s=8, color=f"C{n}", alpha=0.4, linewidths=0)
        ax.plot(distances, shares.mean(axis=0), marker="o", color=f"C{n}",
                label=text["probes"].get(recipe, recipe))
    for mark in (3, 12):
        ax.axvline(mark, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xticks(distances)
    ax.set(title=text["distances"], xlabel=text["distance"], ylabel=text["yes"], ylim=(-0.02, 1.02))
    ax.title.set_fontsize("medium")
    ax.legend(fontsize="small")
    return _finish(fig)


__all__ += [
    "experiment_curves",
    "experiment_distances",
    "experiment_lengths",
    "experiment_rescaling",
    "experiment_table",
]


# ------------------------------------------------------------------------------------------------
# Figures a reader can move (posenc.interactive): plotly JSON with a slider, and one frame of it
# drawn here by matplotlib for the PDF, the EPUB and readers without JavaScript. Plotly draws
# plain text, so these labels write symbols in Unicode, not mathtext.

BASES = (100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000)
ROPE_BASES = (100, 1000, 10000, 100000, 500000, 1000000)
_GREY, _BLUE, _ORANGE = "#999999", "#1f77b4", "#ff7f0e"
# Plotly writes subscripts as <sub>…</sub> and breaks lines with <br>; the PNG frame draws them
# with Unicode subscripts, which DejaVu Sans has (the Korean pages' web font may not).
_SUBSCRIPT = str.maketrans("0123456789i", "₀₁₂₃₄₅₆₇₈₉ᵢ")
_SUB = re.compile(r"<sub>(.*?)</sub>")


def _plain(text: str) -> str:
    """Plotly's text markup as matplotlib draws it: subscripts in Unicode, <br> as a new line."""
    return _SUB.sub(lambda match: match[1].translate(_SUBSCRIPT), text).replace("<br>", "\n")


# Below the plot: the x-axis title, then plotly's slider (hidden on the site, whose script puts a
# labelled range input under the figure instead).
_AXIS_SPACE = 60
_MOVING_LABELS = {
    "en": {
        "shift": (
            "In every pair, PE(pos + k) is PE(pos) turned by k·ω<sub>i</sub><br>(d_model = {d}, pos = {pos})"
        ),
        "shift_pair": "pair i = {i}, ω = {omega}",
        "shift_label": "offset k",
        "shift_name": (
            "Interactive figure: PE(pos) and PE(pos + k) on the unit circles of pairs {pairs} "
            "of a {d}-dimensional encoding; a slider sets k from 0 to {k}."
        ),
        "base": "The base b sets the wavelengths (top)<br>and PE(p)·PE(p + k) (bottom), d_model = {d}",
        "base_label": "base b",
        "base_name": (
            "Interactive figure: the wavelength of each of the {n} frequency pairs and the dot product "
            "PE(p)·PE(p + k) for k = 0 to {k}; a slider sets the base from {low} to {high}."
        ),
        "rope": "RoPE's bound on the score against distance<br>for the chosen base (d = {d})",
        "rope_label": "base b",
        "rope_name": (
            "Interactive figure: RoPE's relative bound on the score for distances 0 to {r} "
            "with head dimension {d}; a slider sets the base from {low} to {high}."
        ),
        "pair": "pair index i",
        "wavelength": "wavelength 2π/ω<sub>i</sub> (log scale)",
        "offset": "offset k",
        "dot": "PE(p)·PE(p + k)",
        "distance": "relative distance m \u2212 n",
        "bound": "relative bound",
        "thousands": ",",
    },
    "id": {
        "shift": (
            "PE(pos + k) adalah PE(pos) yang diputar sebesar k·ω<sub>i</sub>"
            "<br>di setiap pasangan (d_model = {d}, pos = {pos})"
        ),
        "shift_pair": "pasangan i = {i}, ω = {omega}",
        "shift_label": "selisih k",
        "shift_name": (
            "Gambar interaktif: PE(pos) dan PE(pos + k) pada lingkaran satuan pasangan {pairs} "
            "dari encoding berdimensi {d}; penggeser mengatur k dari 0 sampai {k}."
        ),
        "base": "Basis b menentukan panjang gelombang (atas)<br>dan PE(p)·PE(p + k) (bawah), d_model = {d}",
        "base_label": "basis b",
        "base_name": (
            "Gambar interaktif: panjang gelombang setiap pasangan frekuensi ({n} pasangan) dan hasil kali "
            "titik PE(p)·PE(p + k) untuk k = 0 sampai {k}; penggeser mengatur basis dari {low} sampai {high}."
        ),
        "rope": "Batas atas skor RoPE terhadap jarak<br>untuk basis yang dipilih (d = {d})",
        "rope_label": "basis b",
        "rope_name": (
            "Gambar interaktif: batas atas relatif skor RoPE untuk jarak 0 sampai {r} "
            "dengan ukuran head {d}; penggeser mengatur basis dari {low} sampai {high}."
        ),
        "pair": "indeks pasangan i",
        "wavelength": "panjang gelombang 2π/ω<sub>i</sub> (skala log)",
        "offset": "selisih k",
        "dot": "PE(p)·PE(p + k)",
        "distance": "jarak relatif m \u2212 n",
        "bound": "batas relatif",
        "thousands": ".",
    },
    "ko": {
        "shift": "각 쌍 i에서 PE(pos + k)는 PE(pos)를 k·ω<sub>i</sub>만큼 돌린 것이다<br>"
        "(d_model = {d}, pos = {pos})",
        "shift_pair": "{i}번 쌍, ω = {omega}",
        "shift_label": "간격 k",
        "shift_name": (
            "대화형 그림: {d}차원 인코딩의 {pairs}번 쌍마다 단위원 위에 PE(pos)와 PE(pos + k)를 나타낸다. "
            "슬라이더로 k를 0부터 {k}까지 바꿀 수 있다."
        ),
        "base": "밑 b가 정하는 파장(위)과 PE(p)·PE(p + k)(아래)<br>(d_model = {d})",
        "base_label": "밑 b",
        "base_name": (
            "대화형 그림: 주파수 쌍 {n}개 각각의 파장과 k = 0부터 {k}까지의 내적 PE(p)·PE(p + k)를 "
            "보여 준다. 슬라이더로 밑을 {low}부터 {high}까지 바꿀 수 있다."
        ),
        "rope": "거리에 따른 회전 위치 임베딩 점수의 상한<br>(슬라이더로 고른 밑, d = {d})",
        "rope_label": "밑 b",
        "rope_name": (
            "대화형 그림: 헤드 차원이 {d}일 때 거리 0부터 {r}까지 회전 위치 임베딩 점수의 상대 상한을 "
            "보여 준다. 슬라이더로 밑을 {low}부터 {high}까지 바꿀 수 있다."
        ),
        "pair": "쌍 번호 i",
        "wavelength": "파장 2π/ω<sub>i</sub> (로그 눈금)",
        "offset": "간격 k",
        "dot": "PE(p)·PE(p + k)",
        "distance": "상대 거리 m \u2212 n",
        "bound": "상대 상한",
        "thousands": ",",
    },
}


def _moving_text(lang: str) -> dict:
    _labels(lang)  # the same check, and the same message, as every other figure
    return _MOVING_LABELS[lang]


def _number(value: float, text: dict) -> str:
    """``value`` with the language's thousands separator: 10,000 or 10.000."""
    return f"{value:,.0f}".replace(",", text["thousands"]) if value >= 1000 else f"{value:g}"


def _axis(title: str, **options) -> dict:
    return {"title": {"text": title}, "zeroline": False, **options}


def _slider(steps: list, active: int, prefix: str) -> dict:
    # Plotly's slider sits under the x-axis title.
    return {
        "active": active,
        "currentvalue": {"prefix": prefix},
        "pad": {"t": _AXIS_SPACE},
        "steps": steps,
    }


def _check_bases(bases, base) -> tuple[list, int]:
    """The slider's bases as floats, and the index of the starting ``base`` among them."""
    try:
        bases = [float(b) for b in bases]
    except (TypeError, ValueError):
        raise ValueError(f"bases must be finite numbers > 1, got {bases!r}") from None
    if not bases or not all(np.isfinite(b) and b > 1 for b in bases):
        raise ValueError(f"bases must be finite numbers > 1, got {bases}")
    return bases, _check_choice("base", base, bases)


def _check_choice(name: str, value, choices) -> int:
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return list(choices).index(value)


def rotation_slider(
    d_model: int = 128,
    pairs=(0, 8, 16, 32),
    *,
    pos: int = 20,
    max_offset: int = 50,
    offset: int = 5,
    lang="en",
):
    """PE(pos) and PE(pos + k) on the circles of several pairs, with a slider for ``k``.

    Parameters
    ----------
    d_model : int, default 128
        Width of the encoding; a positive even integer.
    pairs : sequence of int, default (0, 8, 16, 32)
        Pair indices ``i < d_model / 2``, one circle each, two circles per row.
    pos : int, default 20
        The fixed position; the slider moves ``pos + k``.
    max_offset : int, default 50
        The slider runs over ``k = 0 ... max_offset``.
    offset : int, default 5
        The slider's starting ``k``, which the PNG frame shows.
    lang : {"en", "id", "ko"}, default "en"

    Returns
    -------
    posenc.interactive.InteractiveFigure
    """
    text = _moving_text(lang)
    d_model = check_d_model(d_model)
    pos, max_offset = check_int("pos", pos), check_int("max_offset", max_offset)
    pairs = [check_int("pairs", i) for i in pairs]
    if not pairs or max(pairs) >= d_model // 2 or len(set(pairs)) != len(pairs):
        raise ValueError(f"pairs must be distinct pair indices < d_model // 2 = {d_model // 2}, got {pairs}")
    offset = _check_choice("offset", offset, range(max_offset + 1))
    omega = frequencies(d_model)[pairs]
    table = sinusoidal_encoding(pos + max_offset + 1, d_model)[pos:]  # rows pos ... pos + max_offset
    sin, cos = table[:, 0::2][:, pairs], table[:, 1::2][:, pairs]

    rows = (len(pairs) + 1) // 2
    row_height = 1 / rows
    theta = np.linspace(0, 2 * np.pi, 145)  # the circle, smooth at 2.5 degrees a side
    data, layout, moving = [], {}, []
    annotations = []
    for n, i in enumerate(pairs):
        axis = "" if n == 0 else str(n + 1)
        row, column = divmod(n, 2)
        top = 1 - row * row_height
        layout[f"xaxis{axis}"] = _axis(
            f"sin(pos·ω<sub>{i}</sub>)",
            domain=[0.0, 0.42] if column == 0 else [0.58, 1.0],
            range=[-1.3, 1.3],
            anchor=f"y{axis}",
        )
        layout[f"yaxis{axis}"] = _axis(
            f"cos(pos·ω<sub>{i}</sub>)",
            domain=[top - row_height + 0.18 / rows, top - 0.07 / rows],
            range=[-1.3, 1.3],
            anchor=f"x{axis}",
            scaleanchor=f"x{axis}",
        )
        where = {"xaxis": f"x{axis}", "yaxis": f"y{axis}"}
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": rounded(np.sin(theta), decimals=4),
                "y": rounded(np.cos(theta), decimals=4),
                "line": {"color": "#cccccc"},
                "hoverinfo": "skip",
                "showlegend": False,
                **where,
            }
        )
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": "PE(pos)",
                "x": [0.0, *rounded(sin[:1, n], decimals=4)],
                "y": [0.0, *rounded(cos[:1, n], decimals=4)],
                "line": {"color": _BLUE},
                "marker": {"size": [0, 10], "color": _BLUE},
                "legendgroup": "pos",
                "showlegend": n == 0,
                **where,
            }
        )
        moving.append(len(data))
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": "PE(pos + k)",
                "x": [],
                "y": [],
                "line": {"color": _ORANGE, "dash": "dash"},
                "marker": {"size": [0, 10], "color": _ORANGE},
                "legendgroup": "shift",
                "showlegend": n == 0,
                **where,
            }
        )
        moving.append(len(data))
        data.append(
            {
                "type": "scatter",
                "mode": "text",
                "x": [0.0],
                "y": [-1.12],
                "text": [],
                "hoverinfo": "skip",
                "textfont": {"color": _ORANGE},
                "showlegend": False,
                **where,
            }
        )
        annotations.append(
            {
                "text": text["shift_pair"].format(i=i, omega=f"{omega[n]:.4g}"),
                "x": sum(layout[f"xaxis{axis}"]["domain"]) / 2,
                "y": layout[f"yaxis{axis}"]["domain"][1],
                "xref": "paper",
                "yref": "paper",
                "xanchor": "center",
                "yanchor": "bottom",
                "showarrow": False,
            }
        )
    steps = []
    for k in range(max_offset + 1):
        x, y, labels = [], [], []
        for n, i in enumerate(pairs):
            x += [[0.0, *rounded(sin[k : k + 1, n], decimals=4)], [0.0]]
            y += [[0.0, *rounded(cos[k : k + 1, n], decimals=4)], [-1.12]]
            labels += [[], [f"k·ω<sub>{i}</sub> = {k * omega[n]:.2f} rad"]]
        steps.append(
            {"label": str(k), "method": "restyle", "args": [{"x": x, "y": y, "text": labels}, moving]}
        )
    layout.update(
        title={"text": text["shift"].format(d=d_model, pos=pos), "font": {"size": 15}},
        height=330 * rows + 115 + SLIDER_SPACE,
        margin={"l": 60, "r": 20, "t": 115, "b": _AXIS_SPACE + SLIDER_SPACE},
        annotations=annotations,
        legend={"orientation": "h", "x": 0.5, "xanchor": "center", "y": 1.0, "yanchor": "bottom"},
        sliders=[_slider(steps, offset, "k = ")],
    )
    pair_list = ", ".join(map(str, pairs))
    return InteractiveFigure(
        data,
        layout,
        name="rotation-shift",
        label=text["shift_label"],
        description=text["shift_name"].format(pairs=pair_list, d=d_model, k=max_offset),
    )


def base_slider(d_model: int = 128, max_offset: int = 100, *, bases=BASES, base: float = 10000, lang="en"):
    """Wavelengths and ``PE(p) . PE(p + k)`` against ``k``, with a slider for the base.

    Parameters
    ----------
    d_model : int, default 128
        Width of the encoding; a positive even integer.
    max_offset : int, default 100
        The lower panel shows ``k = 0 ... max_offset``, for ``p = 0``.
    bases : sequence of float, default BASES (100 ... 500 000)
        The slider's steps, each a finite number > 1.
    base : float, default 10000
        The slider's starting base, one of ``bases``, which the PNG frame shows.
    lang : {"en", "id", "ko"}, default "en"

    Returns
    -------
    posenc.interactive.InteractiveFigure
    """
    text = _moving_text(lang)
    d_model, max_offset = check_d_model(d_model), check_int("max_offset", max_offset)
    bases, active = _check_bases(bases, base)
    pairs = np.arange(d_model // 2)
    offsets = np.arange(max_offset + 1)
    top, bottom = {"xaxis": "x", "yaxis": "y"}, {"xaxis": "x2", "yaxis": "y2"}
    data = [
        {
            "type": "scatter",
            "mode": "markers",
            "x": pairs.tolist(),
            "y": [],
            "marker": {"color": _BLUE, "size": 5},
            "showlegend": False,
            **top,
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": [0, int(pairs[-1])],
            "y": rounded([2 * np.pi] * 2, significant=4),
            "line": {"color": _GREY, "width": 1},
            "hoverinfo": "skip",
            "showlegend": False,
            **top,
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": [0, int(pairs[-1])],
            "y": [],
            "line": {"color": _GREY, "width": 1},
            "hoverinfo": "skip",
            "showlegend": False,
            **top,
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": offsets.tolist(),
            "y": [],
            "line": {"color": _ORANGE},
            "showlegend": False,
            **bottom,
        },
    ]
    steps = []
    for b in bases:
        table = sinusoidal_encoding(max_offset + 1, d_model, base=b)
        wavelength = 2 * np.pi / frequencies(d_model, b)
        update = {
            "y": [
                rounded(wavelength, significant=4),
                rounded([2 * np.pi * b] * 2, significant=4),
                rounded(table @ table[0], decimals=3),
            ]
        }
        steps.append({"label": _number(b, text), "method": "restyle", "args": [update, [0, 2, 3]]})
    layout = {
        "title": {"text": text["base"].format(d=d_model), "font": {"size": 15}},
        "height": 640 + SLIDER_SPACE,
        "margin": {"l": 70, "r": 20, "t": 90, "b": _AXIS_SPACE + SLIDER_SPACE},
        "xaxis": _axis(text["pair"], domain=[0, 1], anchor="y"),
        "yaxis": _axis(text["wavelength"], type="log", range=[0, 7], domain=[0.58, 1], anchor="x"),
        "xaxis2": _axis(text["offset"], domain=[0, 1], anchor="y2"),
        "yaxis2": _axis(text["dot"], range=[-15, d_model // 2 + 5], domain=[0, 0.4], anchor="x2"),
        "sliders": [_slider(steps, active, "b = ")],
    }
    low, high = _number(min(bases), text), _number(max(bases), text)
    return InteractiveFigure(
        data,
        layout,
        name="formula-base",
        label=text["base_label"],
        description=text["base_name"].format(n=d_model // 2, k=max_offset, low=low, high=high),
    )


def rope_slider(
    dim: int = 128, max_distance: int = 1024, *, bases=ROPE_BASES, base: float = 10000, lang="en"
):
    """RoPE's bound on the score against distance (:func:`posenc.rope_decay_bound`), a slider for the base.

    Parameters
    ----------
    dim : int, default 128
        Head dimension; a positive even integer.
    max_distance : int, default 1024
        The curve covers the distances ``0 ... max_distance``.
    bases : sequence of float, default ROPE_BASES (100 ... 1 000 000)
        The slider's steps, each a finite number > 1.
    base : float, default 10000
        The slider's starting base, one of ``bases``, which the PNG frame shows.
    lang : {"en", "id", "ko"}, default "en"

    Returns
    -------
    posenc.interactive.InteractiveFigure
    """
    text = _moving_text(lang)
    dim, max_distance = check_d_model(dim), check_int("max_distance", max_distance)
    bases, active = _check_bases(bases, base)
    distance = np.arange(max_distance + 1)
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": distance.tolist(),
            "y": [],
            "line": {"color": _BLUE},
            "showlegend": False,
        }
    ]
    steps = [
        {
            "label": _number(b, text),
            "method": "restyle",
            "args": [{"y": [rounded(rope_decay_bound(max_distance, dim, base=b), decimals=2)]}, [0]],
        }
        for b in bases
    ]
    layout = {
        "title": {"text": text["rope"].format(d=dim), "font": {"size": 15}},
        "height": 400 + SLIDER_SPACE,
        "margin": {"l": 70, "r": 20, "t": 80, "b": _AXIS_SPACE + SLIDER_SPACE},
        "xaxis": _axis(text["distance"], range=[0, max_distance]),
        "yaxis": _axis(text["bound"], range=[0, (dim // 2 + 1) / 2 + 1.5]),
        "sliders": [_slider(steps, active, "b = ")],
    }
    low, high = _number(min(bases), text), _number(max(bases), text)
    return InteractiveFigure(
        data,
        layout,
        name="rope-decay-base",
        label=text["rope_label"],
        description=text["rope_name"].format(r=_number(max_distance, text), d=dim, low=low, high=high),
    )


_DASHES = {"solid": "-", "dash": "--", "dot": ":", "dashdot": "-."}


def _frame_axes(fig, layout: dict, xaxis: str, yaxis: str, size: tuple):
    """The matplotlib axes at the place of plotly's axes ``xaxis``/``yaxis`` (e.g. "x2", "y2")."""
    x_layout = layout.get("xaxis" + xaxis[1:], {})
    y_layout = layout.get("yaxis" + yaxis[1:], {})
    (x0, x1), (y0, y1) = x_layout.get("domain", [0, 1]), y_layout.get("domain", [0, 1])
    left, bottom = _paper_to_figure(layout, size, x0, y0)
    right, top = _paper_to_figure(layout, size, x1, y1)
    ax = fig.add_axes([left, bottom, right - left, top - bottom])
    for axis, spec in (("x", x_layout), ("y", y_layout)):
        if spec.get("type") == "log":
            getattr(ax, f"set_{axis}scale")("log")
        if "range" in spec:
            low, high = spec["range"]
            if spec.get("type") == "log":  # plotly gives a log axis's range in powers of ten
                low, high = 10.0**low, 10.0**high
            getattr(ax, f"set_{axis}lim")(low, high)
        getattr(ax, f"set_{axis}label")(_plain(spec.get("title", {}).get("text", "")))
    if "scaleanchor" in y_layout:
        ax.set_aspect("equal", adjustable="box")
    ax.grid(color="#eeeeee")
    return ax


def draw_frame(data: list, layout: dict):
    """One frame of a plotly figure of scatter traces, drawn by matplotlib.

    Understands what the figures of this module use: subplots placed by axis
    domains, lines (colour, dash), markers, text, log axes, fixed ranges,
    equal aspect, annotations and a title in paper coordinates, a legend, and
    the slider's current value, written at the top left.
    """
    size = (layout.get("width", 800), layout["height"])
    fig = plt.figure(figsize=(size[0] / 100, size[1] / 100))
    axes = {}
    for trace in data:
        where = (trace.get("xaxis", "x"), trace.get("yaxis", "y"))
        if where not in axes:
            axes[where] = _frame_axes(fig, layout, *where, size)
        ax, mode = axes[where], trace.get("mode", "lines")
        label = trace.get("name") if trace.get("showlegend", True) and trace.get("name") else None
        line, marker = trace.get("line", {}), trace.get("marker", {})
        color = line.get("color") or marker.get("color")
        x, y = trace.get("x", []), trace.get("y", [])
        if "lines" in mode:
            ax.plot(
                x,
                y,
                _DASHES[line.get("dash", "solid")],
                color=color,
                linewidth=0.75 * line.get("width", 2),
                label=label,
            )
            label = None
        if "markers" in mode:
            sizes = marker.get("size", 6)
            sizes = sizes if isinstance(sizes, list) else [sizes] * len(x)
            ax.scatter(x, y, s=[(0.75 * s) ** 2 for s in sizes], color=color, zorder=3, label=label)
        if "text" in mode:
            font = trace.get("textfont", {})
            for xi, yi, words in zip(x, y, trace.get("text", []), strict=False):
                ax.text(xi, yi, _plain(words), ha="center", va="center", color=font.get("color", "black"))
    for annotation in layout.get("annotations", []):
        fig.text(
            *_paper_to_figure(layout, size, annotation["x"], annotation["y"]),
            _plain(annotation["text"]),
            ha="center",
            va="bottom",
        )
    fig.suptitle(
        _plain(layout.get("title", {}).get("text", "")), fontsize="medium", y=1 - 10 / size[1], va="top"
    )
    handles = [h for ax in axes.values() for h in ax.get_legend_handles_labels()[0]]
    if handles:
        fig.legend(
            handles=handles,
            loc="upper center",
            ncol=len(handles),
            frameon=False,
            bbox_to_anchor=(0.5, 1 - 55 / size[1]),
        )
    slider = layout["sliders"][0]
    current = slider["steps"][slider.get("active", 0)]["label"]
    # The slider's value, at the top left: the PNG is cropped to what is drawn, without the slider's space.
    fig.text(
        0.02, 1 - 40 / size[1], slider.get("currentvalue", {}).get("prefix", "") + current, fontsize="large"
    )
    # Not _finish: the frame keeps plotly's placement, and its plain texts (no mathtext) take
    # DejaVu Sans first, whose ω and subscripts NanumGothic would draw too small.
    plt.close(fig)
    return fig


def _paper_to_figure(layout: dict, size: tuple, x: float, y: float) -> tuple:
    """Plotly's paper coordinates (0 … 1 across the plot area, inside the margins) as figure fractions."""
    width, height = size
    margin = layout.get("margin", {})
    left, right, top, bottom = (margin.get(side, 80) for side in "lrtb")
    return (left + x * (width - left - right)) / width, (bottom + y * (height - top - bottom)) / height


__all__ += ["BASES", "ROPE_BASES", "base_slider", "draw_frame", "rope_slider", "rotation_slider"]
