"""Success rate by task type per agent as a picture: a terminal chart (`compare --chart`, plotext) and
an image file (`compare --plot FILE`, matplotlib). Both are the `[plot]` extra and imported only here,
only when asked; the numbers are the paper table's (`agent.eval.paper_table`), so chart and table agree.
"""

from __future__ import annotations

from pathlib import Path

from agent.eval.paper_table import PaperTable

MARKERS = ("full", "dot", "x", "o", "+", "#", "*", "=")  # one per run, told apart without colours
MARKER_GLYPHS = {"full": "█", "dot": "•"}
PLOT_SUFFIXES = (".png", ".svg", ".pdf")
INSTALL = "pip install 'recode-tui[plot]'"


class ChartError(ValueError):
    """The chart cannot be drawn (the extra is missing, a file type it cannot write); one line."""


def _rates(table: PaperTable) -> list[list[float]]:
    return [[(cell.rate or 0.0) * 100 for cell in row] for row in table.cells]


def terminal_chart(table: PaperTable, width: int = 80, height: int = 16, color: bool = False) -> str:
    """Grouped bars, one group per task type (All last), one bar per run, with a legend line below."""
    try:
        import plotext as plt
    except ImportError:
        raise ChartError(f"--chart draws with plotext: {INSTALL}") from None
    markers = [MARKERS[i % len(MARKERS)] for i in range(len(table.labels))]
    fig = plt.figure
    fig.clear()
    plt.terminal.limit(False, False)  # the size asked for, not the terminal's (a pipe has none)
    fig.plot_size(max(40, width), max(10, height))
    fig.draw(fig.bar(table.headers(), _rates(table), marker=markers))
    fig.ruler("y").lim(0, 100)
    fig.title("success rate (%) by task type")
    picture = fig.build().string(colorless=not color).rstrip("\n")
    legend = "   ".join(f"{MARKER_GLYPHS.get(m, m)} {label}" for m, label in zip(markers, table.labels))
    return f"{picture}\n{legend}"


def save_plot(table: PaperTable, path: str | Path) -> None:
    """A grouped bar chart written as PNG, SVG or PDF (by the file's suffix); with repeats, the 95 %
    intervals as error bars."""
    target = Path(path)
    if target.suffix.lower() not in PLOT_SUFFIXES:
        raise ChartError(f"--plot {path}: name a .png, .svg or .pdf file")
    try:
        from matplotlib.figure import Figure  # no pyplot: no global state, no display needed
    except ImportError:
        raise ChartError(f"--plot draws with matplotlib: {INSTALL}") from None
    rates = _rates(table)
    groups, runs = len(table.columns), len(table.labels)
    figure = Figure(figsize=(max(6.0, 1.1 * groups + 2), 3.6), layout="constrained")
    axes = figure.add_subplot()
    width = 0.8 / max(runs, 1)
    for index, (label, values, cells) in enumerate(zip(table.labels, rates, table.cells)):
        xs = [g - 0.4 + width * (index + 0.5) for g in range(groups)]
        errors = None
        if any(c.low is not None for c in cells):
            errors = [[v - (c.low or 0) * 100 if c.low is not None else 0 for v, c in zip(values, cells)],
                      [(c.high or 0) * 100 - v if c.high is not None else 0 for v, c in zip(values, cells)]]
        axes.bar(xs, values, width, label=label, yerr=errors, capsize=3 if errors else 0)
    axes.set_xticks(range(groups), table.headers())
    axes.set_ylim(0, 100)
    axes.set_ylabel("success rate (%)")
    axes.legend(fontsize="small")
    try:
        figure.savefig(target)
    except OSError as exc:
        raise ChartError(f"cannot write {path}: {exc.strerror}; pick another --plot path") from None
