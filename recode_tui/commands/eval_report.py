"""`eval`'s output: the per-episode lines, the progress bar, the results and comparison tables, the notes below them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from agent.eval.report import EvalReport
from agent.eval.results import EpisodeResult, EpisodeSpec
from agent.eval.summary import summarize
from agent.eval.failure import group_failures
from agent.eval.repeats import identical_plays
from agent.runtime.safe_text import for_terminal
from recode_tui.commands.fit import Col, Layout, output_console


def failure_lines(report: EvalReport, per_group: int = 5) -> list[str]:
    """Failures grouped by the node whose code went wrong (`agent.eval.culprit`), where each ended beside
    it, each with a command that opens the console on the node that went wrong."""
    groups = group_failures(report.episodes)
    if not groups:
        return []
    wrong = max(len("went wrong in"), *(len(g.label) for g in groups))
    ended = max(len("ended in"), *(len(", ".join(g.ended_in)) for g in groups))
    lines = ["", "Failures, by the node whose code went wrong (else where the run ended):",
             f"  {'went wrong in':<{wrong}}  {'ended in':<{ended}}  failures"]
    profiles = _profiles_flag(report)
    for group in groups:
        label = group.label if group.went_wrong else f"{group.agent}: ?" if group.agent else "?"
        lines.append(f"  {label:<{wrong}}  {', '.join(group.ended_in):<{ended}}  {group.details()}")
        for episode in group.episodes[:per_group]:
            failure = episode.failure or {}
            node = next((part.get("node") for part in (failure.get("went_wrong"), failure.get("deepest_stub"),
                                                        failure.get("ended_at")) if part and part.get("node")), None)
            at = f" --at {node}" if node else ""
            lines.append(f"    {episode.game}: recode-tui tui --resume {episode.journal}{at}{profiles}")
        if len(group.episodes) > per_group:
            lines.append(f"    ... and {len(group.episodes) - per_group} more (report.json lists them)")
    return lines


def _profiles_flag(report: EvalReport) -> str:
    """` --profiles FILE` when the evaluation read its profile from another file than the default one:
    a resume reads a profile from the user's own file, never from the one a journal names."""
    import shlex

    from agent.sessions.model_record import profiles_in_use

    used = report.plan.run.model.profiles
    if not used or used == profiles_in_use(report.plan.run.model.llm, None):
        return ""
    return f" --profiles {shlex.quote(used)}"


def gold_lines(report: EvalReport) -> list[str]:
    """A plan with episodes its own gold path cannot win within their step limit says which (ScienceWorld's paper set)."""
    beyond = report.plan.gold_cannot_win
    if beyond is None:
        return []
    if not beyond:
        return [f"gold paths: every one of the {len(report.plan.games)} episodes' gold paths fits its step limit"]
    listed = ", ".join(f"{game} ({why})" for game, why in beyond.items())
    return [f"gold paths: {len(beyond)} of {len(report.plan.games)} episodes cannot be won by their own gold path "
            f"within the step limit: {listed}"]


@dataclass(frozen=True)
class LineWidths:
    """The per-episode line's column widths: the game's and the task type's (0: no task type column)."""

    game: int = 14
    task_type: int = 8


def line_widths(games: Sequence[EpisodeSpec]) -> LineWidths:
    """Widths that keep every line's columns aligned for these games (ScienceWorld's run to 30 characters).

    Where every game's id starts with its task type (`boil/21`), the type column would say it twice: none.
    """
    if not games:
        return LineWidths()
    game = max(14, *(len(g.id) for g in games))
    if all(g.task_type and g.id.startswith(f"{g.task_type}/") for g in games):
        return LineWidths(game, 0)
    return LineWidths(game, max(8, *(len(g.task_type or "?") for g in games)))


