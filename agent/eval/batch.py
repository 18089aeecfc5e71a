"""Batch evaluation: many episodes, C at a time, one journal each, one report.

UI-free: the command line (`recode_tui.commands.evaluate`) shows progress through the
`on_event` / `on_result` callbacks. Environments come from a pool the caller
provides (`pool_factory(size)`, an object with an async context manager
`env(episode_ref, max_steps)` and `async close()`): the command line uses
`envs.remote.EnvPool`, worker processes, so C episodes use C processes for
ALFWorld's CPU work while the LLM calls overlap on the event loop.

The report (`report.json`, `recode.eval.v1`) is rewritten atomically after
every finished episode, so an interrupted or aborted evaluation keeps every
finished episode; `Evaluation.resume(report)` runs the ones still missing.

A comparison (`plan.agents`, several agents) plays every game with each agent,
journals under `journals/<agent>/<game>`, and adds `by_agent` to the report:
each agent's summary (overall, per task type, per LLM role), as the paper's
table compares ReCode with its baselines.

Failure policy:
- an episode that crashes (its worker dies, the engine raises) is recorded as
  failed with its `error`; the others go on;
- an LLM error of a remote model (server gone, after the client's own retries
  and `llm_retries` more tries) aborts the evaluation with `EvalAborted`: the
  episodes in flight are dropped, not recorded, so a resume plays them again;
- an LLM error of a scripted LLM (no answer for a stub) only fails its episode.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

from agent import agents
from agent.eval.failure import FailureTrace, group_failures
from agent.llm import LLM
from agent.llm.profiles import Profile
from agent.runtime import events as ev
from agent.runtime.prompts import PromptSet, moved_prompt_set
from agent.runtime.runners import RunnerSettings
from agent.runtime.stepper import Limits
from agent.runtime.stepper import Stepper
from agent.sessions.journal import JournalWriter
from agent.sessions.session import session_header
from envs import registry
from envs.protocols import Topics, score_of

REPORT_VERSION = "recode.eval.v1"
REPORT_FILE = "report.json"
JOURNALS_DIR = "journals"


@runtime_checkable
class SeedableLLM(Protocol):
    """A model LLM that samples: its profile's temperature, and a copy with a fixed seed (OpenAILLM)."""

    profile: Profile

    def with_seed(self, seed: int) -> LLM: ...


class EvalAborted(Exception):
    """The evaluation cannot go on (e.g. the LLM server went away); one line that says why."""


@dataclass(frozen=True)
class GameSpec:
    """One episode of the plan: its id within the plan's environment (`put-01`, `boil/21`).

    `path` is only in reports written before the environment seam (ALFWorld's game file).
    """

    id: str
    task_type: str | None
    path: str = ""


