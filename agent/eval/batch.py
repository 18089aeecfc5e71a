"""Batch evaluation: many episodes, C at a time, one journal each, one report.

UI-free: the command line (`recode_tui.commands.evaluate`) shows progress through the
`on_event` / `on_result` callbacks. Environments come from a pool the caller
provides (`pool_factory(size)`, an object with an async context manager
`env(episode_ref, max_steps)` and `async close()`): the command line uses
`recode_tui.setup.env_workers.EnvPool`, worker processes, so C episodes use C processes for
ALFWorld's CPU work while the LLM calls overlap on the event loop.

This module schedules and runs the episodes; the plan and result types are in
`agent.eval.results`, the numbers in `agent.eval.summary` and the report file
in `agent.eval.report` (all re-exported here).

The report (`report.json`, `recode.eval.v1`) is rewritten atomically after
every finished episode, so an interrupted or aborted evaluation keeps every
finished episode; `Evaluation.resume(report)` runs the ones still missing.

A comparison (`plan.agents`, several agents) plays every game with each agent,
journals under `journals/<agent>/<game>`, and adds `by_agent` to the report:
each agent's summary (overall, per task type, per LLM role), as the paper's
table compares ReCode with its baselines.

Failure policy:
- an episode that crashes (its worker dies, the agent raises) is recorded as
  failed with its `error`; the others go on;
- an episode over its wall clock (`plan.episode_timeout`: an LLM that never
  answers, an environment that hangs) is ended, its code worker and its
  environment closed (an environment in a worker process is killed, so a
  blocked step returns), and recorded as failed with the reason;
- an LLM error of a remote model (server gone, after the client's own retries
  and `llm_retries` more tries) aborts the evaluation with `EvalAborted`: the
  episodes in flight are dropped, not recorded, so a resume plays them again;
- an LLM error of a scripted LLM (no answer for a stub) only fails its episode.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any, Callable, Protocol, runtime_checkable

from agent import agents
from agent.eval.failure import FailureTrace
from agent.eval.report import REPORT_FILE, REPORT_VERSION, EvalReport
from agent.eval.results import EpisodeResult, EvalPlan, EpisodeSpec, wall_clock_reason
from agent.eval.summary import role_sums, summarize, summarize_agents, topic_function
from agent.llm import LLM
from agent.llm.profiles import Profile
from agent.runtime import events as ev
from agent.runtime.prompts import PromptSet, moved_prompt_set
from agent.sandbox.settings import RunnerSettings, SpareRunners
from agent.runtime.stepper import Limits
from agent.runtime.stepper import Stepper
from agent.sessions.journal import JournalWriter
from agent.sessions.session import session_header
from envs import registry
from envs.registry import EpisodeRef

JOURNALS_DIR = "journals"
REPORT_EVERY = 1.0  # seconds between report.json rewrites while episodes end (a killed run replays at most these)

__all__ = [
    "JOURNALS_DIR", "REPORT_FILE", "REPORT_VERSION", "CachedCalls", "EpisodeResult", "EvalAborted", "EvalPlan",
    "EvalReport", "Evaluation", "EventHook", "EpisodeSpec", "LLMFactory", "ResultHook", "SeedableLLM", "role_sums",
    "summarize", "summarize_agents", "topic_function",
]


@runtime_checkable
class SeedableLLM(Protocol):
    """A model LLM that samples: its profile's temperature, and a copy with a fixed seed (OpenAILLM)."""

    profile: Profile

    def with_seed(self, seed: int) -> LLM: ...


class EvalAborted(Exception):
    """The evaluation cannot go on (e.g. the LLM server went away); one line that says why."""


