"""Figures for the chapters, labelled in English, Indonesian or Korean.

Every function returns a :class:`matplotlib.figure.Figure` that is already
closed in pyplot, so a notebook shows it exactly once: as the cell's value.
Importing this module registers the bundled NanumGothic font (SIL OFL 1.1)
as a fallback, so Hangul renders on machines without a CJK system font.
"""

from __future__ import annotations

from importlib import resources

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import font_manager

from posenc._checks import check_d_model, check_int
from posenc.encoding import frequencies, sinusoidal_encoding

__all__ = ["LANGUAGES", "circle", "dot_products", "heatmap", "wavelengths", "waves"]

LANGUAGES = ("en", "id", "ko")

_FONT_FILE = resources.files("posenc") / "fonts" / "NanumGothic.ttf"
font_manager.fontManager.addfont(str(_FONT_FILE))
# DejaVu Sans draws Latin letters and the minus sign; NanumGothic fills in Hangul.
plt.rcParams["font.family"] = ["DejaVu Sans", "NanumGothic"]

_LABELS = {
    "en": {
        "heatmap": "Sinusoidal positional encoding",
        "position": "position (pos)",
        "dimension": "dimension (column)",
        "value": "value",
        "waves": "Selected dimensions as waves over position",
        "dim": "dimension {j}",
        "wavelengths": "Wavelength of each frequency pair (d_model = {d})",
        "pair": "pair index i",
        "wavelength": "wavelength (positions, log scale)",
        "dots": "PE(p) · PE(p + k) depends only on the offset k",
        "offset": "offset k",
        "dot": "dot product",
        "p": "p = {p}",
        "circle": "Pair i = {i}: one step of pos turns the point by ω_{i}",
    },
    "id": {
        "heatmap": "Positional encoding sinusoidal",
        "position": "posisi (pos)",
        "dimension": "dimensi (kolom)",
        "value": "nilai",
        "waves": "Beberapa dimensi sebagai gelombang terhadap posisi",
        "dim": "dimensi {j}",
        "wavelengths": "Panjang gelombang tiap pasangan frekuensi (d_model = {d})",
        "pair": "indeks pasangan i",
        "wavelength": "panjang gelombang (posisi, skala log)",
        "dots": "PE(p) · PE(p + k) hanya bergantung pada selisih k",
        "offset": "selisih k",
        "dot": "hasil kali titik",
        "p": "p = {p}",
        "circle": "Pasangan i = {i}: tiap langkah pos memutar titik sebesar ω_{i}",
    },
    "ko": {
        "heatmap": "사인파 positional encoding",
        "position": "위치 (pos)",
        "dimension": "차원 (열)",
        "value": "값",
        "waves": "위치에 따른 몇몇 차원의 파형",
        "dim": "{j}번 차원",
        "wavelengths": "주파수 쌍별 파장 (d_model = {d})",
        "pair": "쌍 번호 i",
        "wavelength": "파장 (위치 단위, 로그 눈금)",
        "dots": "PE(p) · PE(p + k)는 간격 k에만 의존한다",
        "offset": "간격 k",
        "dot": "내적",
        "p": "p = {p}",
        "circle": "{i}번째 쌍: pos가 1 늘 때마다 점이 ω_{i}만큼 회전한다",
    },
}


def _labels(lang: str) -> dict:
    if lang not in _LABELS:
        raise ValueError(f"lang must be one of {LANGUAGES}, got {lang!r}")
    return _LABELS[lang]


def _finish(fig):
    fig.tight_layout()
    plt.close(fig)
    return fig


def heatmap(num_positions: int = 64, d_model: int = 128, *, lang: str = "en"):
    """Heatmap of the table: positions down, dimensions across."""
    text = _labels(lang)
    table = sinusoidal_encoding(num_positions, d_model)
    fig, ax = plt.subplots(figsize=(8, 4))
    image = ax.imshow(table, aspect="auto", cmap="RdBu", vmin=-1, vmax=1, interpolation="nearest")
    fig.colorbar(image, ax=ax, label=text["value"])
    ax.set(title=text["heatmap"], xlabel=text["dimension"], ylabel=text["position"])
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
    ax.set(title=text["dots"], xlabel=text["offset"], ylabel=text["dot"])
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
        xlabel=f"sin(pos·ω_{pair})",
        ylabel=f"cos(pos·ω_{pair})",
        aspect="equal",
        xlim=(-1.3, 1.3),
        ylim=(-1.3, 1.3),
    )
    return _finish(fig)