@dataclass
class EpisodeResult:
    game: str
    task_type: str | None
    success: bool
    reason: str
    steps: int = 0
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    seconds: float = 0.0
    llm_seconds: float = 0.0  # of `seconds`, waiting for the LLM's answers
    person_seconds: float = 0.0  # a person's time (never in an eval's own runs; kept apart from llm_seconds)
    llm_failures: int = 0  # model calls that failed (journaled as `llm_failed` records)
    journal: str = ""
    error: str = ""  # set when the episode crashed rather than just failed the task
    score: float | None = None  # the env's own score at the end, when it has one (ScienceWorld: 0-100)
    failure: dict[str, Any] | None = None  # why it failed: last steps, deepest stub, ending node (agent.eval.failure)
    agent: str = ""  # set in a multi-agent evaluation: which agent played it ("" is the plan's one agent)
    roles: dict[str, dict[str, Any]] = field(default_factory=dict)  # per LLM role (agents with several): calls, tokens, cost
    cached_calls: int = 0  # of `llm_calls`, answered from the response cache (no cost)
    repeat: int = 1  # which play of the game this is (eval --repeat), from 1
    seed: int | None = None  # the seed its model calls carried (a repeat's own), when the model takes one
    temperature: float | None = None  # its model's sampling temperature, when a model answered

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass
class EvalPlan:
    """What an evaluation runs; stored in the report so `--resume` needs nothing else."""

    llm: str
    games: list[GameSpec]
    env: str = "alfworld"
    concurrency: int = 4
    max_steps: int | None = 80  # None: each episode's own limit (ScienceWorld's per-task ones)
    limits: dict[str, Any] = field(default_factory=lambda: asdict(Limits()))  # Limits' fields (ints and a bool)
    prompts: str | None = None
    selection: dict[str, Any] = field(default_factory=dict)  # the filter, for the record
    preset: str = "default"  # agent.runtime.presets: which named settings the limits came from
    trusted: bool = False  # the sandbox without its static checks (agent.runtime.runners)
    node_timeout: float = 5.0
    profiles: str | None = None  # the profiles file (absolute) a profile:NAME came from: `--resume` needs no --profiles
    agent: str = "recode"  # agent.agents: which agent ran every episode (the first one, with `agents`)
    agent_options: dict[str, Any] = field(default_factory=dict)
    # a comparison: every game is played by each of these agents in turn (empty: `agent` alone);
    # `options_by_agent` holds each one's own `--agent-option` values
    agents: list[str] = field(default_factory=list)
    options_by_agent: dict[str, dict[str, Any]] = field(default_factory=dict)
    # episode -> why its own gold path cannot win within its step limit (ScienceWorld's paper set; None: not computed)
    gold_cannot_win: dict[str, str] | None = None
    # the response cache (agent.llm.cache): "on" (--cache), "off" (--no-cache), "profile" (each profile's `cache`)
    cache: str = "profile"
    cache_ttl: float | None = None  # seconds (--cache-ttl); None: the profile's, else a week
    cache_dir: str | None = None  # None: $RECODE_TUI_CACHE or the user cache dir
    repeat: int = 1  # eval --repeat N: every (agent, game) is played N times; tables show a 95 % interval

    @property
    def compared(self) -> list[str]:
        """The agents that play every game: several for a comparison, else the one agent."""
        return list(self.agents) if len(self.agents) > 1 else [self.agent]

    @property
    def multi(self) -> bool:
        return len(self.agents) > 1

    def options_for(self, agent: str) -> dict[str, Any]:
        return dict(self.options_by_agent.get(agent, {})) if self.multi else dict(self.agent_options)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if not self.multi:  # a one-agent report stays as it always was
            data.pop("agents"), data.pop("options_by_agent")
        if self.gold_cannot_win is None:
            data.pop("gold_cannot_win")
        if self.repeat == 1:
            data.pop("repeat")
        if self.cache == "profile" and self.cache_ttl is None and self.cache_dir is None:
            for key in ("cache", "cache_ttl", "cache_dir"):  # the default: a report stays as it was
                data.pop(key)
        data["games"] = [{k: v for k, v in asdict(g).items() if k != "path" or v} for g in self.games]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "EvalPlan":
        data = dict(data)
        data["games"] = [GameSpec(**g) for g in data.get("games", [])]
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})


