"""The per-agent x per-task-type table, as papers print it, in Markdown, CSV, LaTeX or JSON.

`compare` prints a delta table for reading; a paper wants one row per method
(agent) and one column per task type, with `overall` last (the ReCode paper's
ALFWorld table). The numbers come from the same `Comparison` rows the text
table shows, so the two never disagree: each cell is the success rate in
percent with one decimal, as the text table prints it, and where the
environment has a score (WebShop, ScienceWorld: the metric their papers
report) the mean score beside it. The overall column is called `overall` in
every format, as in the text tables.

Pure functions: `paper_table` builds the data, `render` lays it out.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from agent.eval.compare import Comparison, Row
from agent.eval.loaded_report import LoadedReport

FORMATS = ("markdown", "csv", "latex")
OVERALL = "overall"

SCORED_NOTE = "each cell: success rate (%) / mean score"


@dataclass(frozen=True)
class Cell:
    """One agent's success on one task type: the rate (0-1), a 95 % interval when repeats give one, and the
    mean score when the environment has one."""

    rate: float | None
    low: float | None = None
    high: float | None = None
    score: float | None = None

    def percent(self) -> str:
        """The text table's number: the rate in percent, one decimal (`33.3`); `-` when absent."""
        return "-" if self.rate is None else f"{self.rate * 100:.1f}"

    def interval(self) -> str:
        """`[20.0, 45.1]` in percent, or "" without one."""
        if self.low is None or self.high is None:
            return ""
        return f"[{self.low * 100:.1f}, {self.high * 100:.1f}]"

    def score_text(self) -> str:
        """The mean score with one decimal, as the text table prints it; `-` when absent."""
        return "-" if self.score is None else f"{self.score:.1f}"


@dataclass(frozen=True)
class PaperTable:
    """Rows are the compared runs (baseline first), columns the task types then `overall`."""

    columns: list[str]
    labels: list[str]
    cells: list[list[Cell]]
    episodes: list[int]  # the episodes each row counts (the common ones of its comparison)
    titles: dict[str, str] = field(default_factory=dict)  # a column's heading (the environment's `type_title`)

    def headers(self) -> list[str]:
        return [self.titles.get(c, c) for c in self.columns]

    @property
    def scored(self) -> bool:
        """Whether any run has a score (WebShop, ScienceWorld): then every format shows it beside success."""
        return any(c.score is not None for row in self.cells for c in row)

    def to_dict(self) -> dict[str, Any]:
        """The table for scripts: rates and scores in percent / points, `null` where absent."""
        return {"columns": list(self.columns), "rows": [
            {"label": label, "episodes": n, "cells": {column: {
                "success": None if c.rate is None else round(c.rate * 100, 4),
                "success_interval": None if c.low is None or c.high is None
                else [round(c.low * 100, 4), round(c.high * 100, 4)],
                "mean_score": c.score} for column, c in zip(self.columns, cells)}}
            for label, n, cells in zip(self.labels, self.episodes, self.cells)]}


def _cell(row: Row | None, side: str) -> Cell:
    if row is None:
        return Cell(None)
    values = row.base if side == "base" else row.other
    bounds = row.base_interval if side == "base" else row.other_interval
    low, high = bounds if bounds else (None, None)
    return Cell(values.get("success"), low, high, values.get("score"))


def row_labels(reports: Sequence[LoadedReport]) -> list[str]:
    """Each run's name in the table: its agent; the folder too when two runs share an agent."""
    agents = [str(r.settings().get("agent.name") or "recode") for r in reports]
    labels = []
    for agent_name, report in zip(agents, reports):
        if agents.count(agent_name) > 1:
            path = Path(report.label).parent.name or report.label
            labels.append(f"{agent_name} ({path})")
        else:
            labels.append(agent_name)
    return labels


def paper_table(comparisons: Sequence[Comparison], reports: Sequence[LoadedReport],
                type_order: Sequence[str] = ()) -> PaperTable:
    """The baseline's row from the first comparison, then each other run's row from its own comparison;
    columns in `type_order` (the environment's), headed by the environment's titles of its task types."""
    seen: list[str] = []
    for comparison in comparisons:
        for row in comparison.rows:
            if row.task_type != OVERALL and row.task_type not in seen:
                seen.append(row.task_type)
    ordered = [t for t in type_order if t in seen] + [t for t in seen if t not in type_order]
    columns = [*ordered, OVERALL]

    def line(comparison: Comparison, side: str) -> list[Cell]:
        rows = {r.task_type: r for r in comparison.rows}
        return [_cell(rows.get(c), side) for c in columns]

    cells = [line(comparisons[0], "base"), *(line(c, "other") for c in comparisons)]
    episodes = [comparisons[0].rows[-1].episodes, *(c.rows[-1].episodes for c in comparisons)]
    titles = _titles(reports[0].settings().get("env.name") if reports else None, ordered)
    return PaperTable(columns, row_labels(reports), cells, episodes, titles)