class CachedCalls:
    """An agent observer counting the LLM answers that came from the response cache."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, (ev.LLMAnswered, ev.LLMRejected)) and event.cached:
            self.count += 1


LLMFactory = Callable[..., LLM]  # (game) for one agent; (game, agent) for a comparison (plan.agents)
EventHook = Callable[[EpisodeSpec, ev.Event], None]
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
        on_start: Callable[[EpisodeSpec], None] | None = None,
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
        self._spares = SpareRunners(self._runner_settings)  # replaced by `run` with one spare per lane
        # episodes their wall clock ended (journal folder -> reason), and what their agent had counted by then
        self._given_up: dict[Path, str] = {}
        self._given_up_results: dict[Path, EpisodeResult] = {}
        self._cache_folder = None
        if report.plan.cache != "off":
            from agent.llm.cache import default_folder

            self._cache_folder = Path(report.plan.cache_dir) if report.plan.cache_dir else default_folder()

    def _spec(self, agent: str) -> agents.AgentSpec:
        """What builds `agent` for every episode of the plan: its options, the plan's limits, prompts,
        preset and runner settings."""
        plan = self.report.plan
        return agents.AgentSpec(agent, plan.options_for(agent), self._limits, self._prompts, plan.preset,
                                self._runner_settings)

    def _for_repeat(self, llm: LLM, repeat: int) -> tuple[LLM, int | None, float | None]:
        """With repeats, each play's sampled model calls carry the repeat's own seed (a model that takes
        one samples reproducibly per repeat); the LLM, that seed and the sampling temperature, for the record.

        A model at temperature 0 gets no seed: its request stays the same bytes in every repeat, so the
        response cache answers the later repeats (the cache keys on the repeat only when sampling)."""
        from agent.llm.routing import RoutedLLM

        parts = llm.parts() if isinstance(llm, RoutedLLM) else [llm]
        temperatures = [float(p.profile.temperature) for p in parts if isinstance(p, SeedableLLM)]
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
        self._spares = SpareRunners(self._runner_settings, size)
        began = time.monotonic()
        elapsed_before = self.report.elapsed

        written = time.monotonic()

        async def lane() -> None:
            nonlocal written
            while queue:
                agent_name, episode_spec, repeat = queue.pop()
                result = await self._episode(pool, episode_spec, agent_name, repeat)
                self.report.episodes.append(result)
                self.report.elapsed = elapsed_before + time.monotonic() - began
                # The report is rewritten whole, so once per episode grew with the square of the episodes
                # (1,819 ScienceWorld episodes); at most once a REPORT_EVERY seconds, and always at the end.
                if time.monotonic() - written >= REPORT_EVERY or not queue:
                    self.report.write(self.report_path)
                    written = time.monotonic()
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
            await asyncio.shield(self._spares.close())
        return self.report

    def _journal_folder(self, episode_spec: EpisodeSpec, agent_name: str, repeat: int = 1) -> Path:
        base = episode_spec.id.replace("/", "_").replace(os.sep, "_")
        if self.report.plan.repeat > 1:  # each play its own journal: journals/<game>@r2
            base = f"{base}@r{repeat}"
        # a comparison keeps each agent's journals apart: journals/<agent>/<game>
        folder = (self.journals / agent_name if self.report.plan.multi else self.journals) / base
        attempt = 1
        while folder.exists():  # an episode cut by an interruption keeps its journal
            attempt += 1
            folder = folder.with_name(f"{base}~{attempt}")
        return folder

    def _llm(self, episode_spec: EpisodeSpec, agent_name: str) -> LLM:
        """A comparison asks the factory for this agent's LLM (its own demo script); one agent, for the game's."""
        return self.llm_for(episode_spec, agent_name) if self.report.plan.multi else self.llm_for(episode_spec)

    async def _episode(self, pool: Any, episode_spec: EpisodeSpec, agent_name: str, repeat: int = 1) -> EpisodeResult:
        """One episode within its wall clock; anything but an LLM outage or cancellation ends as a result."""
        limit = self.report.plan.episode_timeout
        started = time.monotonic()
        folder = self._journal_folder(episode_spec, agent_name, repeat)
        envs: list[Any] = []  # the episode's environment, once the pool gave it
        play = asyncio.ensure_future(self._play(pool, episode_spec, agent_name, repeat, folder, envs))
        try:
            done, _ = await asyncio.wait({play}, timeout=limit if limit > 0 else None)
        except asyncio.CancelledError:
            play.cancel()
            await asyncio.gather(play, return_exceptions=True)
            raise
        if play in done:
            return play.result()
        reason = wall_clock_reason(limit)
        self._given_up[folder] = reason
        for env in envs:
            env.abandon(reason)  # a step blocked in its process returns, so the episode can end
        play.cancel()  # the play's own clean-up closes the agent (its code worker) and the environment
        await asyncio.gather(play, return_exceptions=True)
        self._given_up.pop(folder, None)
        counted = self._given_up_results.pop(folder, None)  # its calls were billed: the report counts them
        if counted is not None:
            counted.seconds, counted.error = time.monotonic() - started, reason
            return counted
        return EpisodeResult(episode_spec.id, episode_spec.task_type, False, reason, seconds=time.monotonic() - started,
                             journal=str(folder), error=reason, agent=agent_name if self.report.plan.multi else "",
                             repeat=repeat)

    async def _play(self, pool: Any, episode_spec: EpisodeSpec, agent_name: str, repeat: int, folder: Path,
                    envs: list[Any]) -> EpisodeResult:
        """The episode itself: its LLM, its environment from the pool, its agent and journal."""
        plan = self.report.plan
        started = time.monotonic()
        tag = agent_name if plan.multi else ""
        seed: int | None = None
        temperature: float | None = None
        if self.on_start is not None:
            self.on_start(episode_spec)
        agent: Stepper | None = None
        writer: JournalWriter | None = None
        trace, cached = FailureTrace(), CachedCalls()
        try:
            llm = await asyncio.to_thread(self._llm, episode_spec, agent_name)  # may block (gold: the simulator computes a path)
            llm, seed, temperature = self._for_repeat(llm, repeat)
            llm = self._cached(llm, repeat if plan.repeat > 1 else None)
            episode = EpisodeRef.parse(episode_spec.id, plan.env)
            registry.provider(episode.env)  # an environment nobody registered fails here, in one line
            async with pool.env(episode.ref, plan.max_steps) as env:
                envs.append(env)
                # an agent that runs code gets a runner whose worker started during the last episode
                runner = self._spares.take() if agents.agent_class(agent_name).answers_are_code else None
                agent = agents.build_agent(self._spec(agent_name), env, llm, runner)
                # profiles: a resume of this journal goes on with the same model
                writer = JournalWriter(folder, session_header(episode, agent, plan.llm, profiles=plan.profiles))
                agent.observers.append(writer)
                agent.observers.append(trace)
                agent.observers.append(cached)
                finished = await self._drive(agent, episode_spec)
                score = env.score
        except asyncio.CancelledError:
            reason = self._given_up.get(folder)
            if reason is not None and agent is not None and writer is not None:  # ended by its wall clock
                finished = _give_up(agent, writer, reason)
                self._given_up_results[folder] = _result(episode_spec, finished, folder, tag, repeat, seed,
                                                         temperature, trace, cached, started, None)
            raise
        except EvalAborted:
            raise
        except Exception as exc:  # noqa: BLE001 - one broken episode must not stop the others
            error = f"{type(exc).__name__}: {exc}".splitlines()[0]
            return EpisodeResult(episode_spec.id, episode_spec.task_type, False, error, seconds=time.monotonic() - started,
                                 journal=str(folder), error=error, agent=tag, repeat=repeat, seed=seed,
                                 temperature=temperature)
        finally:
            if agent is not None:
                await asyncio.shield(agent.close())
            if writer is not None:
                writer.close()
        return _result(episode_spec, finished, folder, tag, repeat, seed, temperature, trace, cached, started, score)

    async def _drive(self, agent: Stepper, episode_spec: EpisodeSpec) -> ev.RunFinished:
        failures = 0
        while True:
            event = await agent.step()
            if self.on_event is not None:
                self.on_event(episode_spec, event)
            if isinstance(event, ev.LLMFailed):
                failures += 1
                if not self.abort_on_llm_error:
                    return await agent.stop(f"LLM error: {event.error}")
                if not event.retry:  # its one deadline passed: asking again would queue behind the abandoned call
                    raise EvalAborted(f"the LLM failed: {event.error}")
                if failures > self.llm_retries:
                    raise EvalAborted(f"the LLM failed {failures} times in a row: {event.error}")
                await asyncio.sleep(self.retry_delay * 2 ** (failures - 1))
                continue
            if isinstance(event, ev.LLMAnswered):
                failures = 0
            if isinstance(event, ev.RunFinished):
                return event


def _give_up(agent: Stepper, writer: JournalWriter, reason: str) -> ev.RunFinished:
    """End an episode its wall clock stopped, in its counts and its journal: the call it was waiting on is a
    failed call (its seconds are model time; the server may still bill it), and the run's end is recorded
    with everything counted so far, so the journal, its exports and the report agree."""
    if agent.cancelled_wait is not None:
        waited, role = agent.cancelled_wait
        agent.stats.failed(waited, role)
        writer(ev.LLMFailed(None, error=f"given up: {reason}", seconds=waited, role=role, retry=False))
    finished = agent.stats.finished(None, False, reason, agent.env.steps)
    writer(finished)
    return finished


def _result(episode_spec: EpisodeSpec, finished: ev.RunFinished, folder: Path, tag: str, repeat: int,
            seed: int | None, temperature: float | None, trace: FailureTrace, cached: "CachedCalls",
            started: float, score: float | None) -> EpisodeResult:
    """An episode's result from its run's last event: its counts, its time, why it failed."""
    error = finished.reason if finished.reason.startswith(("internal error", "replay mismatch")) else ""
    return EpisodeResult(
        game=episode_spec.id,
        task_type=episode_spec.task_type,
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