def _stats(episodes: Sequence[EpisodeResult], repeats: int = 1) -> dict[str, Any]:
    n = len(episodes)
    wins = sum(e.success for e in episodes)
    calls = sum(e.llm_calls for e in episodes)

    def mean(values: list[float]) -> float:
        return sum(values) / n if n else 0.0

    scores = [e.score for e in episodes if e.score is not None]
    return {
        "episodes": n,
        "mean_score": sum(scores) / len(scores) if scores else None,  # only for an env with a score
        "successes": wins,
        "success_rate": wins / n if n else 0.0,
        "errors": sum(bool(e.error) for e in episodes),
        "mean_steps": mean([e.steps for e in episodes]),
        "mean_llm_calls": mean([e.llm_calls for e in episodes]),
        "mean_input_tokens": mean([e.input_tokens for e in episodes]),
        "mean_output_tokens": mean([e.output_tokens for e in episodes]),
        "mean_tokens": mean([e.tokens for e in episodes]),
        "mean_cost": mean([e.cost for e in episodes]),
        "total_cost": sum(e.cost for e in episodes),
        "total_tokens": sum(e.tokens for e in episodes),
        # per call, not per episode: how fast the model answers, whatever the episode length
        "mean_llm_seconds": sum(e.llm_seconds for e in episodes) / calls if calls else 0.0,
        "person_seconds": sum(e.person_seconds for e in episodes),
        "llm_failures": sum(e.llm_failures for e in episodes),
        "cached_calls": sum(e.cached_calls for e in episodes),
        **(_repeat_stats(episodes, repeats) if repeats > 1 else {}),
    }


def _repeat_stats(episodes: Sequence[EpisodeResult], repeats: int) -> dict[str, Any]:
    """With repeats: the success rate's 95 % interval over every play, and each repeat's own rate."""
    from agent.eval.intervals import wilson

    rates = []
    for number in range(1, repeats + 1):
        mine = [e for e in episodes if e.repeat == number]
        rates.append(sum(e.success for e in mine) / len(mine) if mine else None)
    interval = wilson(sum(e.success for e in episodes), len(episodes))
    return {"success_interval": list(interval) if interval else None, "repeat_rates": rates}


def summarize(episodes: Sequence[EpisodeResult], env: str | None = None, repeats: int = 1) -> dict[str, Any]:
    """Overall and per-task-type statistics, and per topic when the environment groups its task
    types into topics (ScienceWorld's 10, as its paper reports them)."""
    types = sorted({e.task_type or "?" for e in episodes})
    summary = {
        "overall": _stats(episodes, repeats),
        "by_task_type": {t: _stats([e for e in episodes if (e.task_type or "?") == t], repeats) for t in types},
    }
    topic_of = topic_function(env)
    if topic_of is not None:
        topic = {t: topic_of(t) for t in types}
        summary["by_topic"] = {g: _stats([e for e in episodes if topic[e.task_type or "?"] == g], repeats)
                               for g in sorted(set(topic.values()), key=_topic_order)}
    return summary


def role_sums(episodes: Sequence[EpisodeResult]) -> dict[str, dict[str, Any]]:
    """Per LLM role (planner, executor, ...), the calls, tokens and cost summed over the episodes."""
    sums: dict[str, dict[str, Any]] = {}
    for episode in episodes:
        for role, stats in (episode.roles or {}).items():
            total = sums.setdefault(role, {"llm_calls": 0, "input_tokens": 0, "output_tokens": 0, "cost": 0.0})
            total["llm_calls"] += int(stats.get("llm_calls", stats.get("calls", 0)) or 0)
            total["input_tokens"] += int(stats.get("input_tokens", 0) or 0)
            total["output_tokens"] += int(stats.get("output_tokens", 0) or 0)
            total["cost"] += float(stats.get("cost", 0.0) or 0.0)
    return sums


def summarize_agents(episodes: Sequence[EpisodeResult], agents: Sequence[str], env: str | None = None,
                     repeats: int = 1) -> dict[str, dict[str, Any]]:
    """A comparison's summary per agent: its overall and per-task-type rows, and its per-role sums."""
    out: dict[str, dict[str, Any]] = {}
    for name in agents:
        mine = [e for e in episodes if e.agent == name]
        summary = summarize(mine, env, repeats)
        summary["overall"]["input_tokens"] = sum(e.input_tokens for e in mine)
        summary["overall"]["output_tokens"] = sum(e.output_tokens for e in mine)
        summary["overall"]["llm_calls"] = sum(e.llm_calls for e in mine)
        summary["roles"] = role_sums(mine)
        out[name] = summary
    return out