def result_line(result: EpisodeResult, widths: LineWidths = LineWidths()) -> str:
    verdict = "won   " if result.success else ("ERROR " if result.error else "failed")
    tail = "" if result.success else f"  {result.reason[:90]}"
    if result.repeat > 1:
        tail = f"  repeat {result.repeat}{tail}"
    if result.llm_failures:
        tail = f"  LLM failures {result.llm_failures}{tail}"
    if result.cached_calls:
        tail = f"  cached {result.cached_calls}{tail}"
    score = "" if result.score is None else f"score {result.score:>3g}  "
    who = f"{result.agent:<12} " if result.agent else ""
    kind = f"{result.task_type or '?':<{widths.task_type}} " if widths.task_type else ""
    return (f"{verdict} {who}{result.game:<{widths.game}} {kind}{score}steps {result.steps:>3}  "
            f"LLM calls {result.llm_calls:>2}  tokens {result.tokens:>6}  {result.seconds:5.1f}s{tail}")


def _type_order(env: str) -> tuple[str, ...]:
    """The environment's own order of task types (its provider's), for the table's rows."""
    from envs import registry

    return registry.task_type_order(env)


def results_table(report: EvalReport) -> Layout:
    """The one-agent table: a row per task type (and topic), then overall; `fit` splits it to the width."""
    summary = summarize(report.episodes, report.plan.run.env.name, report.plan.repeat)
    status = "" if report.status == "complete" else f" ({report.status})"
    scored = summary["overall"].get("mean_score") is not None  # an env with a score (ScienceWorld)
    cached = bool(summary["overall"].get("cached_calls"))  # a column, so a table never mixes them silently
    repeated = report.plan.repeat > 1
    names = ("episodes", *(("plays",) if repeated else ()), "success", "rate", *(("mean score",) if scored else ()),
             "mean steps",
             "LLM calls/ep", *(("cached calls",) if cached else ()), "LLM s/call", "tokens/ep", "cost/ep", "errors")
    table = Layout(f"{report.plan.run.agent.name} · {report.plan.run.model.llm}: {progress(report)}{status}",
                   [Col("task type", "left", key=True), *(Col(name) for name in names)])
    types = summary["by_task_type"]
    ordered = [t for t in _type_order(report.plan.run.env.name) if t in types]
    ordered += [t for t in types if t not in ordered]

    def row(label: str, s: dict[str, Any], style: str | None = None) -> None:
        score = s.get("mean_score")
        scores = (("-" if score is None else f"{score:.1f}"),) if scored else ()
        table.add_row(label, str(s["episodes"]), *((str(plays_of(s)),) if repeated else ()), str(s["successes"]),
                      rate_cell(s), *scores,
                      f"{s['mean_steps']:.1f}", f"{s['mean_llm_calls']:.1f}", *cached_cell(s, cached),
                      f"{s['mean_llm_seconds']:.2f}",
                      f"{s['mean_tokens']:.0f}",
                      f"${s['mean_cost']:.4f}", str(s["errors"]), style=style)

    for t in ordered:
        row(t, types[t])
    table.add_section()
    topics = summary.get("by_topic") or {}
    for topic in topics:  # ScienceWorld: its paper's 10 topic groups, in its order
        row(f"topic {topic}", topics[topic], style="italic")
    if topics:
        table.add_section()
    row("overall", summary["overall"], style="bold")
    return table


def cached_cell(stats: dict[str, Any], shown: bool) -> tuple[str, ...]:
    """`cached of all` LLM calls of a row, when the table has the column."""
    if not shown:
        return ()
    return (f"{stats.get('cached_calls', 0)} of {round(stats['mean_llm_calls'] * plays_of(stats))}",)


def plays_of(stats: dict[str, Any]) -> int:
    """A row's plays: its episodes times their repeats (`plays`), or its episodes without repeats."""
    return int(stats.get("plays", stats["episodes"]))


def rate_cell(stats: dict[str, Any]) -> str:
    """The success rate as the tables print it; with repeats, its 95 % interval below."""
    rate = f"{stats['success_rate']:.1%}"
    interval = stats.get("success_interval")
    return f"{rate}\n[{interval[0]:.1%}, {interval[1]:.1%}]" if interval else rate


