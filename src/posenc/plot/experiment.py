"""The figures of chapter 8's experiment, labelled in English, Indonesian or Korean.

They take the results of :func:`posenc.experiment.chapter_sweep`, as
:func:`posenc.experiment.results.load` reads them from the committed file; they only read
numbers, so this module does not import torch. Like every figure, each is
closed in pyplot, and the notebooks call them through :mod:`posenc.plot`.
"""

from __future__ import annotations

import base64
import html
import io

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np

from posenc.plot._style import check_lang, finish
from posenc.words import messages

__all__ = [
    "ResultsTable",
    "experiment_curves",
    "experiment_distances",
    "experiment_lengths",
    "experiment_rescaling",
    "experiment_table",
]


def _experiment_text(lang: str) -> dict:
    """The figures' words in ``lang``: the messages plot.experiment.* of posenc/locale/<lang>.po."""
    check_lang(lang)  # the same check, and the same message, as every other figure
    return {
        **messages("plot.experiment", lang),
        "short": messages("plot.experiment.short", lang),  # by task
        "recipes": messages("plot.experiment.recipes", lang),  # by rescaling recipe
        "probes": messages("plot.experiment.probes", lang),  # by probe of the distance study
    }


def _groups(results, study: str, by: str) -> dict:
    """task -> {variant or recipe -> [records, one per seed]}, in the file's order."""
    if not hasattr(results, "select"):
        raise TypeError(
            "results must be posenc.experiment.results.Results (posenc.experiment.results.load), "
            f"got {results!r:.60}"
        )
    grouped: dict = {}
    for record in results.select(study):
        grouped.setdefault(record.task, {}).setdefault(getattr(record, by), []).append(record)
    return grouped


def _half_line(ax, text: dict) -> None:
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.text(
        1.0,
        0.5,
        text["half"],
        transform=ax.get_yaxis_transform(),
        ha="right",
        va="bottom",
        color="grey",
        fontsize="small",
    )


def experiment_curves(results, *, lang: str = "en"):
    """Training accuracy against step, one panel per task, one thin line per variant and seed.

    Examples
    --------
    >>> from posenc.plot.experiment import experiment_curves
    >>> from posenc.experiment.results import load
    >>> fig = experiment_curves(load())  # the committed results of chapter 8
    >>> [ax.get_title() for ax in fig.axes]
    ['order: is the first token smaller than the last?', 'relative: is the copy 3 steps back?']
    """
    text = _experiment_text(lang)
    grouped = _groups(results, "main", "position")
    fig, axes = plt.subplots(1, len(grouped), figsize=(5.5 * len(grouped), 3.8), squeeze=False, sharey=True)
    for ax, (task, variants) in zip(axes[0], grouped.items(), strict=True):
        for n, (position, records) in enumerate(variants.items()):
            for k, record in enumerate(records):
                steps, accuracy = record.curve
                ax.plot(
                    steps,
                    accuracy,
                    color=f"C{n}",
                    linewidth=0.8,
                    alpha=0.7,
                    label=position if k == 0 else None,
                )
        _half_line(ax, text)
        ax.set(title=text.get(task, task), xlabel=text["step"], ylim=(0.3, 1.02))
        ax.title.set_fontsize("medium")
    axes[0, 0].set_ylabel(text["accuracy"])
    axes[0, -1].legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize="small")
    fig.suptitle(text["curves"])
    return finish(fig)


def _seed_dots(ax, x: float, values, color: str, marker: str = "o") -> None:
    # Seeds side by side around x, so that equal accuracies do not hide each other.
    spread = np.linspace(-0.06, 0.06, len(values)) if len(values) > 1 else np.zeros(1)
    ax.scatter(x * 2.0**spread, values, s=12, color=color, marker=marker, alpha=0.6, linewidths=0)