def topic_function(env: str | None) -> Callable[[str], str] | None:
    """The provider's `topic_of(task_type)` (None: the environment has no topics); unknown types are `?`."""
    if env is None:
        return None
    try:
        source = registry.provider(env)
    except Exception:  # noqa: BLE001 - a report of an environment no longer registered still shows
        return None
    if not isinstance(source, Topics):
        return None
    topic_of = source.topic_of

    def safe(task_type: str) -> str:
        try:
            return str(topic_of(task_type))
        except Exception:  # noqa: BLE001
            return "?"

    return safe


def _topic_order(label: str) -> tuple[int, str]:
    """`2 Measurement` before `10 Forces`: by the leading number when there is one."""
    head = label.split(" ", 1)[0]
    return (int(head), label) if head.isdigit() else (10**6, label)


@dataclass
class EvalReport:
    plan: EvalPlan
    episodes: list[EpisodeResult] = field(default_factory=list)
    status: str = "running"  # running | complete | interrupted | aborted
    note: str = ""
    started: float = field(default_factory=time.time)
    updated: float = 0.0
    elapsed: float = 0.0  # seconds spent running, summed over resumes
    concurrency_used: list[int] = field(default_factory=list)  # episodes really at a time, per run (resumes append)

    @property
    def finished_games(self) -> set[str]:
        return {e.game for e in self.episodes}

    @property
    def remaining(self) -> list[GameSpec]:
        """The games some agent has still to play (all of them once, for a one-agent plan)."""
        left = {g.id for _, g, _ in self.pending}
        return [g for g in self.plan.games if g.id in left]

    @property
    def pending(self) -> list[tuple[str, GameSpec, int]]:
        """(agent, game, repeat) still to play: repeat by repeat (an interrupted run keeps whole
        repeats), agent by agent within one (a comparison runs the same games for each)."""
        if self.plan.multi:
            played = {(e.agent, e.game, e.repeat) for e in self.episodes}
        else:
            played = {(self.plan.agent, e.game, e.repeat) for e in self.episodes}
        return [(a, g, r) for r in range(1, max(1, self.plan.repeat) + 1) for a in self.plan.compared
                for g in self.plan.games if (a, g.id, r) not in played]

    @property
    def total(self) -> int:
        """Episodes the plan holds: games times agents times repeats."""
        return len(self.plan.games) * len(self.plan.compared) * max(1, self.plan.repeat)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION,
            "status": self.status,
            "note": self.note,
            "started": self.started,
            "updated": self.updated,
            "elapsed": self.elapsed,
            "concurrency_used": self.concurrency_used,
            "plan": self.plan.to_dict(),
            "summary": summarize(self.episodes, self.plan.env, self.plan.repeat),
            **({"by_agent": summarize_agents(self.episodes, self.plan.agents, self.plan.env, self.plan.repeat)}
               if self.plan.multi else {}),
            "failures": [
                {"where": g.key, "task_types": g.task_types, "count": len(g.episodes), "of": g.of_task_type,
                 "line": g.line(), "episodes": [e.game for e in g.episodes]}
                for g in group_failures(self.episodes)
            ],
            "episodes": [self._episode_dict(e) for e in self.episodes],
        }

    def _episode_dict(self, episode: EpisodeResult) -> dict[str, Any]:
        data = asdict(episode)
        if not self.plan.multi and not episode.agent:
            data.pop("agent")
        if not episode.roles:
            data.pop("roles")
        if not episode.cached_calls and self.plan.cache == "off":
            data.pop("cached_calls")
        if self.plan.repeat == 1:  # a report without repeats stays as it was
            for key in ("repeat", "seed", "temperature"):
                data.pop(key)
        return data

    def write(self, path: Path) -> None:
        """Atomically replace the report file."""
        self.updated = time.time()
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(path.name + ".tmp")
        with open(temp, "w", encoding="utf-8") as handle:
            json.dump(self.to_dict(), handle, indent=2)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)

    @classmethod
    def read(cls, path: Path) -> "EvalReport":
        """Read a report; raises ValueError with a one-line reason."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ValueError(f"cannot read report {path}: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise ValueError(f"report {path} is not valid JSON (line {exc.lineno})") from None
        if not isinstance(data, dict) or data.get("version") != REPORT_VERSION:
            raise ValueError(f"{path} is not a recode-tui evaluation report ({REPORT_VERSION})")
        known = set(EpisodeResult.__dataclass_fields__)
        return cls(
            plan=EvalPlan.from_dict(data["plan"]),
            episodes=[EpisodeResult(**{k: v for k, v in e.items() if k in known}) for e in data.get("episodes", [])],
            status=data.get("status", "interrupted"),
            note=data.get("note", ""),
            started=data.get("started", time.time()),
            updated=data.get("updated", 0.0),
            elapsed=data.get("elapsed", 0.0),
            concurrency_used=list(data.get("concurrency_used", [])),
        )


class CachedCalls:
    """An engine observer counting the LLM answers that came from the response cache."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, (ev.LLMAnswered, ev.LLMRejected)) and event.cached:
            self.count += 1


