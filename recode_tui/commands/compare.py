"""`recode-tui compare A B ...`: what changed between evaluations, printed as tables and lists.

The numbers come from `agent.eval.compare`; this module only lays them out.
Exit codes: 0 compared, 2 the reports cannot be compared (one line says why).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from agent.eval.compare import RELATIVE_METRICS, Comparison, Row, compare_reports, relative_change
from agent.eval.loaded_report import CompareError, LoadedReport, load_report
from agent.eval.paired import p_text
from recode_tui.setup.usage import UsageError
from recode_tui.commands.fit import Col, Layout, output_console, print_layout
from recode_tui.setup.shown import shown



HEADERS = {"score": "mean score"}  # eval's name for it: the reward x 100 on WebShop


def _number(metric: str, value: float | None) -> str:
    if value is None:
        return "-"
    if metric == "success":
        return f"{value:.1%}"
    if metric == "cost":
        return f"${value:.4f}"
    if metric == "time":
        return f"{value:.1f}s"
    if metric == "tokens":
        return f"{value:.0f}"
    if metric == "score":  # eval's "mean score": the reward x 100 (WebShop), the score (ScienceWorld)
        return f"{value:.1f}"
    return f"{value:.1f}"


def _delta(metric: str, value: float | None) -> str:
    if value is None:
        return ""
    if metric == "success":
        return f"{value * 100:+.1f} pt"
    if metric == "cost":  # a change that rounds to nothing is +$0.0000, never -$0.0000
        rounded = round(value, 4)
        return f"{'-' if rounded < 0 else '+'}${abs(rounded):.4f}"
    if metric == "time":
        return f"{value:+.1f}s"
    if metric == "tokens":
        return f"{value:+.0f}"
    if metric == "score":
        return f"{value:+.1f}"
    return f"{value:+.1f}"


def cell(row: Row, metric: str, estimated: tuple[bool, bool] = (False, False)) -> str:
    """`before → after` over the change (and the paired test's p-value, for success and score). Tokens a
    script estimated are marked `≈`; beside a model's count they get no change (it would be no saving)."""
    if metric == "time" and row.timed == 0:
        return "n/a\n(cache replays)"
    marks = [("≈" if guess and metric == "tokens" else "") for guess in estimated]
    change = "" if metric == "tokens" and estimated[0] != estimated[1] else _delta(metric, row.delta(metric))
    text = f"{marks[0]}{_number(metric, row.base.get(metric))} → {marks[1]}{_number(metric, row.other.get(metric))}"
    if metric == "success" and (row.base_interval or row.other_interval):
        text += f"\n{_bounds(row.base_interval)} → {_bounds(row.other_interval)}"
    test = row.test(metric)
    if change and test is not None and row.delta(metric):
        change += f", {p_text(test.p)}"
    return f"{text}\n{change}" if change else text


def _bounds(interval: tuple[float, float] | None) -> str:
    return "-" if interval is None else f"[{interval[0]:.1%}, {interval[1]:.1%}]"


SIGNIFICANT = 0.05


def test_lines(comparison: Comparison) -> list[str]:
    """The paired tests of the overall row, what they count, and what identical plays mean for them."""
    overall = comparison.rows[-1]
    n = overall.episodes
    lines = [f"paired tests over the {n} episodes both runs played (each episode once"
             + (", as won when it won most of its plays)" if max(comparison.repeats) > 1 else ")")]
    test = overall.success_test
    if test is not None:
        lines.append(f"  success: McNemar's exact test: {test.b} won → lost, {test.c} lost → won: "
                     f"{p_text(test.p)} (two-sided)" + _reading(test.p, test.discordant))
    score = overall.score_test
    if score is not None:
        how = "every sign assignment" if score.exact else "20,000 random sign assignments, fixed seed"
        lines.append(f"  mean score: paired sign-flip test over {score.pairs} episodes, mean change "
                     f"{score.mean_difference:+.1f}: {p_text(score.p)} (two-sided, {how})")
    if comparison.identical_plays:
        why = "; ".join(dict.fromkeys(part for reason in comparison.identical for part in reason.split("; ")))
        flipped = ", ".join(f.episode for f in comparison.flips)
        lines.append(f"identical plays ({why}): each episode's plays are one result repeated"
                     + (f": the flip of {flipped} is reproducible, not noise; the p-value says how much "
                        f"{n} episodes tell about others" if flipped else ""))
    return lines


def _reading(p: float, discordant: int) -> str:
    if p < SIGNIFICANT:
        return "; unlikely to be chance"
    needed = next(k for k in range(1, 64) if 2 * 0.5**k < SIGNIFICANT)
    if discordant < needed:
        return (f"; {discordant} flipped episode{'s' if discordant != 1 else ''} cannot reach p < {SIGNIFICANT} "
                f"({needed} flipping the same way would)")
    return "; could be chance"


def deltas_table(comparison: Comparison, type_order: tuple[str, ...]) -> Layout:
    """The per task type table; split to the terminal's width by `fit` (each cell stays whole)."""
    title = "baseline → this run, per episode (change below)"
    if comparison.cross_agent:
        title = f"{comparison.agents[0]} → {comparison.agents[1]}, per episode (change below)"
    table = Layout(title, [Col("task type", "left", key=True), Col("episodes"),
                           *(Col(HEADERS.get(m, m)) for m in comparison.metrics)])
    types = [r for r in comparison.rows if r.task_type != "overall"]
    types.sort(key=lambda r: (type_order.index(r.task_type) if r.task_type in type_order else len(type_order)))
    for row in types:
        table.add_row(row.task_type, str(row.episodes), *[cell(row, m, comparison.estimated) for m in comparison.metrics],
                      end_section=True)
    overall = comparison.rows[-1]
    table.add_row("overall", str(overall.episodes), *[cell(overall, m, comparison.estimated) for m in comparison.metrics],
                  style="bold")
    return table


def _arg(path: str) -> str:
    """A path as a command line takes it (quoted when it has spaces)."""
    import shlex

    return shlex.quote(str(path))


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def describe(comparison: Comparison, base: LoadedReport, other: LoadedReport) -> list[str]:
    """The plain lines around the table: episodes, settings."""
    lines = []
    n = len(comparison.common)
    if comparison.same_episodes:
        lines.append(f"episodes: the same {n} episodes")
    else:
        lines.append(f"episodes: {n} in common (the deltas count only these)")
        def named(ids: list[str]) -> str:
            return ", ".join(f"{i} (unfinished)" if i in comparison.unfinished else i for i in ids)

        if comparison.only_base:
            lines.append(f"  only in the baseline ({len(comparison.only_base)}): {named(comparison.only_base)}")
        if comparison.only_other:
            lines.append(f"  only in this run ({len(comparison.only_other)}): {named(comparison.only_other)}")
    cached = [sum(e.cached_calls for e in r.episodes) for r in (base, other)]
    if any(cached):
        calls = [sum(e.llm_calls for e in r.episodes) for r in (base, other)]
        lines.append(f"response cache: {cached[0]} of {calls[0]} → {cached[1]} of {calls[1]} LLM calls answered "
                     "from the cache (no cost; the cost column counts only the others)")
    if comparison.timed is not None and "time" in comparison.metrics:
        n = len(comparison.common)
        lines.append("time: n/a, every episode had cache replays, which take no model time, on a side"
                     if comparison.time_unknown else
                     f"time: over the {comparison.timed} of {n} episodes with no cache replay on either side "
                     "(a replay takes no model time)")
    estimated = comparison.estimated
    if any(estimated) and not all(estimated) and "tokens" in comparison.metrics:
        side = "the baseline's" if estimated[0] else "this run's"
        lines.append(f"tokens: {side} are a script's estimate (a quarter of the characters, marked ≈), not a "
                     "model's count: their change is no saving or cost")
    repeats = [r.report.plan.repeat for r in (base, other)]
    if repeats != [1, 1]:
        lines.append(f"repeats: each episode played {repeats[0]} → {repeats[1]} times; numbers are means over the plays")
    if comparison.differences:
        lines.append("settings differ:")
        for name, a, b in comparison.differences:
            lines.append(f"  {name}: {_shown(a)} → {_shown(b)}")
    else:
        theirs = set(other.settings().known())
        known = [k for k in base.settings().known() if k in theirs]
        lines.append(f"settings: the same ({', '.join(known)})")
    if comparison.prompt_files:
        lines.append(f"prompt files differ ({len(comparison.prompt_files)}): "
                     + ", ".join(f"{c.file} ({c.change})" for c in comparison.prompt_files)
                     + f"; recode-tui diff {_arg(base.label)} {_arg(other.label)} shows the lines")
    return lines


def agent_lines(comparison: Comparison) -> list[str]:
    """For two agents on the same episodes: say it is a cross-agent comparison, and the overall
    cost, tokens, calls, steps and time of the other agent relative to the baseline's."""
    if not comparison.cross_agent:
        return []
    base, other = comparison.agents
    lines = [f"agents: {base} → {other}: a cross-agent comparison of the same episodes "
             "(each agent has its own prompts, so their prompt sets differ by design)"]
    overall = comparison.rows[-1]
    parts = []
    for metric in RELATIVE_METRICS:
        if metric not in comparison.metrics:
            continue
        change = relative_change(overall, metric)
        parts.append(f"{metric} {change:+.1f} %" if change is not None else f"{metric} n/a")
    if parts:
        lines.append(f"{other} relative to {base} (overall, per episode): " + ", ".join(parts))
    return lines


def flip_lines(comparison: Comparison) -> list[str]:
    lines = []
    for title, flips in (("won → lost", comparison.won_to_lost), ("lost → won", comparison.lost_to_won)):
        lines.append(f"{title} ({len(flips)}){':' if flips else ''}")
        for flip in flips:
            why = f"  {flip.reason[:100]}" if flip.reason else ""
            lines.append(f"  {flip.episode:<14} {flip.task_type:<8}{why}")
            lines.append(f"    baseline: {flip.base_journal or '(no journal)'}")
            lines.append(f"    this run: {flip.other_journal or '(no journal)'}")
            if flip.base_journal and flip.other_journal:
                lines.append(f"    where they part: recode-tui diff {flip.base_journal} {flip.other_journal}")
    shown = next((f for f in comparison.flips if f.base_journal and f.other_journal), None)
    if shown is not None:
        lines.append(f"open one in the console: recode-tui tui --resume {_arg(shown.other_journal)}; both side by "
                     f"side: recode-tui tui --diff {_arg(shown.base_journal)} {_arg(shown.other_journal)}")
    return lines


def heading(report: LoadedReport) -> str:
    """A report's path, LLM, and how far it got when it did not complete."""
    done, planned = len(report.episodes), len(report.planned)
    status = report.report.status or "complete"
    state = "" if status == "complete" else f"; {status}: {done} of {planned or '?'} episodes"
    settings = report.settings()
    agent_name = settings.get("agent.name")
    return f"{report.label}  ({f'{agent_name}, ' if agent_name else ''}{settings.get('model.llm')}{state})"


def _with_finished_episodes(reports: list[LoadedReport]) -> list[LoadedReport]:
    """The reports (or agents of a several-agent evaluation) that finished an episode, the others named.

    Two interrupted evaluations of several agents often leave one agent with nothing finished: it is left
    out with a note, and the rest are compared; with fewer than two left, the usual refusal says why.
    """
    kept = [report for report in reports if report.results()]
    if len(kept) < 2 or len(kept) == len(reports):
        return reports
    for report in reports:
        if not report.results():
            print(f"note: {report.label or 'a report'} has no finished episode yet; left out of the comparison",
                  file=sys.stderr)
    if not reports[0].results():
        print(f"note: the baseline is {kept[0].label or 'the first report with episodes'}", file=sys.stderr)
    return kept


def run_compare(args: argparse.Namespace) -> int:
    try:
        reports = _with_finished_episodes([part for path in args.reports for part in load_report(path).by_agent()])
        if len(reports) < 2:
            raise CompareError("compare needs two reports or more (the first is the baseline), "
                               "or one evaluation of several agents (eval --agent a,b,...)")
        comparisons = compare_reports(reports)
    except CompareError as exc:
        raise UsageError(str(exc)) from None
    if args.plot:
        _save_plot(args.plot, comparisons, reports)
    if args.json and args.table_format:
        raise UsageError("--json and --format each print the table; give one of them")
    if args.json:
        return _print_json(args.output, comparisons, reports)
    if args.table_format:
        return _print_paper_table(args.table_format, args.output, comparisons, reports)
    if args.output:
        raise UsageError("-o/--output writes a --format table or --json; add --format markdown, csv or latex, or --json")
    console = output_console(wide=130)  # a log or a pipe: COLUMNS, else wide enough for the whole table

    def say(line: str) -> None:  # report labels, agents, episodes and reasons are data: shown, never sent
        console.print(shown(line, newlines=True), highlight=False, soft_wrap=True)

    say(f"baseline: {heading(reports[0])}")
    for comparison, other in zip(comparisons, reports[1:]):
        say("")
        say(f"compared: {heading(other)}")
        for line in [*describe(comparison, reports[0], other), *agent_lines(comparison)]:
            say(line)
        print_layout(console, deltas_table(comparison, _type_order(reports)))
        for line in [*test_lines(comparison), *flip_lines(comparison)]:
            say(line)
    if args.chart:
        from agent.eval.paper_table import paper_table
        from recode_tui.commands.charts import ChartError, terminal_chart

        try:
            chart = terminal_chart(paper_table(comparisons, reports, _type_order(reports)),
                                   width=min(console.width, 120), color=console.is_terminal)
        except ChartError as exc:
            raise UsageError(str(exc)) from None
        say("")
        print(chart, flush=True)
    if args.plot:
        say(f"plot: {args.plot}")
    return 0


def _save_plot(path: str, comparisons: list[Comparison], reports: list[LoadedReport]) -> None:
    from agent.eval.paper_table import paper_table
    from recode_tui.commands.charts import ChartError, save_plot

    try:
        save_plot(paper_table(comparisons, reports, _type_order(reports)), path)
    except ChartError as exc:
        raise UsageError(str(exc)) from None


def _type_order(reports: list[LoadedReport]) -> tuple[str, ...]:
    """The environment's own task-type order (its provider's), for the table's columns."""
    from envs import registry

    return registry.task_type_order(reports[0].settings().get("env.name") or None)


def _print_json(output: str | None, comparisons: list[Comparison], reports: list[LoadedReport]) -> int:
    """`--json`: every comparison and the paper table as recode.compare.v1, on standard output or in `-o FILE`."""
    import json

    from agent.eval.compare_document import compare_document
    from agent.eval.paper_table import paper_table

    document = compare_document(comparisons, paper_table(comparisons, reports, _type_order(reports)))
    return _write(json.dumps(document, indent=1, ensure_ascii=False) + "\n", output, "json")


def _print_paper_table(table_format: str, output: str | None, comparisons: list[Comparison],
                       reports: list[LoadedReport]) -> int:
    """`--format`: the paper's table alone, on standard output or in `-o FILE`."""
    from agent.eval.paper_table import paper_table, render

    text = render(paper_table(comparisons, reports, _type_order(reports)), table_format)
    return _write(text, output, f"{table_format} table")


def _write(text: str, output: str | None, what: str) -> int:
    from pathlib import Path

    if output:
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {output}: {exc.strerror}; pick another -o path") from None
        print(f"wrote {what}: {output}")
    else:  # to a file or a pipe as made; on a terminal a report's labels show their controls escaped, as export does
        from agent.runtime.safe_text import for_terminal

        print(for_terminal(text) if sys.stdout.isatty() else text, end="")
    return 0
