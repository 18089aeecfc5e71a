"""`eval`'s plan: the episodes chosen, every setting checked, each episode's LLM; a new plan or a resumed report.

Built from `EvalOptions` (typed once at the edge: the command line's `recode_tui.commands.arguments.eval_options`,
the Python API's `recode_tui.api.evaluate`); `recode_tui.api` runs the plan, and the command line's `eval_report`
shows it.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from agent.eval.report import REPORT_FILE, EvalReport
from agent.eval.results import DEFAULT_EPISODE_TIMEOUT, EpisodeSpec, EvalPlan
from agent.run.spec import EnvChoice, PromptChoice
from agent.sandbox.settings import DEFAULT_NODE_TIMEOUT
from agent.sandbox.walls import SandboxPolicy
from envs.provider import Capability
from recode_tui.setup.build import (check_gold, check_llm_roles, load_prompt_set, make_llm, parse_episode,
                                    preset_env, settings_of)
from recode_tui.setup.settings import EvalOptions
from recode_tui.setup.usage import UsageError

def check_eval_counts(concurrency: int | None, repeat: int | None, episode_timeout: float | None) -> None:
    """`-c/--concurrency`, `--repeat` and `--episode-timeout` as given (None: not given), refused in one line
    before anything is planned."""
    if concurrency is not None and concurrency < 1:
        raise UsageError("-c/--concurrency must be 1 or more")
    if repeat is not None and repeat < 1:
        raise UsageError("--repeat must be 1 or more (the times each episode is played)")
    if episode_timeout is not None and not episode_timeout >= 0:
        raise UsageError("--episode-timeout must be 0 (no limit) or more seconds")


# ------------------------------------------------------------------ choosing
def _spread(games: list[Any], n: int, type_order: tuple[str, ...]) -> list[Any]:
    """The first n games taking one of each task type in turn (in the environment's order of types)."""
    from envs import registry

    by_type: dict[str, list[Any]] = {}
    for game in games:
        by_type.setdefault(game.task_type or "?", []).append(game)
    order = registry.ordered_by_type(by_type, type_order)
    chosen: list[Any] = []
    while len(chosen) < n and any(by_type.values()):
        for t in order:
            if by_type[t] and len(chosen) < n:
                chosen.append(by_type[t].pop(0))
    return chosen


def select_games(
    task_types: str | None, games: str | None, split: str | None, env: str | None = None, per_task: int | None = None
) -> list[EpisodeSpec]:
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
                found = _spread(found, n, tuple(provider.task_types))
    except EnvError as exc:
        raise UsageError(str(exc)) from None
    if not found:
        raise UsageError(f"no games match the filter{described}; see `recode-tui games list --env {name}`")
    return [EpisodeSpec(e.id, e.task_type) for e in found]


def _journal_index(folder: str) -> dict[str, Path]:
    """Game id -> the newest journal of that game under `folder` (a previous eval's folder works)."""
    from agent.sessions.journal_read import JOURNAL_FILE, JournalError, read_journal

    root = Path(folder)
    if not root.is_dir():
        raise UsageError(f"journal:{folder} is not a folder; give a folder of session journals or an eval's folder")
    found: dict[str, tuple[float, Path]] = {}
    for file in sorted(root.rglob(JOURNAL_FILE)):
        try:
            header = read_journal(file.parent).header
        except JournalError:
            continue
        created = header.created
        keys = {header.game, header.episode or ""}
        if header.game_path:
            keys.add(str(Path(header.game_path).resolve()))
        keys |= {f"{header.run.agent.name}:{key}" for key in keys if key}  # a comparison replays each agent's own journal
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
        episodes = EvalReport.read(root / REPORT_FILE).episodes
    except ValueError:
        return {}
    found: dict[str, Path] = {}
    for episode in episodes:
        journal = Path(episode.journal)
        if episode.game and journal.name and (journal / "journal.jsonl").is_file():
            found[episode.game] = journal
            if episode.agent:
                found[f"{episode.agent}:{episode.game}"] = journal
    return found


def _journal_of(index: dict[str, Path], episode_spec: EpisodeSpec) -> Path | None:
    """The journal of a game in an index (by id, or by file for ALFWorld games and old reports)."""
    from envs import registry
    from envs.base import EnvError

    if episode_spec.id in index:
        return index[episode_spec.id]
    paths = [episode_spec.path] if episode_spec.path else []
    try:
        paths.append(registry.header_fields(episode_spec.id).get("game_path", ""))
    except EnvError:
        pass
    for path in filter(None, paths):
        if str(Path(path).resolve()) in index:
            return index[str(Path(path).resolve())]
    return None


def llm_factory(
    spec: str, profiles: str | None, games: list[EpisodeSpec], env: str | None = None, agents: list[str] | None = None
) -> tuple[Callable[..., Any], bool]:
    """A function giving each episode its LLM, and whether an LLM error should abort the whole evaluation."""
    from agent.sessions.journal_read import JournalError
    from mockllm.journal import journal_llm

    if spec == "human":
        raise UsageError("eval needs a model or a script (profile:NAME, scripted:FILE, demo, journal:DIR); "
                         "to answer yourself use `recode-tui run --llm human`")
    if spec.startswith("journal:"):
        index = _journal_index(spec.split(":", 1)[1])
        if not any(_journal_of(index, g) for g in games):
            raise UsageError(f"no journal in {spec.split(':', 1)[1]} is of a selected game; "
                             "point journal: at a previous eval's folder or a sessions folder")

        for episode_spec in games:  # say which recording answers each episode
            folder = _journal_of(index, episode_spec)
            print(f"{episode_spec.id}: answers from {folder if folder is not None else '(no journal)'}", flush=True)

        def from_journal(episode_spec: EpisodeSpec, agent_name: str | None = None) -> Any:
            folder = index.get(f"{agent_name}:{episode_spec.id}") if agent_name else None  # this agent's, in a comparison
            folder = folder or _journal_of(index, episode_spec)
            if folder is None:
                raise JournalError(f"no journal of game {episode_spec.id} in {spec.split(':', 1)[1]}")
            return journal_llm(folder)

        return from_journal, False
    if spec == "gold":
        from envs import registry
        from envs.base import EnvError

        name = env or registry.default_env()
        try:
            has_gold = registry.provider(name).offers(Capability.GOLD_ACTIONS)
        except EnvError as exc:
            raise UsageError(str(exc)) from None
        if not has_gold:
            raise UsageError(f"--llm gold: the {name} environment has no gold paths; use demo, scripted:FILE or profile:NAME")
        sole = agents[0] if agents and len(agents) == 1 else None
        for agent_name in agents or (None,):  # each agent says whether it can play a known solution
            check_gold(agent_name)
        return (lambda episode_spec, agent_name=None: make_llm(spec, profiles, parse_episode(name, episode_spec.id),
                                                  agent_name=agent_name or sole)), False
    shared = None
    first = None
    if spec == "demo" and env and games:  # a demo is checked against the environment it will play
        first = parse_episode(env, games[0].id)
    for agent_name in agents or (None,):  # checks the spec (and each agent's demo); raises UsageError with a one-line reason
        shared = make_llm(spec, profiles, first, agent_name=agent_name)
    if spec.startswith("profile:"):
        return (lambda episode_spec, agent_name=None: shared), True
    # a script keeps per-episode state (`once`); `demo` is each agent's own script. One agent (`--agent
    # react`) is asked for without its name (Evaluation passes it in comparisons only): it is the default.
    only = agents[0] if agents and len(agents) == 1 else None
    if spec == "demo" and env:  # an environment's own demo (WebShop's) is chosen by the episode
        return (lambda episode_spec, agent_name=None: make_llm(spec, profiles, parse_episode(env, episode_spec.id),
                                                  agent_name=agent_name or only)), False
    return (lambda episode_spec, agent_name=None: make_llm(spec, profiles, agent_name=agent_name or only)), False


# ------------------------------------------------------------------ planning
def _report_path(value: str) -> Path:
    path = Path(value)
    return path / REPORT_FILE if path.is_dir() else path


def new_report(options: EvalOptions) -> tuple[EvalReport, Path]:
    """A new evaluation's plan (every setting checked, the episodes chosen) and the folder it is written to."""
    from recode_tui.setup.places import sessions_dir_from
    from envs.registry import default_env, env_settings, provider

    if options.llm is None:
        raise UsageError("eval needs --llm profile:NAME, scripted:FILE, demo or journal:DIR")
    llm = options.llm
    flags = options.flags
    names = _agent_names(flags.agent)
    if len(names) > 1 and flags.prompts:
        raise UsageError("--prompts is one agent's prompt folder; compare several agents with their own prompts "
                         "(drop --prompts) or evaluate one agent at a time")
    pairs = list(flags.agent_option) if flags.agent_option is not None else None
    options_by_agent = _options_by_agent(names, pairs) if len(names) > 1 else {}
    # the first agent's settings hold what every compared agent shares; each one's own options are above
    settings = settings_of(replace(flags, agent=names[0], agent_option=None if len(names) > 1 else flags.agent_option))
    for name in names:
        check_llm_roles(llm, name)  # a routed role an agent lacks: one line, before any episode
    if settings.prompts.path is not None:
        load_prompt_set(settings.prompts.path, settings.agent.name)  # refuses a folder that is not a prompt set
    wanted = options.selection
    chosen_env = preset_env(wanted.env, settings.preset)  # `--preset paper --env sciworld`: the reference's episodes
    split = wanted.split
    if split is None:  # a preset may name an environment's own episode set (WebShop's `paper`: the reference's 200)
        from envs.base import EnvError

        try:
            source = provider(chosen_env or default_env())
        except EnvError as exc:
            raise UsageError(str(exc)) from None
        split = source.preset_split(settings.preset)
    games = select_games(wanted.task_types, wanted.games, split, chosen_env, wanted.per_task)
    env = chosen_env or default_env()
    source = provider(env)
    own_limits = not settings.max_steps_given and source.offers(Capability.STEP_LIMIT)  # per-task limits (ScienceWorld)
    run = replace(
        settings,
        max_steps=None if own_limits else settings.max_steps if settings.max_steps is not None
        else source.default_max_steps,
        prompts=PromptChoice(str(Path(settings.prompts.path).resolve())) if settings.prompts.path else PromptChoice(),
        model=_model(llm, options.profiles),
        sandbox=_in_force(settings.runner),
        env=EnvChoice(env, env_settings(env)),
    )
    plan = EvalPlan(
        games=games,
        run=run,
        concurrency=options.concurrency or 4,
        selection={"task_types": wanted.task_types, "games": wanted.games, "split": split,
                   "per_task": wanted.per_task},
        episode_timeout=DEFAULT_EPISODE_TIMEOUT if options.episode_timeout is None else options.episode_timeout,
        agents=names if len(names) > 1 else [],
        options_by_agent=options_by_agent,
        gold_cannot_win=source.gold_cannot_win([g.id for g in games]) if not settings.max_steps_given else None,
        **options.cache.plan_fields(),
        repeat=options.repeat or 1,
    )
    if options.out:
        folder = Path(options.out)
        if (folder / REPORT_FILE).exists():
            raise UsageError(f"{folder} already holds an evaluation; continue it with --resume {folder} or pick another --out")
    else:
        slug = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in llm.split("/")[-1])[:40]
        folder = sessions_dir_from(options.sessions) / "evals" / f"{time.strftime('%Y%m%d-%H%M%S')}-{slug}"
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


