"""`recode-tui eval`: many episodes at once, a progress bar, a results table.

The batch runner itself is `agent.eval.batch` (no UI); this module chooses the
games, builds the LLMs, shows progress with rich and prints the table.

Exit codes: 0 the evaluation completed (whatever the success rate), 1 it was
aborted (the LLM went away), 2 bad usage, 130 interrupted (Ctrl-C). In every
case but bad usage the report holds every finished episode and
`--resume REPORT` carries on.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

from agent.eval.batch import (
    REPORT_FILE,
    EpisodeResult,
    EvalAborted,
    EvalPlan,
    EvalReport,
    Evaluation,
    GameSpec,
    summarize,
)
from agent.eval.failure import group_failures
from agent.runtime.safe_text import for_terminal
from envs.protocols import GoldActions, GoldLimits, PresetSplits, StepLimits
from recode_tui.commands.cache_options import cache_settings
from recode_tui.commands.factory import (UsageError, check_gold, check_llm_roles, load_prompt_set, preset_env,
                                        run_settings)
from recode_tui.commands.fit import Col, Layout, output_console, print_layout

TYPE_ORDER = ("put", "clean", "heat", "cool", "examine", "puttwo")


# ------------------------------------------------------------------ choosing
def _spread(games: list[Any], n: int) -> list[Any]:
    """The first n games taking one of each task type in turn."""
    by_type: dict[str, list[Any]] = {}
    for game in games:
        by_type.setdefault(game.task_type or "?", []).append(game)
    order = [t for t in TYPE_ORDER if t in by_type] + [t for t in by_type if t not in TYPE_ORDER]
    chosen: list[Any] = []
    while len(chosen) < n and any(by_type.values()):
        for t in order:
            if by_type[t] and len(chosen) < n:
                chosen.append(by_type[t].pop(0))
    return chosen


def select_games(
    task_types: str | None, games: str | None, split: str | None, env: str | None = None, per_task: int | None = None
) -> list[GameSpec]:
    """The episodes of an evaluation, through the environment's provider (see envs.registry).

    No `--split`: the environment's default list (ALFWorld's bundled games,
    ScienceWorld's test variations). `--games N` spreads N over the task types;
    `--per-task N` takes the first N of each task type.
    """
    from envs import registry
    from envs.base import EnvError

    name = env or registry.default_env()
    types = [t.strip() for t in task_types.split(",") if t.strip()] if task_types else None
    described = f" with task types {task_types}" if types else ""
    try:
        provider = registry.provider(name)
        if games is not None and not games.strip().lstrip("-").isdigit():
            wanted = [g.strip() for g in games.split(",") if g.strip()]
            found = [registry.episode(g, name) for g in wanted]
            found = [e for e in found if types is None or (e.task_type or "").lower() in {t.lower() for t in types}]
            described += f" among {games}"
        else:
            found = provider.episodes(split, types)
            if split:
                described += f" in split {split}"
            if per_task is not None:
                if per_task < 1:
                    raise UsageError("--per-task must be 1 or more")
                taken: dict[str, int] = {}
                chosen = []
                for episode in found:
                    kind = episode.task_type or "?"
                    if taken.get(kind, 0) < per_task:
                        taken[kind] = taken.get(kind, 0) + 1
                        chosen.append(episode)
                found = chosen
            if games is not None:
                n = int(games)
                if n < 1:
                    raise UsageError("--games must be 1 or more (or a comma-separated list of game ids)")
                found = _spread(found, n)
    except EnvError as exc:
        raise UsageError(str(exc)) from None
    if not found:
        raise UsageError(f"no games match the filter{described}; see `recode-tui games list --env {name}`")
    return [GameSpec(e.id, e.task_type) for e in found]


def _journal_index(folder: str) -> dict[str, Path]:
    """Game id -> the newest journal of that game under `folder` (a previous eval's folder works)."""
    from agent.sessions.journal import JOURNAL_FILE, JournalError, read_journal

    root = Path(folder)
    if not root.is_dir():
        raise UsageError(f"journal:{folder} is not a folder; give a folder of session journals or an eval's folder")
    found: dict[str, tuple[float, Path]] = {}
    for file in sorted(root.rglob(JOURNAL_FILE)):
        try:
            header = read_journal(file.parent).header
        except JournalError:
            continue
        created = float(header.get("created", 0.0))
        keys = {str(header.get("game", "")), str(header.get("episode") or "")}
        if header.get("game_path"):
            keys.add(str(Path(header["game_path"]).resolve()))
        if header.get("agent"):  # a comparison replays each agent's own journal (`agent:game`)
            keys |= {f"{header['agent']}:{key}" for key in keys if key}
        for key in keys:
            if key and (key not in found or found[key][0] <= created):
                found[key] = (created, file.parent)
    index = {key: path for key, (_, path) in found.items()}
    index.update(_report_journals(root))
    return index


def _report_journals(root: Path) -> dict[str, Path]:
    """An eval folder's own journals, as its report names them: the episodes it played, never a
    later fork or copy that happens to sit beside them and be newer."""
    try:
        report = json.loads((root / REPORT_FILE).read_text(encoding="utf-8"))
        episodes = report.get("episodes", [])
    except (OSError, ValueError, AttributeError):
        return {}
    found: dict[str, Path] = {}
    for episode in episodes if isinstance(episodes, list) else []:
        journal = Path(str(episode.get("journal") or ""))
        if episode.get("game") and journal.name and (journal / "journal.jsonl").is_file():
            found[str(episode["game"])] = journal
            if episode.get("agent"):
                found[f"{episode['agent']}:{episode['game']}"] = journal
    return found


def _journal_of(index: dict[str, Path], game: GameSpec) -> Path | None:
    """The journal of a game in an index (by id, or by file for ALFWorld games and old reports)."""
    from envs import registry
    from envs.base import EnvError

    if game.id in index:
        return index[game.id]
    paths = [game.path] if game.path else []
    try:
        paths.append(registry.header_fields(game.id).get("game_path", ""))
    except EnvError:
        pass
    for path in filter(None, paths):
        if str(Path(path).resolve()) in index:
            return index[str(Path(path).resolve())]
    return None


def llm_factory(
    spec: str, profiles: str | None, games: list[GameSpec], env: str | None = None, agents: list[str] | None = None
) -> tuple[Callable[..., Any], bool]:
    """A function giving each episode its LLM, and whether an LLM error should abort the whole evaluation."""
    from agent.sessions.journal import JournalError
    from mockllm.journal import journal_llm
    from recode_tui.commands.factory import make_llm

    if spec == "human":
        raise UsageError("eval needs a model or a script (profile:NAME, scripted:FILE, demo, journal:DIR); "
                         "to answer yourself use `recode-tui run --llm human`")
    if spec.startswith("journal:"):
        index = _journal_index(spec.split(":", 1)[1])
        if not any(_journal_of(index, g) for g in games):
            raise UsageError(f"no journal in {spec.split(':', 1)[1]} is of a selected game; "
                             "point journal: at a previous eval's folder or a sessions folder")

        for game in games:  # say which recording answers each episode
            folder = _journal_of(index, game)
            print(f"{game.id}: answers from {folder if folder is not None else '(no journal)'}", flush=True)

        def from_journal(game: GameSpec, agent: str | None = None) -> Any:
            folder = index.get(f"{agent}:{game.id}") if agent else None  # this agent's, in a comparison
            folder = folder or _journal_of(index, game)
            if folder is None:
                raise JournalError(f"no journal of game {game.id} in {spec.split(':', 1)[1]}")
            return journal_llm(folder)

        return from_journal, False
    if spec == "gold":
        from envs import registry
        from envs.base import EnvError

        name = env or registry.default_env()
        try:
            has_gold = isinstance(registry.provider(name), GoldActions)
        except EnvError as exc:
            raise UsageError(str(exc)) from None
        if not has_gold:
            raise UsageError(f"--llm gold: the {name} environment has no gold paths; use demo, scripted:FILE or profile:NAME")
        sole = agents[0] if agents and len(agents) == 1 else None
        for agent in agents or (None,):  # each agent says whether it can play a known solution
            check_gold(agent)
        return (lambda game, agent=None: make_llm(spec, profiles, registry.qualify(game.id, name),
                                                  agent=agent or sole)), False
    shared = None
    first = None
    if spec == "demo" and env and games:  # a demo is checked against the environment it will play
        from envs import registry

        first = registry.qualify(games[0].id, env)
    for agent in agents or (None,):  # checks the spec (and each agent's demo); raises UsageError with a one-line reason
        shared = make_llm(spec, profiles, first, agent=agent)
    if spec.startswith("profile:"):
        return (lambda game, agent=None: shared), True
    # a script keeps per-episode state (`once`); `demo` is each agent's own script. One agent (`--agent
    # react`) is asked for without its name (Evaluation passes it in comparisons only): it is the default.
    only = agents[0] if agents and len(agents) == 1 else None
    if spec == "demo" and env:  # an environment's own demo (WebShop's) is chosen by the episode
        from envs import registry

        return (lambda game, agent=None: make_llm(spec, profiles, registry.qualify(game.id, env),
                                                  agent=agent or only)), False
    return (lambda game, agent=None: make_llm(spec, profiles, agent=agent or only)), False


# ------------------------------------------------------------------ showing
def failure_lines(report: EvalReport, per_group: int = 5) -> list[str]:
    """Failures grouped by where they ended, each with a command that opens it in the console."""
    groups = group_failures(report.episodes)
    if not groups:
        return []
    lines = ["", "Failures, by the stub where they ended:"]
    for group in groups:
        lines.append(f"  {group.line()}")
        for episode in group.episodes[:per_group]:
            ended = (episode.failure or {}).get("ended_at") or {}
            deepest = (episode.failure or {}).get("deepest_stub") or {}
            node = deepest.get("node") or ended.get("node")
            at = f" --at {node}" if node else ""
            lines.append(f"    {episode.game}: recode-tui tui --resume {episode.journal}{at}")
        if len(group.episodes) > per_group:
            lines.append(f"    ... and {len(group.episodes) - per_group} more (report.json lists them)")
    return lines


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


def result_line(result: EpisodeResult) -> str:
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
    return (f"{verdict} {who}{result.game:<14} {result.task_type or '?':<8} {score}steps {result.steps:>3}  "
            f"LLM calls {result.llm_calls:>2}  tokens {result.tokens:>6}  {result.seconds:5.1f}s{tail}")


def _type_order(env: str) -> tuple[str, ...]:
    """The environment's own order of task types (ALFWorld: put, clean, heat, ...), for the table's rows."""
    from envs import registry
    from envs.base import EnvError

    try:
        return tuple(registry.provider(env).task_types)
    except EnvError:
        return TYPE_ORDER


def results_table(report: EvalReport) -> Layout:
    """The one-agent table: a row per task type (and topic), then overall; `fit` splits it to the width."""
    summary = summarize(report.episodes, report.plan.env, report.plan.repeat)
    status = "" if report.status == "complete" else f" ({report.status})"
    scored = summary["overall"].get("mean_score") is not None  # an env with a score (ScienceWorld)
    cached = bool(summary["overall"].get("cached_calls"))  # a column, so a table never mixes them silently
    names = ("episodes", "success", "rate", *(("mean score",) if scored else ()), "mean steps",
             "LLM calls/ep", *(("cached calls",) if cached else ()), "LLM s/call", "tokens/ep", "cost/ep", "errors")
    table = Layout(f"{report.plan.agent} · {report.plan.llm}: {len(report.episodes)} of "
                   f"{report.total} episodes{status}",
                   [Col("task type", "left", key=True), *(Col(name) for name in names)])
    types = summary["by_task_type"]
    ordered = [t for t in _type_order(report.plan.env) if t in types]
    ordered += [t for t in types if t not in ordered]

    def row(label: str, s: dict[str, Any], style: str | None = None) -> None:
        score = s.get("mean_score")
        scores = (("-" if score is None else f"{score:.1f}"),) if scored else ()
        table.add_row(label, str(s["episodes"]), str(s["successes"]), rate_cell(s), *scores,
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
    return (f"{stats.get('cached_calls', 0)} of {round(stats['mean_llm_calls'] * stats['episodes'])}",)


def rate_cell(stats: dict[str, Any]) -> str:
    """The success rate as the tables print it; with repeats, its 95 % interval below."""
    rate = f"{stats['success_rate']:.1%}"
    interval = stats.get("success_interval")
    return f"{rate}\n[{interval[0]:.1%}, {interval[1]:.1%}]" if interval else rate


def repeat_lines(report: EvalReport) -> list[str]:
    """With --repeat: how the tables' cells were made, and each repeat's own success rate and seed."""
    if report.plan.repeat <= 1:
        return []
    lines = [f"repeats: every episode played {report.plan.repeat} times; a rate is the mean over all plays, "
             "[low, high] its 95% Wilson interval"]
    for agent in report.plan.compared:
        mine = [e for e in report.episodes if (e.agent or report.plan.agent) == agent]
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
        who = f"{agent} " if report.plan.multi else ""
        lines.append(f"  {who}success per repeat: " + "; ".join(parts))
    return lines


def comparison_table(report: EvalReport) -> Layout:
    """A comparison's table: per agent, a row per task type and its overall row (the paper's layout)."""
    from agent.eval.batch import summarize_agents

    by_agent = summarize_agents(report.episodes, report.plan.agents, report.plan.env, report.plan.repeat)
    status = "" if report.status == "complete" else f" ({report.status})"
    scored = any(by_agent[a]["overall"].get("mean_score") is not None for a in by_agent)  # WebShop, ScienceWorld
    cached = any(by_agent[a]["overall"].get("cached_calls") for a in by_agent)
    names = ("episodes", "success", "rate", *(("mean score",) if scored else ()),
             "mean steps", "LLM calls", *(("cached calls",) if cached else ()), "input tokens", "output tokens",
             "cost", "LLM s/call", "errors")
    table = Layout(f"{', '.join(report.plan.agents)} · {report.plan.llm}: {len(report.episodes)} of "
                   f"{report.total} episodes{status}",
                   [Col("agent", "left", key=True), Col("task type", "left", key=True), *(Col(n) for n in names)])

    def row(agent: str, label: str, s: dict[str, Any], style: str | None = None) -> None:
        n, score = s["episodes"], s.get("mean_score")
        scores = (("-" if score is None else f"{score:.1f}"),) if scored else ()
        table.add_row(agent, label, str(n), str(s["successes"]), rate_cell(s), *scores,
                      f"{s['mean_steps']:.1f}",
                      str(round(s["mean_llm_calls"] * n)), *cached_cell(s, cached), str(round(s["mean_input_tokens"] * n)),
                      str(round(s["mean_output_tokens"] * n)), f"${s['total_cost']:.4f}",
                      f"{s['mean_llm_seconds']:.2f}", str(s["errors"]), style=style)

    order = _type_order(report.plan.env)
    for index, agent in enumerate(report.plan.agents):
        summary = by_agent[agent]
        types = summary["by_task_type"]
        for t in [t for t in order if t in types] + [t for t in types if t not in order]:
            row(agent, t, types[t])
        row(agent, "overall", summary["overall"], style="bold")
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
    from agent.eval.batch import role_sums

    lines: list[str] = []
    for agent in report.plan.compared:
        mine = [e for e in report.episodes if (e.agent or report.plan.agent) == agent]
        for role, s in role_sums(mine).items():
            lines.append(f"{agent} {role}: LLM calls {s['llm_calls']}, input tokens {s['input_tokens']}, "
                         f"output tokens {s['output_tokens']}, cost ${s['cost']:.4f}")
    return (["", "Per LLM role:", *("  " + line for line in lines)]) if lines else []


class Display:
    """A rich progress bar on a terminal; else one line per finished episode."""

    def __init__(self, total: int, done: list[EpisodeResult], live: bool) -> None:
        console = output_console(wide=140)  # a log or a pipe: COLUMNS, else wide enough for the table's headers
        self.console = console
        self.live = live and console.is_terminal
        self.total = total
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

    def on_event(self, game: GameSpec, event: Any) -> None:
        from agent.runtime import events as ev

        if isinstance(event, ev.ExpansionReceived) and self.progress is not None:
            tokens, cost = self.running.get(game.id, (0, 0.0))
            self.running[game.id] = (tokens + event.input_tokens + event.output_tokens, cost + event.cost)
            self.progress.update(self.task, **self._fields())

    def on_result(self, result: EpisodeResult) -> None:
        self.running.pop(result.game, None)
        self.finished += 1
        self.wins += result.success
        self.tokens += result.tokens
        self.cost += result.cost
        line = for_terminal(result_line(result))  # the reason may quote model or environment text
        if self.progress is not None:
            self.progress.console.print(line, markup=False, highlight=False)
            self.progress.update(self.task, advance=1, **self._fields())
        else:
            self.console.print(line, markup=False, highlight=False)


# ------------------------------------------------------------------ running
def _report_path(value: str) -> Path:
    path = Path(value)
    return path / REPORT_FILE if path.is_dir() else path


def _new_report(args: argparse.Namespace) -> tuple[EvalReport, Path]:
    from agent.sessions.journal import sessions_dir_from
    from envs.registry import default_env, provider

    if args.llm is None:
        raise UsageError("eval needs --llm profile:NAME, scripted:FILE, demo or journal:DIR")
    names = _agent_names(args.agent)
    if len(names) > 1 and args.prompts:
        raise UsageError("--prompts is one agent's prompt folder; compare several agents with their own prompts "
                         "(drop --prompts) or evaluate one agent at a time")
    options_by_agent = _options_by_agent(names, args.agent_option) if len(names) > 1 else {}
    settings = run_settings(argparse.Namespace(**{**vars(args), "agent": names[0],
                                                  "agent_option": None if len(names) > 1 else args.agent_option}))
    for name in names:
        check_llm_roles(args.llm, name)  # a routed role an agent lacks: one line, before any episode
    runner = _runner_settings(args.trusted, args.node_timeout if args.node_timeout is not None else 5.0)
    if settings.prompts is not None:
        load_prompt_set(settings.prompts, settings.agent)  # refuses a folder that is not a prompt set
    args.env = preset_env(args.env, settings.preset)  # `--preset paper --env sciworld`: the reference's episodes
    split = args.split
    if split is None:  # a preset may name an environment's own episode set (WebShop's `paper`: the reference's 200)
        from envs.base import EnvError

        try:
            source = provider(args.env or default_env())
        except EnvError as exc:
            raise UsageError(str(exc)) from None
        split = source.preset_split(settings.preset) if isinstance(source, PresetSplits) else None
    games = select_games(args.task_types, args.games, split, args.env, args.per_task)
    env = args.env or default_env()
    source = provider(env)
    unwinnable = source.gold_cannot_win if isinstance(source, GoldLimits) else None
    own_limits = args.max_steps is None and isinstance(source, StepLimits)  # per-task limits (ScienceWorld)
    plan = EvalPlan(
        llm=args.llm,
        games=games,
        env=env,
        concurrency=args.concurrency or 4,
        max_steps=None if own_limits else settings.max_steps if settings.max_steps is not None
        else source.default_max_steps,
        limits=asdict(settings.limits),
        prompts=str(Path(settings.prompts).resolve()) if settings.prompts else None,
        selection={"task_types": args.task_types, "games": args.games, "split": split, "per_task": args.per_task},
        preset=settings.preset,
        trusted=runner.trusted,
        node_timeout=runner.node_timeout,
        profiles=_profiles_file(args.llm, args.profiles),
        agent=settings.agent,
        agent_options=settings.agent_options,
        agents=names if len(names) > 1 else [],
        options_by_agent=options_by_agent,
        gold_cannot_win=(unwinnable([g.id for g in games])
                         if unwinnable is not None and args.max_steps is None else None),
        **cache_settings(args),
        repeat=args.repeat or 1,
    )
    if args.out:
        folder = Path(args.out)
        if (folder / REPORT_FILE).exists():
            raise UsageError(f"{folder} already holds an evaluation; continue it with --resume {folder} or pick another --out")
    else:
        slug = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in args.llm.split("/")[-1])[:40]
        folder = sessions_dir_from(args.sessions) / "evals" / f"{time.strftime('%Y%m%d-%H%M%S')}-{slug}"
    return EvalReport(plan), folder


def _agent_names(value: str | None) -> list[str]:
    """`--agent recode,react,codeact`: the agents to compare, in the table's order (one name: one agent)."""
    from agent import agents

    names = [n.strip() for n in (value or agents.DEFAULT_AGENT).split(",") if n.strip()]
    if not names:
        raise UsageError("--agent needs a name, or several separated by commas (e.g. recode,react,codeact)")
    for name in names:
        try:
            agents.agent_class(name)
        except agents.UnknownAgent as exc:
            raise UsageError(str(exc)) from None
    if len(set(names)) != len(names):
        raise UsageError(f"--agent {value}: an agent is named twice")
    return names


def _options_by_agent(names: list[str], pairs: list[str] | None) -> dict[str, dict[str, Any]]:
    """Each compared agent gets the `--agent-option`s it has; an option none of them has is refused."""
    from agent import agents

    out: dict[str, dict[str, Any]] = {name: {} for name in names}
    for pair in pairs or []:
        taken = False
        for name in names:
            try:
                out[name].update(agents.parse_options([pair], name))
                taken = True
            except ValueError as exc:
                if "has no such option" not in str(exc):
                    raise UsageError(str(exc)) from None
        if not taken:
            raise UsageError(f"--agent-option {pair}: none of {', '.join(names)} has this option")
    return out


def _profiles_file(spec: str, explicit: str | None) -> str | None:
    """The profiles file (absolute) a profile:NAME is read from, kept in the plan so --resume needs no --profiles."""
    from agent.sessions.session import profiles_in_use

    return profiles_in_use(spec, explicit)


def _resumed_report(args: argparse.Namespace) -> tuple[EvalReport, Path]:
    path = _report_path(args.resume)
    try:
        report = EvalReport.read(path)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.concurrency:
        report.plan.concurrency = args.concurrency
    # Trust is never taken from a file: the remaining episodes run with the checks unless --trusted again.
    if report.plan.trusted and not args.trusted:
        print("note: this evaluation was started with --trusted; the remaining episodes run with the "
              "sandbox's checks (pass --trusted to run them without)", file=sys.stderr)
    for key, value in cache_settings(args).items():  # a resume may turn the cache on or off, or bound it anew
        setattr(report.plan, key, value)
    if args.repeat is not None:  # more repeats of a finished evaluation: only the new plays run
        if args.repeat < report.plan.repeat:
            raise UsageError(f"--repeat {args.repeat}: this evaluation already plays each episode "
                             f"{report.plan.repeat} times; give {report.plan.repeat} or more")
        report.plan.repeat = args.repeat
    timeout = args.node_timeout if args.node_timeout is not None else report.plan.node_timeout
    runner = _runner_settings(args.trusted, timeout)
    report.plan.trusted, report.plan.node_timeout = runner.trusted, runner.node_timeout
    if args.profiles:  # another profiles file given now: it is the one the rest of the run reads
        report.plan.profiles = _profiles_file(report.plan.llm, args.profiles) or report.plan.profiles
    elif report.plan.profiles and not Path(report.plan.profiles).is_file():
        raise UsageError(f"the evaluation's profiles file {report.plan.profiles} is gone; pass --profiles FILE")
    return report, path.parent


def _runner_settings(trusted: bool, node_timeout: float) -> Any:
    from agent.runtime.runners import RunnerSettings

    try:
        return RunnerSettings(trusted=trusted, node_timeout=node_timeout)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def run_eval(args: argparse.Namespace) -> int:
    """The `eval` command (synchronous: it owns the event loop so Ctrl-C can be reported)."""

    if args.concurrency is not None and args.concurrency < 1:
        raise UsageError("-c/--concurrency must be 1 or more")
    if args.repeat is not None and args.repeat < 1:
        raise UsageError("--repeat must be 1 or more (the times each episode is played)")
    report, folder = _resumed_report(args) if args.resume else _new_report(args)
    profiles = args.profiles or report.plan.profiles  # a resume reads the file the evaluation started with
    llm_for, abort_on_llm_error = llm_factory(report.plan.llm, profiles, report.remaining or report.plan.games,
                                              report.plan.env, report.plan.compared)
    ray_address = getattr(args, "ray", None)
    if ray_address is not None:
        from recode_tui.commands.ray_eval import start_cluster

        cpus = start_cluster(ray_address)
        if not args.concurrency:
            report.plan.concurrency = cpus
    try:
        return _evaluate(args, report, folder, profiles, llm_for, abort_on_llm_error, ray_address)
    finally:
        if ray_address is not None:
            from recode_tui.commands.ray_eval import stop_cluster

            stop_cluster()


def _evaluate(args: argparse.Namespace, report: EvalReport, folder: Path, profiles: str | None, llm_for: Any,
              abort_on_llm_error: bool, ray_address: str | None) -> int:
    """Run the plan (here, or as Ray tasks), then print the table, the failures and where things are."""
    from envs.remote import EnvPool

    earlier = list(report.concurrency_used)
    display = Display(report.total, report.episodes, live=not args.no_progress)
    if ray_address is not None:
        from recode_tui.commands.ray_eval import RayEvaluation

        evaluation: Evaluation = RayEvaluation(report, folder, llm_for, profiles=profiles, llm_factory=llm_factory,
                                               abort_on_llm_error=abort_on_llm_error,
                                               on_event=display.on_event, on_result=display.on_result)
    else:
        evaluation = Evaluation(
            report,
            folder,
            llm_for,
            pool_factory=lambda size: EnvPool(size, warm_env=report.plan.env),
            abort_on_llm_error=abort_on_llm_error,
            on_event=display.on_event,
            on_result=display.on_result,
        )
    out = display.console
    for line in gold_lines(report):
        out.print(line, markup=False, highlight=False, soft_wrap=True)
    remaining = len(report.pending)
    before = f" (earlier runs: {', '.join(map(str, earlier))} at a time)" if earlier else ""
    on_ray = f" as Ray tasks ({ray_address})" if ray_address is not None else ""
    out.print(f"evaluating {remaining} of {report.total} episodes: {', '.join(report.plan.compared)} with {report.plan.llm}, "
              f"{max(1, min(report.plan.concurrency, max(remaining, 1)))} at a time{on_ray}{before}; "
              f"report: {folder / REPORT_FILE}",
              markup=False, highlight=False, soft_wrap=True)

    async def go() -> None:
        with display:
            await evaluation.run()

    code = 0
    message = ""
    try:
        asyncio.run(go())
    except KeyboardInterrupt:
        code = 130
        message = "interrupted"
    except EvalAborted as exc:
        code = 1
        message = f"evaluation stopped: {exc}"
    if report.plan.multi and not out.is_terminal and not os.environ.get("COLUMNS"):  # room for the agent column too
        out.width = max(out.width, 170)
    print_layout(out, comparison_table(report) if report.plan.multi else results_table(report))
    for line in [*repeat_lines(report), *cache_lines(report), *role_lines(report)]:
        out.print(for_terminal(line), markup=False, highlight=False, soft_wrap=True)
    for line in failure_lines(report):
        out.print(for_terminal(line), markup=False, highlight=False, soft_wrap=True)
    if len(report.concurrency_used) > len(earlier):
        out.print(f"concurrency used: {report.concurrency_used[-1]} episodes at a time"
                  + (f" (earlier runs: {', '.join(map(str, earlier))})" if earlier else ""),
                  markup=False, highlight=False, soft_wrap=True)
    out.print(f"report: {folder / REPORT_FILE}", markup=False, highlight=False, soft_wrap=True)
    game_dir = "<agent>/<game>" if report.plan.multi else "<game>"
    out.print(f"journals: {folder / 'journals'}  (open one: recode-tui tui --resume {folder / 'journals' / game_dir})",
              markup=False, highlight=False, soft_wrap=True)
    if code:
        left = len(report.pending)
        print(f"recode-tui: {message}; {len(report.episodes)} of {report.total} episodes finished, "
              f"{left} left: continue with `recode-tui eval --resume {folder}`", file=sys.stderr)
    return code