def progress(report: EvalReport) -> str:
    """`12 of 12 episodes`; with repeats, episodes and plays apart (`4 episodes x 3 plays: 12 of 12 plays`)."""
    if report.plan.repeat <= 1:
        return f"{len(report.episodes)} of {report.total} episodes"
    episodes = len(report.plan.games) * len(report.plan.compared)
    return f"{episodes} episodes x {report.plan.repeat} plays: {len(report.episodes)} of {report.total} plays"


def repeat_lines(report: EvalReport) -> list[str]:
    """With --repeat: how the tables' cells were made, and each repeat's own success rate and seed."""
    if report.plan.repeat <= 1:
        return []
    lines = [f"repeats: every episode played {report.plan.repeat} times; a rate is the mean over all plays, "
             "[low, high] its 95% Wilson interval over episodes (each counted once, at its mean over its plays)"]
    same = identical_plays(report.plan.run.model.llm, report.episodes)
    if same:
        lines.append(f"  identical plays ({same}): an episode's {report.plan.repeat} plays are one result "
                     "repeated and add no evidence (the interval counts episodes)")
    for agent_name in report.plan.compared:
        mine = [e for e in report.episodes if (e.agent or report.plan.run.agent.name) == agent_name]
        parts = []
        for number in range(1, report.plan.repeat + 1):
            plays = [e for e in mine if e.repeat == number]
            if not plays:
                continue
            seeds = {e.seed for e in plays}
            temps = {e.temperature for e in plays if e.temperature is not None}
            said = f"seed {plays[0].seed}" if len(seeds) == 1 and plays[0].seed is not None else "no seed"
            said += f", temperature {temps.pop():g}" if len(temps) == 1 else ""
            parts.append(f"#{number} {sum(e.success for e in plays) / len(plays):.1%} ({said})")
        who = f"{agent_name} " if report.plan.multi else ""
        lines.append(f"  {who}success per repeat: " + "; ".join(parts))
    return lines


def comparison_table(report: EvalReport) -> Layout:
    """A comparison's table: per agent, a row per task type and its overall row (the paper's layout)."""
    from agent.eval.summary import summarize_agents

    by_agent = summarize_agents(report.episodes, report.plan.agents, report.plan.run.env.name, report.plan.repeat)
    status = "" if report.status == "complete" else f" ({report.status})"
    scored = any(by_agent[a]["overall"].get("mean_score") is not None for a in by_agent)  # WebShop, ScienceWorld
    cached = any(by_agent[a]["overall"].get("cached_calls") for a in by_agent)
    repeated = report.plan.repeat > 1
    names = ("episodes", *(("plays",) if repeated else ()), "success", "rate", *(("mean score",) if scored else ()),
             "mean steps", "LLM calls", *(("cached calls",) if cached else ()), "input tokens", "output tokens",
             "cost", "LLM s/call", "errors")
    table = Layout(f"{', '.join(report.plan.agents)} · {report.plan.run.model.llm}: {progress(report)}{status}",
                   [Col("agent", "left", key=True), Col("task type", "left", key=True), *(Col(n) for n in names)])

    def row(agent_name: str, label: str, s: dict[str, Any], style: str | None = None) -> None:
        n, score = plays_of(s), s.get("mean_score")
        scores = (("-" if score is None else f"{score:.1f}"),) if scored else ()
        table.add_row(agent_name, label, str(s["episodes"]), *((str(n),) if repeated else ()), str(s["successes"]),
                      rate_cell(s), *scores,
                      f"{s['mean_steps']:.1f}",
                      str(round(s["mean_llm_calls"] * n)), *cached_cell(s, cached), str(round(s["mean_input_tokens"] * n)),
                      str(round(s["mean_output_tokens"] * n)), f"${s['total_cost']:.4f}",
                      f"{s['mean_llm_seconds']:.2f}", str(s["errors"]), style=style)

    order = _type_order(report.plan.run.env.name)
    for index, agent_name in enumerate(report.plan.agents):
        summary = by_agent[agent_name]
        types = summary["by_task_type"]
        for t in [t for t in order if t in types] + [t for t in types if t not in order]:
            row(agent_name, t, types[t])
        row(agent_name, "overall", summary["overall"], style="bold")
        if index < len(report.plan.agents) - 1:
            table.add_section()
    return table