def _model(spec: str, profiles: str | None) -> Any:
    """The model part of the plan's record (`agent.sessions.session.model_choice`), its profiles file absolute."""
    from agent.sessions.model_record import model_choice

    return model_choice(spec, _profiles_file(spec, profiles))


def _profiles_file(spec: str, explicit: str | None) -> str | None:
    """The profiles file (absolute) a profile:NAME is read from, kept in the plan to say what the run used."""
    from agent.sessions.model_record import profiles_in_use

    return profiles_in_use(spec, explicit)


def resumed_report(options: EvalOptions, resume: str) -> tuple[EvalReport, Path]:
    """The report `--resume` names, with what the flags given now may change (never trust or a profiles file)."""
    path = _report_path(resume)
    try:
        report = EvalReport.read(path)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if options.concurrency:
        report.plan.concurrency = options.concurrency
    if options.episode_timeout is not None:
        report.plan.episode_timeout = options.episode_timeout
    # Trust is never taken from a file: the remaining episodes run with the checks unless --trusted again.
    recorded = report.plan.run
    if recorded.runner.trusted and not options.flags.trusted:
        print("note: this evaluation was started with --trusted; the remaining episodes run with the "
              "sandbox's checks (pass --trusted to run them without)", file=sys.stderr)
    for key, value in options.cache.plan_fields().items():  # a resume may turn the cache on or off, or bound it anew
        setattr(report.plan, key, value)
    if options.repeat is not None:  # more repeats of a finished evaluation: only the new plays run
        if options.repeat < report.plan.repeat:
            raise UsageError(f"--repeat {options.repeat}: this evaluation already plays each episode "
                             f"{report.plan.repeat} times; give {report.plan.repeat} or more")
        report.plan.repeat = options.repeat
    # Nor a longer node time limit than the user's (--node-timeout, else the default): a report may lower it.
    yours = options.flags.node_timeout if options.flags.node_timeout is not None else DEFAULT_NODE_TIMEOUT
    timeout = min(recorded.runner.node_timeout, yours)
    if recorded.runner.node_timeout > yours:
        print(f"note: this evaluation was started with a node time limit of {recorded.runner.node_timeout:g} s; the "
              f"remaining episodes run with yours, {yours:g} s (--node-timeout {recorded.runner.node_timeout:g} gives "
              "them its own)", file=sys.stderr)
    runner = _runner_settings(options.flags.trusted, timeout, options.flags.sandbox)
    # Nor the profiles file: it chooses the server the API key goes to. A profile:NAME is read by its
    # NAME from the user's own file (--profiles, else the default one), whatever the report names.
    named = recorded.model.profiles
    profiles = _profiles_file(recorded.model.llm, options.profiles)
    report.plan.run = replace(recorded, runner=replace(runner, seed=recorded.runner.seed),
                              model=replace(recorded.model, profiles=profiles))
    if named and named != profiles:
        from agent.runtime.safe_text import for_terminal

        own = profiles or "your default profiles"
        print(f"note: the evaluation names the profiles file {for_terminal(str(named), newlines=False)}, never "
              f"read from a report: {for_terminal(recorded.model.llm, newlines=False)} is read from {own}",
              file=sys.stderr)
    return report, path.parent