def _titles(env: object, task_types: Sequence[str]) -> dict[str, str]:
    """Each task type's column heading as its environment titles it (ALFWorld: the paper's `Put Two`);
    the type itself for an environment nobody registered now."""
    from envs import registry
    from envs.base import EnvError

    try:
        source = registry.provider(str(env) if env else registry.default_env())
    except EnvError:
        return {}
    return {t: source.type_title(t) for t in task_types}


def _text(cell: Cell, scored: bool = False) -> str:
    interval = cell.interval()
    text = f"{cell.percent()} {interval}" if interval else cell.percent()
    return f"{text} / {cell.score_text()}" if scored else text


def to_markdown(table: PaperTable) -> str:
    """A GitHub-flavoured Markdown table: paste into a README or a notebook (with a score, a line
    below says what each cell holds)."""
    head = ["Agent", *table.headers()]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join([":---", *["---:"] * len(table.columns)]) + "|"]
    for label, cells in zip(table.labels, table.cells):
        lines.append("| " + " | ".join([label.replace("|", "\\|"), *(_text(c, table.scored) for c in cells)]) + " |")
    if table.scored:
        lines += ["", f"_{SCORED_NOTE}_"]
    return "\n".join(lines) + "\n"


def to_csv(table: PaperTable) -> str:
    """One row per run: the success rate (percent) per task type; with repeats, each interval's bounds too."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    with_bounds = any(c.interval() for row in table.cells for c in row)
    head = ["agent", "episodes"]
    for column in table.columns:
        head += [column, f"{column}_low", f"{column}_high"] if with_bounds else [column]
        head += [f"{column}_score"] if table.scored else []
    writer.writerow(head)
    for label, n, cells in zip(table.labels, table.episodes, table.cells):
        values: list[str] = [label, str(n)]
        for cell in cells:
            values.append("" if cell.rate is None else cell.percent())
            if with_bounds:
                values += [f"{cell.low * 100:.1f}" if cell.low is not None else "",
                           f"{cell.high * 100:.1f}" if cell.high is not None else ""]
            if table.scored:
                values.append("" if cell.score is None else cell.score_text())
        writer.writerow(values)
    return out.getvalue()


LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                 "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    """Text as LaTeX prints it literally (`plan_execute` -> `plan\\_execute`)."""
    return "".join(LATEX_SPECIAL.get(ch, ch) for ch in text)


def to_latex(table: PaperTable, caption: str = "") -> str:
    """A booktabs `tabular` (needs `\\usepackage{booktabs}`), the best rate (and score) of each column in
    bold (none where every row has the same)."""
    best = [_best([row[index].rate for row in table.cells]) for index in range(len(table.columns))]
    best_score = [_best([row[index].score for row in table.cells]) for index in range(len(table.columns))]
    lines = ["% recode-tui compare --format latex; needs \\usepackage{booktabs}",
             "\\begin{tabular}{l" + "r" * len(table.columns) + "}",
             "\\toprule",
             " & ".join(["Agent", *(latex_escape(h) for h in table.headers())]) + " \\\\",
             "\\midrule"]
    for label, cells in zip(table.labels, table.cells):
        shown = []
        for index, cell in enumerate(cells):
            text = cell.percent()
            if cell.rate is not None and best[index] is not None and cell.rate == best[index]:
                text = f"\\textbf{{{text}}}"
            if cell.interval():
                text += f" {{\\scriptsize {cell.interval()}}}"
            if table.scored:
                score = cell.score_text()
                bold = cell.score is not None and best_score[index] is not None and cell.score == best_score[index]
                text += " / " + (f"\\textbf{{{score}}}" if bold else score)
            shown.append(text)
        lines.append(" & ".join([latex_escape(label), *shown]) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    if table.scored:
        lines.append(f"% {SCORED_NOTE}")
    if caption:
        lines.append(f"% {latex_escape(caption)}")
    return "\n".join(lines) + "\n"


def _best(values: Sequence[float | None]) -> float | None:
    """The highest of a column's values, or None when every row ties (a tie marks nothing)."""
    known = [v for v in values if v is not None]
    return max(known) if len(set(known)) > 1 else None


def render(table: PaperTable, fmt: str) -> str:
    """The table in one of FORMATS; ValueError names the ones there are."""
    if fmt == "markdown":
        return to_markdown(table)
    if fmt == "csv":
        return to_csv(table)
    if fmt == "latex":
        return to_latex(table)
    raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