def experiment_lengths(results, *, lang: str = "en"):
    """Test accuracy against test length: the mean over the seeds as a line, every seed as a dot.

    A variant that cannot run at a length has no point there.

    Examples
    --------
    >>> from posenc.plot.experiment import experiment_lengths
    >>> from posenc.experiment.results import load
    >>> fig = experiment_lengths(load())  # the committed results of chapter 8
    >>> [ax.get_title() for ax in fig.axes]
    ['order: is the first token smaller than the last?', 'relative: is the copy 3 steps back?']
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
    return finish(fig)


# The colour scale of the results table, in the figure and in its HTML: 40 % and below is the palest.
_CMAP, _LOWEST, _HIGHEST = "Greens", 40, 100


def _luminance(rgb) -> float:
    """WCAG relative luminance of an sRGB colour given as three floats in [0, 1]."""
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb[:3]]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _cell_colours(mean: float) -> tuple[str, str]:
    """The background of a cell holding ``mean`` (%) and the text colour, black or white, that
    contrasts more with it (at least 4.5:1 on every colour of the scale)."""
    shade = (min(max(mean, _LOWEST), _HIGHEST) - _LOWEST) / (_HIGHEST - _LOWEST)
    rgb = mpl.colormaps[_CMAP](shade)
    light = _luminance(rgb)
    text = "#000000" if (light + 0.05) / 0.05 >= 1.05 / (light + 0.05) else "#ffffff"
    return mpl.colors.to_hex(rgb), text


class ResultsTable:
    """Chapter 8's results table, as a figure for print and as an HTML table for the site.

    A notebook shows it as one output with three types: ``text/html``, a
    table with coloured cells that a phone reader can read, search and
    scroll sideways in its own box; ``image/png``, the heatmap figure, for
    the PDF and the EPUB; and ``text/plain``.

    Attributes
    ----------
    figure : matplotlib.figure.Figure
        The heatmap, closed in pyplot.
    title : str
        The table's title, in the figure's language.
    columns : list of tuple
        ``(task heading, test length)`` per column.
    rows : list of tuple
        ``(variant, cells)`` per row; a cell is ``(mean, lowest, highest)`` in
        percent, or the text that stands in a cell that has no result.
    length : str
        What the lengths of the columns are, in the figure's language.

    Examples
    --------
    >>> from posenc.plot.experiment import experiment_table
    >>> from posenc.experiment.results import load
    >>> table = experiment_table(load(), lang="id")  # the committed results of chapter 8
    >>> table
    <results table: 6 variants, 6 columns>
    >>> table.title, table.length
    ('Akurasi uji (%): rata-rata atas seed [terendah-tertinggi]', 'panjang uji (token)')
    >>> sorted(table._repr_mimebundle_())  # what a notebook stores
    ['image/png', 'text/html', 'text/plain']
    """

    def __init__(self, figure, title: str, columns: list, rows: list, length: str):
        self.figure, self.title, self.columns, self.rows, self.length = figure, title, columns, rows, length

    def __repr__(self) -> str:
        return f"<results table: {len(self.rows)} variants, {len(self.columns)} columns>"

    def png(self) -> bytes:
        """The figure as a PNG, as a notebook's inline backend draws it."""
        buffer = io.BytesIO()
        self.figure.canvas.print_figure(
            buffer,
            format="png",
            dpi=self.figure.dpi,
            facecolor=self.figure.get_facecolor(),
            edgecolor=self.figure.get_edgecolor(),
            bbox_inches="tight",
        )
        return buffer.getvalue()

    def html(self) -> str:
        """The table as HTML with inline styles, so that it reads the same in Jupyter and on the site.

        Examples
        --------
        >>> from posenc.plot.experiment import experiment_table
        >>> from posenc.experiment.results import load
        >>> table = experiment_table(load()).html()
        >>> table.count("<tr>"), table.count('<th scope="row"')
        (8, 6)
        """
        escape = html.escape
        tasks = list(dict.fromkeys(task for task, _ in self.columns))
        spans = [sum(1 for task_, _ in self.columns if task_ == task) for task in tasks]
        cell = "padding:0.3em 0.5em;text-align:center;"
        corner = "padding:0.3em 0.5em;text-align:right;"
        # A line between the tasks, as in the figure: on the first column of each task but the first.
        firsts = {sum(spans[:n]) for n in range(1, len(spans))}

        def border(column: int) -> str:
            # Mid grey: seen on a white page, on a dark one and next to every cell colour.
            return "border-left:3px solid #767676;" if column in firsts else ""

        starts = [sum(spans[:n]) for n in range(len(spans))]
        head = "".join(
            f'<th scope="colgroup" colspan="{span}" style="{cell}{border(start)}">{escape(task)}</th>'
            for task, span, start in zip(tasks, spans, starts, strict=True)
        )
        lengths = "".join(
            f'<th scope="col" style="{cell}{border(n)}">{length}</th>'
            for n, (_, length) in enumerate(self.columns)
        )
        title = escape(self.title)
        # The title stands above the box that scrolls, so that a phone shows it whole.
        lines = [
            '<div class="posenc-results-table">',
            f'<p style="text-align:center;margin:0 0 0.3em">{title}</p>',
            f'<div role="region" tabindex="0" aria-label="{title}" style="overflow-x:auto;max-width:100%">',
            f'<table aria-label="{title}" style="border-collapse:collapse;margin:0 auto;'
            'font-variant-numeric:tabular-nums;line-height:1.25">',
            f"<thead><tr><td></td>{head}</tr>",
            f'<tr><th scope="col" style="{corner}font-weight:normal">'
            f"{escape(self.length)}</th>{lengths}</tr></thead>",
            "<tbody>",
        ]
        for variant, cells in self.rows:
            shown = []
            for column, value in enumerate(cells):
                if isinstance(value, str):
                    style = f"{cell}{border(column)}font-size:0.8em;font-style:italic"
                    shown.append(f'<td style="{style}">{escape(value)}</td>')
                    continue
                mean, low, high = value
                background, text = _cell_colours(mean)
                shown.append(
                    f'<td style="{cell}{border(column)}background:{background};color:{text}">'
                    f'<strong>{mean:.0f}</strong><br><span style="font-size:0.8em">{low:.0f}-{high:.0f}'
                    "</span></td>"
                )
            header = f'<th scope="row" style="{corner}">{escape(variant)}</th>'
            lines.append(f"<tr>{header}{''.join(shown)}</tr>")
        lines += ["</tbody>", "</table>", "</div>", "</div>"]
        return "\n".join(lines)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return {
            "text/plain": repr(self),
            "text/html": self.html(),
            "image/png": base64.b64encode(self.png()).decode("ascii"),
        }