def _runner_settings(trusted: bool, node_timeout: float, sandbox: SandboxPolicy) -> Any:
    from agent.sandbox.settings import RunnerSettings

    try:
        return RunnerSettings(trusted=trusted, node_timeout=node_timeout, sandbox=sandbox)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _in_force(runner: Any) -> str:
    """What the episodes' sandbox has (`walls.in_force`), for the plan's record."""
    from agent.sandbox.walls import in_force

    return in_force(runner.sandbox, runner.trusted)


def eval_sandbox(options: EvalOptions, report: EvalReport) -> SandboxPolicy:
    """The sandbox policy every episode of this evaluation runs under, handed to its runners and Ray tasks.

    A new evaluation: the user's (`--sandbox`, `RECODE_SANDBOX*`). A resumed one: the user's with whatever
    walls the report recorded on top (`walls.at_least`: a report may ask for more, never fewer); a
    difference is said in one line and the plan records the sandbox the remaining episodes get."""
    from agent.sandbox.walls import at_least, in_force, refusal

    yours = options.flags.sandbox
    if not options.resume:
        return yours
    run = report.plan.run
    policy, note = at_least(yours, run.sandbox, "this evaluation")
    if note and not run.runner.trusted:
        print(f"note: {note}", file=sys.stderr)
    refused = "" if run.runner.trusted else refusal(policy)
    if refused:
        raise UsageError(refused)
    report.plan.run = replace(run, sandbox=in_force(policy, run.runner.trusted), runner=replace(run.runner, sandbox=policy))
    return policy
