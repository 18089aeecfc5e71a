"""The public Python API: play one episode, run an evaluation, and read what they wrote, as typed objects.

`recode-tui run` and `recode-tui eval` are thin layers over this module: each turns its flags into the
setup layer's typed settings (`recode_tui.commands.arguments`) and calls `play`, or `plan_evaluation` and
`run_evaluation`, here. The keyword functions below (`run_episode`, `evaluate`) take the flags' own names
(`--max-steps` is `max_steps`, `--agent-option` is `agent_option`) and resolve them with the same
functions the command line uses (`recode_tui.setup.build`, `recode_tui.setup.eval_plan`), so the same
settings give the same plan, episodes and journals. Bad input raises `UsageError`, one line that says
what to do; a file that is not a report or a journal raises `ValueError`, one line too.

Every function has an `async` variant (`..._async`). The plain ones can be called anywhere, a Jupyter
notebook included: where an event loop already runs in the thread, the work runs on a loop of its own
in a worker thread (`asyncio.run` refuses to start inside a running loop).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Mapping, Sequence, TypeVar

from agent.run.spec import RunFlags
from recode_tui.setup.settings import EvalOptions, LLMSettings, RunOptions, Selection
from recode_tui.setup.usage import UsageError

if TYPE_CHECKING:
    from agent.eval.executor import EpisodeExecutor
    from agent.sandbox.walls import SandboxPolicy
    from agent.eval.report import EvalReport
    from agent.sessions.journal_read import Journal
    from agent.eval.results import EpisodeResult
    from agent.llm import LLM
    from agent.runtime.events import Event, RunFinished
    from agent.runtime.stepper import Stepper
    from recode_tui.setup.env_host import EnvHost

__all__ = ["EpisodeOutcome", "EvalReport", "Journal", "PlannedEvaluation", "SuccessRate", "UsageError", "evaluate",
           "evaluate_async", "local_executor", "plan_evaluation", "play", "read_journal", "read_report",
           "run_episode", "run_episode_async", "run_evaluation", "success_rates"]

T = TypeVar("T")
Notes = Callable[[str], None]

# The record types the functions return, loaded on first use (PEP 562) so that `run` loads no evaluation code.
_TYPES = {"EvalReport": "agent.eval.report", "Journal": "agent.sessions.journal_read"}


def __getattr__(name: str) -> Any:
    """`EvalReport` and `Journal`, imported from their modules the first time they are asked for."""
    if name not in _TYPES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_TYPES[name]), name)  # dynamic: PEP 562 lazy export


def _run(make: Callable[[], Awaitable[T]]) -> T:
    """The coroutine `make` gives, run to its end: here, or in a worker thread when a loop already runs here.

    Interrupted (Ctrl-C, a notebook's stop button) while it runs in the worker thread, it is cancelled
    there as `asyncio.run` cancels it here (an evaluation's report says `interrupted`), then the
    interrupt goes on."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_awaited(make))
    running: list[tuple[asyncio.AbstractEventLoop, asyncio.Task[Any]]] = []

    async def on_its_own_loop() -> T:
        task = asyncio.current_task()
        assert task is not None  # asyncio.run runs this as a task
        running.append((asyncio.get_running_loop(), task))
        return await make()

    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="recode-tui-api") as worker:
        done = worker.submit(asyncio.run, on_its_own_loop())
        try:
            return done.result()
        except KeyboardInterrupt:
            if not done.cancel() and running:
                loop, task = running[0]
                loop.call_soon_threadsafe(task.cancel)
                concurrent.futures.wait([done])  # the cancelled work ends (its report written) before we go on
            raise


async def _awaited(make: Callable[[], Awaitable[T]]) -> T:
    return await make()


# ------------------------------------------------------------------ one episode
@dataclass(frozen=True)
class EpisodeOutcome:
    """How one episode ended, what it cost, and where its journal is (None: played without one)."""

    game: str
    agent: str
    success: bool
    reason: str  # why it ended: "won", the step limit, an error
    steps: int
    score: float | None  # the environment's own score when it has one (ScienceWorld: 0-100)
    journal: Path | None
    llm_calls: int
    input_tokens: int
    output_tokens: int
    cost: float
    notes: tuple[str, ...] = ()  # what the command line prints as `note:` lines
    finished: RunFinished | None = field(default=None, repr=False, compare=False)  # the run's last event

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


async def play(options: RunOptions, llm: LLM | None = None, *, journal: bool = True,
               on_event: Callable[[Event], Any] | None = None, on_note: Notes | None = None,
               on_start: Callable[[Stepper], Any] | None = None) -> EpisodeOutcome:
    """One episode as `recode-tui run` plays it with no one at a terminal: `options` typed at the edge, the
    LLM built from them (or `llm`), behind the response cache, journaled in the sessions folder
    (`options.resume`: a recorded session goes on). `on_event` sees every event, `on_note` each note as
    it comes (they are in the outcome's `notes` too), `on_start` the agent once it is built (a front end that
    words its events in the agent's own terms reads them there)."""
    from agent.llm.cache import hits_of
    from agent.llm.routing import RoutedLLM
    from recode_tui.setup.build import agent_for, cached_llm, llm_for
    from recode_tui.setup.run_session import announce_llm, open_session

    notes: list[str] = []

    def note(text: str) -> None:
        notes.append(text)
        if on_note is not None:
            on_note(text)

    spec = options.llm.spec
    if llm is None:
        if spec == "human":
            raise UsageError("--llm human: a person answers at a terminal (`recode-tui run`) or in the console "
                             "(`recode-tui tui`); give demo, gold, scripted:FILE or profile:NAME")
        llm = llm_for(options)
    if isinstance(llm, RoutedLLM) and any(part.name == "human" for part in llm.parts()):
        raise UsageError(f"--llm {spec}: a person takes a role only in the console; use `recode-tui tui`")
    llm = cached_llm(llm, options.llm.cache)
    session = None
    if journal:
        session, _ = await open_session(options, llm)
        agent = session.agent
    else:
        agent = agent_for(options, llm)
    if options.llm.defaulted:  # said once the run really starts, so a usage error stays one line
        note("no --llm given and no terminal to answer at: playing the bundled demo script (--llm demo)")
    if session is not None:
        announce_llm(options, session)
        for text in session.notes:
            note(text)
    if on_start is not None:
        on_start(agent)
    try:
        finished = await agent.run(on_event)
        score = agent.env.score
    finally:
        await agent.close()
        if session is not None:
            session.writer.close()
    if session is not None and session.writer.error:
        note(session.writer.error)
    hits = hits_of(llm)
    if hits:
        note(f"{hits} of {agent.stats.llm_calls} LLM calls answered from the response cache (no cost)")
    return EpisodeOutcome(
        game=options.game, agent=agent.name,
        success=finished.success, reason=finished.reason, steps=finished.steps, score=score,
        journal=session.folder if session is not None else None, llm_calls=finished.llm_calls,
        input_tokens=finished.input_tokens, output_tokens=finished.output_tokens, cost=finished.cost,
        notes=tuple(notes), finished=finished)


async def run_episode_async(
    game: str | None = None, *, env: str | None = None, llm: str | LLM = "demo", profiles: str | Path | None = None,
    agent: str | None = None, agent_option: Mapping[str, Any] | Sequence[str] | None = None,
    preset: str | None = None, max_steps: int | None = None, max_depth: int | None = None,
    max_rewrite: int | None = None, max_retry: int | None = None, prompts: str | Path | None = None,
    trusted: bool = False, node_timeout: float | None = None, sessions: str | Path | None = None,
    cache: bool | None = None, cache_ttl: str | None = None, cache_dir: str | Path | None = None,
    sandbox: str | None = None, journal: bool = True, on_event: Callable[[Event], Any] | None = None,
) -> EpisodeOutcome:
    """`run_episode`, awaited."""
    from recode_tui.setup.build import cache_settings, parse_episode, preset_env, settings_of

    flags = RunFlags(agent=agent, agent_option=_option_pairs(agent_option), preset=preset, max_steps=max_steps,
                     max_depth=max_depth, max_rewrite=max_rewrite, max_retry=max_retry, prompts=_text(prompts),
                     trusted=trusted, node_timeout=node_timeout, sandbox=_sandbox(sandbox))
    settings = settings_of(flags)  # bad flags are refused before anything starts, as `run` does
    episode = parse_episode(preset_env(env, settings.preset), game)
    spec = llm if isinstance(llm, str) else f"python:{llm.name}"
    llm_settings = LLMSettings(spec, _text(profiles), cache=cache_settings(_cache_mode(cache), cache_ttl, cache_dir))
    options = RunOptions("run", episode, llm_settings, settings, sessions=_text(sessions), quiet=True)
    return await play(options, None if isinstance(llm, str) else llm, journal=journal, on_event=on_event)


def run_episode(game: str | None = None, **keywords: Any) -> EpisodeOutcome:
    """Play one episode with no screen, as `recode-tui run --game GAME ...` does: the keywords are
    `run`'s flags by their own names (`llm`, `profiles`, `agent`, `agent_option`, `preset`, `max_steps`,
    `prompts`, `trusted`, `node_timeout`, `sandbox`, `sessions`, `cache`, ...); `llm` may also be an object with
    the `agent.llm.LLM` protocol. `journal=False` plays without writing a session. No `game`: the
    environment's default episode, as `run` without `--game`."""
    return _run(lambda: run_episode_async(game, **keywords))


def _sandbox(given: str | None) -> SandboxPolicy:
    """The sandbox's policy as the command line resolves it: `RECODE_SANDBOX*` with `sandbox` (`--sandbox`'s
    values) over it, read here at the edge and handed down; UsageError (one line) for a value that is none."""
    import os

    from agent.sandbox.walls import SandboxPolicy, SandboxSettingError

    try:
        return SandboxPolicy.from_environment(os.environ, given)
    except SandboxSettingError as exc:
        raise UsageError(str(exc)) from None


# ------------------------------------------------------------------ an evaluation
@dataclass
class PlannedEvaluation:
    """An evaluation ready to run: its report (the plan, and the episodes a resumed one has), the folder it is
    written to, the profiles file its model is read from, and each episode's LLM."""

    report: EvalReport
    folder: Path
    profiles: str | None
    llm_for: Callable[..., Any]
    abort_on_llm_error: bool  # a model's outage stops the evaluation (a script's error fails one episode)
    sandbox: SandboxPolicy  # every episode's walls: the user's, and any more a resumed report recorded
    cache_folder: Path  # the response cache's folder, handed to every worker (never read from the environment there)

    @property
    def report_file(self) -> Path:
        from agent.eval.report import REPORT_FILE

        return self.folder / REPORT_FILE


def plan_evaluation(options: EvalOptions) -> PlannedEvaluation:
    """The plan `eval` runs for `options`: a new one (every setting checked, the episodes chosen) or the report
    `options.resume` names, with what the options may change; UsageError in one line before anything runs."""
    from recode_tui.setup.eval_plan import eval_sandbox, llm_factory, new_report, resumed_report
    from recode_tui.setup.places import llm_cache_folder

    report, folder = resumed_report(options, options.resume) if options.resume else new_report(options)
    sandbox = eval_sandbox(options, report)  # the user's walls, and any more the resumed report recorded
    profiles = options.profiles or report.plan.run.model.profiles  # a resume reads the file the evaluation started with
    llm_for, abort = llm_factory(report.plan.run.model.llm, profiles, report.remaining or report.plan.games, report.plan.run.env.name,
                                 report.plan.compared)
    return PlannedEvaluation(report, folder, profiles, llm_for, abort, sandbox, llm_cache_folder(report.plan.cache_dir))


def local_executor(planned: PlannedEvaluation, *, on_event: Callable[..., Any] | None = None,
                   early: EnvHost | None = None) -> EpisodeExecutor:
    """The episodes played on this machine, each environment in a worker process of a pool (`early`: an
    environment worker already started, which the pool takes when it plays that environment)."""
    from agent.eval.executor import LocalExecutor
    from recode_tui.setup.env_workers import EnvPool

    report = planned.report
    return LocalExecutor(
        report, planned.llm_for,
        lambda size: EnvPool(size, warm_env=report.plan.run.env.name,
                             started=early.take_worker(report.plan.run.env.name) if early else ()),
        abort_on_llm_error=planned.abort_on_llm_error, on_event=on_event, sandbox=planned.sandbox,
        cache_folder=planned.cache_folder)


async def run_evaluation(planned: PlannedEvaluation, executor: EpisodeExecutor | None = None, *,
                         on_result: Callable[[EpisodeResult], None] | None = None) -> EvalReport:
    """Play the plan's remaining episodes (`executor`: `local_executor`'s by default), the report rewritten
    after each. A model that went away raises `EvalAborted`; the report keeps every finished episode and
    a resume plays the rest."""
    from agent.eval.batch import Evaluation

    chosen = executor if executor is not None else local_executor(planned)
    return await Evaluation(planned.report, planned.folder, chosen, on_result=on_result).run()


async def evaluate_async(
    *, llm: str | None = None, env: str | None = None, games: int | str | Sequence[str] | None = None,
    split: str | None = None, task_types: str | Sequence[str] | None = None, per_task: int | None = None,
    agent: str | Sequence[str] | None = None, agent_option: Mapping[str, Any] | Sequence[str] | None = None,
    preset: str | None = None, max_steps: int | None = None, max_depth: int | None = None,
    max_rewrite: int | None = None, max_retry: int | None = None, prompts: str | Path | None = None,
    trusted: bool = False, node_timeout: float | None = None, episode_timeout: float | None = None,
    concurrency: int | None = None, repeat: int | None = None, out: str | Path | None = None,
    sessions: str | Path | None = None, resume: str | Path | None = None, profiles: str | Path | None = None,
    cache: bool | None = None, cache_ttl: str | None = None, cache_dir: str | Path | None = None,
    sandbox: str | None = None, on_result: Callable[[EpisodeResult], None] | None = None,
) -> EvalReport:
    """`evaluate`, awaited."""
    from recode_tui.setup.build import cache_settings
    from recode_tui.setup.eval_plan import check_eval_counts

    check_eval_counts(concurrency, repeat, episode_timeout)
    flags = RunFlags(agent=_joined(agent), agent_option=_option_pairs(agent_option), preset=preset,
                     max_steps=max_steps, max_depth=max_depth, max_rewrite=max_rewrite, max_retry=max_retry,
                     prompts=_text(prompts), trusted=trusted, node_timeout=node_timeout, sandbox=_sandbox(sandbox))
    options = EvalOptions(
        selection=Selection(env, split, _joined(task_types), _joined(games), per_task), llm=llm, flags=flags,
        concurrency=concurrency, out=_text(out), sessions=_text(sessions), resume=_text(resume), no_progress=True,
        repeat=repeat, ray=None, cache=cache_settings(_cache_mode(cache), cache_ttl, cache_dir),
        profiles=_text(profiles), episode_timeout=episode_timeout)
    return await run_evaluation(plan_evaluation(options), on_result=on_result)


def evaluate(**keywords: Any) -> EvalReport:
    """Evaluate an LLM over many episodes, as `recode-tui eval` does, and return the report it wrote
    (`out`, else `<sessions>/evals/<time>-<llm>`, with one journal per episode). The keywords are
    `eval`'s flags by their own names: `llm`, `env`, `games` (N, ids, or a list of ids), `split`,
    `task_types`, `per_task`, `agent` (one name, or several to compare), `agent_option`, `preset`,
    the limits, `prompts`, `trusted`, `node_timeout`, `sandbox`, `episode_timeout`, `concurrency`, `repeat`, `out`,
    `sessions`, `resume` (a report or eval folder to carry on), `profiles`, `cache`, `cache_ttl`,
    `cache_dir`; `on_result` sees each episode's result as it ends."""
    return _run(lambda: evaluate_async(**keywords))


@dataclass(frozen=True)
class SuccessRate:
    """One agent's success over an evaluation's episodes, with the 95 % Wilson interval over episodes (an
    episode played several times counts once, at its mean over its plays: see `agent.eval.intervals`)."""

    agent: str
    successes: int  # winning plays
    plays: int
    episodes: int
    rate: float  # 0-1, over plays
    low: float | None
    high: float | None


def success_rates(report: EvalReport) -> dict[str, SuccessRate]:
    """Each compared agent's success rate and its interval, in the report's order of agents."""
    from agent.eval.intervals import episode_interval
    from agent.eval.repeats import group_plays, mean_success

    plan = report.plan
    rates = {}
    for name in plan.compared:
        mine = [e for e in report.episodes if (e.agent == name if plan.multi else True)]
        means = [mean_success(plays, lambda e: e.success) for plays in group_plays(mine, lambda e: e.game).values()]
        interval = episode_interval(means)
        wins = sum(e.success for e in mine)
        rates[name] = SuccessRate(name, wins, len(mine), len(means), wins / len(mine) if mine else 0.0,
                                  interval[0] if interval else None, interval[1] if interval else None)
    return rates


# ------------------------------------------------------------------ reading what was written
def read_report(path: str | Path) -> EvalReport:
    """An evaluation's report (`report.json`, or the eval folder holding it) through the report's one loader;
    ValueError, one line that says what to do, for a file that is not one."""
    from agent.eval.report import REPORT_FILE, EvalReport

    given = Path(path)
    return EvalReport.read(given / REPORT_FILE if given.is_dir() else given)


def read_journal(session: str | Path | None = None, *, sessions: str | Path | None = None) -> Journal:
    """A session's journal as its typed header and records: `session` is what `--resume` takes (a folder, its
    `journal.jsonl`, an episode's `journal` in a report, or a session id in `sessions`, the sessions folder;
    None: the latest session). ValueError, one line that says what to do, for a file that is not one."""
    from agent.sessions.journal_read import JournalError, read_journal as read
    from agent.sessions.listing import find_session
    from recode_tui.setup.places import sessions_dir_from

    try:
        return read(find_session(sessions_dir_from(_text(sessions)), None if session is None else str(session)))
    except JournalError as exc:
        raise ValueError(str(exc)) from None


# ------------------------------------------------------------------ keywords as the flags give them
def _text(value: str | Path | None) -> str | None:
    return None if value is None else str(value)


def _joined(value: int | str | Sequence[str] | None) -> str | None:
    """A list where the flag takes comma-separated names (`--agent`, `--games`, `--task-types`), or a count."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    return ",".join(value)


def _option_pairs(options: Mapping[str, Any] | Sequence[str] | None) -> tuple[str, ...] | None:
    """`--agent-option KEY=VALUE` pairs, from a mapping or from the pairs themselves (read as the flag reads them)."""
    if options is None:
        return None
    if isinstance(options, Mapping):
        return tuple(f"{key}={value}" for key, value in options.items())
    return tuple(options)


def _cache_mode(cache: bool | None) -> str | None:
    """`--cache` (True), `--no-cache` (False), neither (None: each profile's own setting)."""
    return None if cache is None else "on" if cache else "off"