def experiment_table(results, *, lang: str = "en") -> ResultsTable:
    """The results table: a variant per row, a task and test length per column.

    Each cell gives the mean over the seeds and, below it, the lowest and
    highest seed. The :class:`ResultsTable` it returns shows as an HTML table
    on the site and as a heatmap figure in print.

    Examples
    --------
    >>> from posenc.plot.experiment import experiment_table
    >>> from posenc.experiment.results import load
    >>> table = experiment_table(load())  # the committed results of chapter 8
    >>> [ax.get_title() for ax in table.figure.axes]
    ['Test accuracy (%): mean over the seeds [lowest-highest]']
    >>> table.rows[0][0], table.columns[0]
    ('none', ('order', 16))
    """
    text = _experiment_text(lang)
    grouped = _groups(results, "main", "position")
    lengths = results.lengths()
    positions = list(dict.fromkeys(position for variants in grouped.values() for position in variants))
    columns = [(task, length) for task in grouped for length in lengths]
    fig, ax = plt.subplots(figsize=(1.05 * len(columns) + 2.5, 0.6 * len(positions) + 1.6))
    means = np.full((len(positions), len(columns)), np.nan)
    labels = {}
    cells = {}
    for row, position in enumerate(positions):
        for column, (task, length) in enumerate(columns):
            values = [record.accuracy(length) for record in grouped[task].get(position, [])]
            if not values or any(value is None for value in values):
                labels[row, column] = cells[row, column] = text["no_rows"]
                continue
            means[row, column] = 100 * np.mean(values)
            low, high = 100 * min(values), 100 * max(values)
            labels[row, column] = f"{means[row, column]:.0f}\n{low:.0f}-{high:.0f}"
            cells[row, column] = (float(means[row, column]), float(low), float(high))
    ax.imshow(means, cmap=_CMAP, vmin=_LOWEST, vmax=_HIGHEST, aspect="auto")
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
    return ResultsTable(
        finish(fig),
        text["table"],
        [(text["short"].get(task, task), length) for task, length in columns],
        [
            (position, [cells[row, column] for column in range(len(columns))])
            for row, position in enumerate(positions)
        ],
        text["length"],
    )


def experiment_rescaling(results, *, lang: str = "en"):
    """The trained RoPE models read with each recipe: without training (left) and after a fine-tune (right).

    For each recipe and test length, every seed is a dot and the mean a short bar.

    Examples
    --------
    >>> from posenc.plot.experiment import experiment_rescaling
    >>> from posenc.experiment.results import load
    >>> fig = experiment_rescaling(load())  # the committed results of chapter 8
    >>> [ax.get_title() for ax in fig.axes]
    ['as trained, no further training', 'after a fine-tune of 150 steps at 32-64 tokens']
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
                ax.scatter(
                    where + spread,
                    values,
                    s=12,
                    color=f"C{n}",
                    alpha=0.6,
                    linewidths=0,
                    label=f"{length}" if x == 0 else None,
                )
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
    return finish(fig)


def experiment_distances(results, *, lang: str = "en"):
    """The distance probe: the share of "yes" answers against the distance of the copy, per recipe.

    The line is the mean over the seeds, the dots are the seeds; the dotted
    lines mark distance 3, the one that training rewarded, and distance 12,
    which position interpolation with ``s = 4`` turns as training turned 3.

    Examples
    --------
    >>> from posenc.plot.experiment import experiment_distances
    >>> from posenc.experiment.results import load
    >>> fig = experiment_distances(load())  # the committed results of chapter 8
    >>> [ax.get_title() for ax in fig.axes]
    ['Which distance do the RoPE models answer "yes" to? (32 tokens, every seed)']
    """
    text = _experiment_text(lang)
    ((_task, recipes),) = _groups(results, "distance", "recipe").items()
    fig, ax = plt.subplots(figsize=(8, 3.8))
    for n, (recipe, records) in enumerate(recipes.items()):
        distances = list(records[0].correct)
        shares = np.array([[record.accuracy(d) for d in distances] for record in records])
        for row in shares:
            ax.scatter(distances, row, s=8, color=f"C{n}", alpha=0.4, linewidths=0)
        ax.plot(
            distances,
            shares.mean(axis=0),
            marker="o",
            color=f"C{n}",
            label=text["probes"].get(recipe, recipe),
        )
    for mark in (3, 12):
        ax.axvline(mark, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xticks(distances)
    ax.set(title=text["distances"], xlabel=text["distance"], ylabel=text["yes"], ylim=(-0.02, 1.02))
    ax.title.set_fontsize("medium")
    ax.legend(fontsize="small")
    return finish(fig)