LLMFactory = Callable[..., LLM]  # (game) for one agent; (game, agent) for a comparison (plan.agents)
EventHook = Callable[[GameSpec, ev.Event], None]
ResultHook = Callable[[EpisodeResult], None]


class Evaluation:
    """Run the remaining episodes of a report, `plan.concurrency` at a time."""

    def __init__(
        self,
        report: EvalReport,
        folder: Path,
        llm_for: LLMFactory,
        *,
        abort_on_llm_error: bool = False,
        llm_retries: int = 2,
        retry_delay: float = 1.0,
        pool_factory: Callable[[int], Any],
        on_event: EventHook | None = None,
        on_result: ResultHook | None = None,
        on_start: Callable[[GameSpec], None] | None = None,
    ) -> None:
        self.report = report
        self.folder = Path(folder)
        self.report_path = self.folder / REPORT_FILE
        self.journals = self.folder / JOURNALS_DIR
        self.llm_for = llm_for
        self.abort_on_llm_error = abort_on_llm_error
        self.llm_retries = llm_retries
        self.retry_delay = retry_delay
        self.pool_factory = pool_factory
        self.on_event = on_event
        self.on_result = on_result
        self.on_start = on_start
        recorded = moved_prompt_set(Path(report.plan.prompts)) if report.plan.prompts else None
        self._prompts = PromptSet(recorded) if recorded else None  # None: the agent's own
        known = set(Limits.__dataclass_fields__)
        self._limits = Limits(**{k: v for k, v in report.plan.limits.items() if k in known})
        # every episode's runner comes from the one place user paths get theirs: sandboxed, checked unless trusted
        self._runner_settings = RunnerSettings(trusted=report.plan.trusted, node_timeout=report.plan.node_timeout)
        self._cache_folder = None
        if report.plan.cache != "off":
            from agent.llm.cache import default_folder

            self._cache_folder = Path(report.plan.cache_dir) if report.plan.cache_dir else default_folder()

    def _for_repeat(self, llm: LLM, repeat: int) -> tuple[LLM, int | None, float | None]:
        """With repeats, each play's sampled model calls carry the repeat's own seed (a model that takes
        one samples reproducibly per repeat); the LLM, that seed and the sampling temperature, for the record.

        A model at temperature 0 gets no seed: its request stays the same bytes in every repeat, so the
        response cache answers the later repeats (the cache keys on the repeat only when sampling)."""
        from agent.llm.routing import RoutedLLM

        parts = llm.parts() if isinstance(llm, RoutedLLM) else [llm]
        temperatures = [float(p.profile.temperature) for p in parts if hasattr(p, "profile")]
        temperature = max(temperatures) if temperatures else None

        def sampled(part: LLM) -> bool:
            return isinstance(part, SeedableLLM) and float(part.profile.temperature) > 0

        if self.report.plan.repeat <= 1 or not any(sampled(p) for p in parts):
            return llm, None, temperature
        seeded: dict[int, LLM] = {}

        def seed(part: LLM) -> LLM:
            if id(part) not in seeded:
                seeded[id(part)] = part.with_seed(repeat) if isinstance(part, SeedableLLM) and sampled(part) else part
            return seeded[id(part)]

        if isinstance(llm, RoutedLLM):
            return (RoutedLLM(seed(llm.default), {r: seed(p) for r, p in llm.roles.items()}, llm.spec),
                    repeat, temperature)
        return seed(llm), repeat, temperature

    def _cached(self, llm: LLM, repeat: int | None = None) -> LLM:
        """The episode's LLM through the response cache, as the plan says (model LLMs only)."""
        if self._cache_folder is None:
            return llm
        from agent.llm.cache import with_cache

        return with_cache(llm, self._cache_folder, always=self.report.plan.cache == "on",
                          ttl=self.report.plan.cache_ttl, repeat=repeat)

    async def run(self) -> EvalReport:
        """Play every remaining game; the report is written after each episode and at the end.

        Cancelling (Ctrl-C) marks the report `interrupted`; an LLM that went
        away marks it `aborted` and raises EvalAborted. Either way the
        finished episodes are in the report.
        """
        plan = self.report.plan
        queue = list(self.report.pending)
        queue.reverse()  # pop() from the end keeps the plan's order
        self.report.status = "running"
        self.report.write(self.report_path)
        if not queue:
            self.report.status = "complete"
            self.report.write(self.report_path)
            return self.report
        size = max(1, min(plan.concurrency, len(queue)))
        self.report.concurrency_used.append(size)
        pool = self.pool_factory(size)
        began = time.monotonic()
        elapsed_before = self.report.elapsed

        async def lane() -> None:
            while queue:
                agent, game, repeat = queue.pop()
                result = await self._episode(pool, game, agent, repeat)
                self.report.episodes.append(result)
                self.report.elapsed = elapsed_before + time.monotonic() - began
                self.report.write(self.report_path)
                if self.on_result is not None:
                    self.on_result(result)

        lanes = [asyncio.ensure_future(lane()) for _ in range(size)]
        try:
            done, pending = await asyncio.wait(lanes, return_when=asyncio.FIRST_EXCEPTION)
            failed = next((t for t in done if not t.cancelled() and t.exception() is not None), None)
            if failed is not None:
                for task in pending:
                    task.cancel()
                await asyncio.gather(*pending, return_exceptions=True)
                exc = failed.exception()
                assert exc is not None  # `failed` was picked for having one
                if isinstance(exc, EvalAborted):
                    self.report.status, self.report.note = "aborted", str(exc)
                else:
                    self.report.status, self.report.note = "aborted", f"{type(exc).__name__}: {exc}"
                raise exc
            self.report.status = "complete"
        except asyncio.CancelledError:
            for task in lanes:
                task.cancel()
            await asyncio.gather(*lanes, return_exceptions=True)
            self.report.status = "interrupted"
            raise
        finally:
            self.report.elapsed = elapsed_before + time.monotonic() - began
            self.report.write(self.report_path)
            await asyncio.shield(pool.close())
        return self.report

    def _journal_folder(self, game: GameSpec, agent: str, repeat: int = 1) -> Path:
        base = game.id.replace("/", "_").replace(os.sep, "_")
        if self.report.plan.repeat > 1:  # each play its own journal: journals/<game>@r2
            base = f"{base}@r{repeat}"
        # a comparison keeps each agent's journals apart: journals/<agent>/<game>
        folder = (self.journals / agent if self.report.plan.multi else self.journals) / base
        attempt = 1
        while folder.exists():  # an episode cut by an interruption keeps its journal
            attempt += 1
            folder = folder.with_name(f"{base}~{attempt}")
        return folder

    def _llm(self, game: GameSpec, agent: str) -> LLM:
        """A comparison asks the factory for this agent's LLM (its own demo script); one agent, for the game's."""
        return self.llm_for(game, agent) if self.report.plan.multi else self.llm_for(game)

    async def _episode(self, pool: Any, game: GameSpec, agent: str, repeat: int = 1) -> EpisodeResult:
        """One episode; anything but an LLM outage or cancellation ends as a result."""
        plan = self.report.plan
        started = time.monotonic()
        tag = agent if plan.multi else ""
        folder = self._journal_folder(game, agent, repeat)
        seed: int | None = None
        temperature: float | None = None
        if self.on_start is not None:
            self.on_start(game)
        engine: Stepper | None = None
        writer: JournalWriter | None = None
        try:
            llm = await asyncio.to_thread(self._llm, game, agent)  # may block (gold: the simulator computes a path)
            llm, seed, temperature = self._for_repeat(llm, repeat)
            llm = self._cached(llm, repeat if plan.repeat > 1 else None)
            ref = registry.qualify(game.id, plan.env)
            async with pool.env(ref, plan.max_steps) as env:
                runner = self._runner_settings.make_runner()
                engine = agents.build(agent, env, llm, runner, limits=self._limits, prompts=self._prompts,
                                      options=plan.options_for(agent))
                engine.preset = plan.preset
                # profiles: a resume of this journal goes on with the same model
                writer = JournalWriter(folder, session_header(ref, engine, plan.llm, profiles=plan.profiles))
                engine.observers.append(writer)
                trace = FailureTrace()
                engine.observers.append(trace)
                cached = CachedCalls()
                engine.observers.append(cached)
                finished = await self._drive(engine, game)
                score = score_of(env)
        except (EvalAborted, asyncio.CancelledError):
            raise
        except Exception as exc:  # noqa: BLE001 - one broken episode must not stop the others
            error = f"{type(exc).__name__}: {exc}".splitlines()[0]
            return EpisodeResult(game.id, game.task_type, False, error, seconds=time.monotonic() - started,
                                 journal=str(folder), error=error, agent=tag, repeat=repeat, seed=seed,
                                 temperature=temperature)
        finally:
            if engine is not None:
                await asyncio.shield(engine.close())
            if writer is not None:
                writer.close()
        error = finished.reason if finished.reason.startswith(("internal error", "replay mismatch")) else ""
        return EpisodeResult(
            game=game.id,
            task_type=game.task_type,
            success=finished.success,
            reason=finished.reason,
            steps=finished.steps,
            llm_calls=finished.llm_calls,
            input_tokens=finished.input_tokens,
            output_tokens=finished.output_tokens,
            cost=finished.cost,
            seconds=time.monotonic() - started,
            llm_seconds=finished.llm_seconds,
            person_seconds=finished.person_seconds,
            llm_failures=finished.llm_failures,
            journal=str(folder),
            error=error,
            score=score,
            failure=None if finished.success else trace.describe(finished),
            agent=tag,
            roles=dict(finished.extra.get("roles") or {}),
            cached_calls=cached.count,
            repeat=repeat,
            seed=seed,
            temperature=temperature,
        )

    async def _drive(self, engine: Stepper, game: GameSpec) -> ev.RunFinished:
        failures = 0
        while True:
            event = await engine.step()
            if self.on_event is not None:
                self.on_event(game, event)
            if isinstance(event, ev.LLMFailed):
                failures += 1
                if not self.abort_on_llm_error:
                    return await engine.stop(f"LLM error: {event.error}")
                if failures > self.llm_retries:
                    raise EvalAborted(f"the LLM failed {failures} times in a row: {event.error}")
                await asyncio.sleep(self.retry_delay * 2 ** (failures - 1))
                continue
            if isinstance(event, ev.LLMAnswered):
                failures = 0
            if isinstance(event, ev.RunFinished):
                return event