def cache_lines(report: EvalReport) -> list[str]:
    """How many LLM calls the response cache answered (at no cost), so a table never mixes them silently."""
    cached = sum(e.cached_calls for e in report.episodes)
    calls = sum(e.llm_calls for e in report.episodes)
    if report.plan.cache == "off":
        return ["response cache: off (--no-cache); every LLM call went to the model"]
    if not cached:
        return []
    share = f"{cached / calls:.0%}" if calls else "-"
    return [f"response cache: {cached} of {calls} LLM calls ({share}) answered from the cache at no cost; "
            "the cost column counts only the others (--no-cache to call the model for all)"]


def role_lines(report: EvalReport) -> list[str]:
    """Per agent with several LLM roles, each role's calls, tokens and cost (summed over its episodes)."""
    from agent.eval.summary import role_sums

    lines: list[str] = []
    for agent_name in report.plan.compared:
        mine = [e for e in report.episodes if (e.agent or report.plan.run.agent.name) == agent_name]
        for role, s in role_sums(mine).items():
            lines.append(f"{agent_name} {role}: LLM calls {s['llm_calls']}, input tokens {s['input_tokens']}, "
                         f"output tokens {s['output_tokens']}, cost ${s['cost']:.4f}")
    return (["", "Per LLM role:", *("  " + line for line in lines)]) if lines else []


class Display:
    """A rich progress bar on a terminal; else one line per finished episode."""

    def __init__(self, total: int, done: list[EpisodeResult], live: bool, widths: LineWidths = LineWidths()) -> None:
        console = output_console(wide=140)  # a log or a pipe: COLUMNS, else wide enough for the table's headers
        self.console = console
        self.live = live and console.is_terminal
        self.total = total
        self.widths = widths  # the per-episode lines' columns
        self.wins = sum(r.success for r in done)
        self.finished = len(done)
        self.tokens = sum(r.tokens for r in done)
        self.cost = sum(r.cost for r in done)
        self.running: dict[str, tuple[int, float]] = {}
        self.progress: Any = None
        self.task: Any = None

    def __enter__(self) -> "Display":
        if self.live:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)

            self.progress = Progress(
                SpinnerColumn(),
                TextColumn("episodes"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("success {task.fields[wins]}/{task.fields[finished]} ({task.fields[rate]})"),
                TextColumn("tokens {task.fields[tokens]}"),
                TextColumn("${task.fields[cost]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=self.console,
            )
            self.progress.__enter__()
            self.task = self.progress.add_task("eval", total=self.total, completed=self.finished, **self._fields())
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.__exit__(None, None, None)

    def _fields(self) -> dict[str, Any]:
        tokens = self.tokens + sum(t for t, _ in self.running.values())
        cost = self.cost + sum(c for _, c in self.running.values())
        rate = f"{self.wins / self.finished:.0%}" if self.finished else "-"
        return {"wins": self.wins, "finished": self.finished, "rate": rate, "tokens": f"{tokens:,}", "cost": f"{cost:.4f}"}

    def on_event(self, episode_spec: EpisodeSpec, event: Any) -> None:
        from agent.runtime import events as ev

        # a refused answer was paid for too: the running figures count it like an accepted one
        if isinstance(event, (ev.LLMAnswered, ev.LLMRejected)) and self.progress is not None:
            tokens, cost = self.running.get(episode_spec.id, (0, 0.0))
            self.running[episode_spec.id] = (tokens + event.input_tokens + event.output_tokens, cost + event.cost)
            self.progress.update(self.task, **self._fields())

    def on_result(self, result: EpisodeResult) -> None:
        self.running.pop(result.game, None)
        self.finished += 1
        self.wins += result.success
        self.tokens += result.tokens
        self.cost += result.cost
        line = for_terminal(result_line(result, self.widths))  # the reason may quote model or environment text
        if self.progress is not None:
            self.progress.console.print(line, markup=False, highlight=False)
            self.progress.update(self.task, advance=1, **self._fields())
        else:
            self.console.print(line, markup=False, highlight=False)
