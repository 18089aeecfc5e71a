"""Where an evaluation's episodes are played: the seam between scheduling them and playing them.

`Evaluation` (`agent.eval.batch`) decides which episode runs next, where its journal goes and when
the report is written; an `EpisodeExecutor` plays one episode and returns its `EpisodeResult`.
`LocalExecutor` plays here, an environment from a pool per episode (the command line's pool runs
each in a worker process); `recode_tui.commands.ray_eval.RayExecutor` sends each episode to a Ray
cluster, where a `LocalExecutor` plays it. Both keep the same failure policy, written here:

- an episode that crashes (its worker dies, the agent raises) is a failed result with its `error`;
- an episode over its wall clock (`plan.episode_timeout`) is ended, its code worker and environment
  closed (an environment in a worker process is killed, so a blocked step returns), and recorded failed;
- an LLM error of a remote model (after the client's own retries and `llm_retries` more) raises
  `EvalAborted`: the evaluation stops, the episodes in flight are not recorded;
- an LLM error of a scripted LLM only fails its episode.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Protocol, runtime_checkable

from agent import agents
from agent.eval.failure import FailureTrace
from agent.eval.report import EvalReport
from agent.eval.results import EpisodeResult, EpisodeSpec, wall_clock_reason
from agent.llm import LLM
from agent.llm.profiles import Profile
from agent.runtime import events as ev
from agent.run.spec import AgentChoice, RunSpec
from agent.runtime.prompts import PromptSet, moved_prompt_set
from agent.runtime.stepper import Stepper
from agent.sandbox.settings import RunnerSettings, SpareRunners
from agent.sandbox.walls import SandboxPolicy
from agent.sessions.journal import JournalWriter
from agent.sessions.session import session_header
from envs import registry
from envs.base import Env
from envs.registry import EpisodeRef

# An episode's LLM: (the episode, the agent playing it in a comparison, else None). A comparison asks per
# agent (each agent's own demo script); one agent's evaluation asks for the episode's.
LLMFactory = Callable[[EpisodeSpec, "str | None"], LLM]
EventHook = Callable[[EpisodeSpec, ev.Event], None]


class EnvSource(Protocol):
    """Where `LocalExecutor` takes each episode's environment from, for the length of the episode
    (`recode_tui.setup.env_workers.EnvPool`: worker processes)."""

    def env(self, episode_ref: str, max_steps: int | None) -> AbstractAsyncContextManager[Env]: ...

    async def close(self) -> None: ...


EnvSourceFactory = Callable[[int], EnvSource]  # lanes -> the source for that many episodes at a time


@dataclass(frozen=True)
class EpisodeJob:
    """One play to make: the episode, the agent, which repeat, and the folder its journal goes in."""

    spec: EpisodeSpec
    agent: str
    repeat: int
    journal: Path


class EpisodeExecutor(Protocol):
    """Plays an evaluation's episodes, `lanes` at a time; `Evaluation` schedules them and keeps the report."""

    async def open(self, lanes: int) -> None:
        """Get ready to play `lanes` episodes at once (start workers, join a cluster's tasks)."""

    async def play(self, job: EpisodeJob) -> EpisodeResult:
        """The episode's result (a failed one for anything but `EvalAborted` or cancellation)."""

    async def close(self) -> None:
        """Release what `open` started."""


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


class LocalExecutor:
    """Plays each episode in this process: its LLM, an environment from the source, the agent, its journal."""

    def __init__(self, report: EvalReport, llm_for: LLMFactory, envs: EnvSourceFactory, *,
                 abort_on_llm_error: bool = False, llm_retries: int = 2, retry_delay: float = 1.0,
                 on_start: Callable[[EpisodeSpec], None] | None = None, on_event: EventHook | None = None,
                 sandbox: SandboxPolicy = SandboxPolicy(), cache_folder: Path | None = None) -> None:
        """`sandbox`: the walls and layers every episode's node code gets, as the edge resolved them;
        `cache_folder`: where the response cache is kept when the plan names no folder (None: the user
        cache dir; the edge passes $RECODE_TUI_CACHE's)."""
        plan = report.plan
        self.plan = plan
        self.llm_for = llm_for
        self.envs = envs
        self.abort_on_llm_error = abort_on_llm_error
        self.llm_retries = llm_retries
        self.retry_delay = retry_delay
        self.on_start = on_start
        self.on_event = on_event
        recorded = moved_prompt_set(Path(plan.run.prompts.path)) if plan.run.prompts.path else None
        self._prompts = PromptSet(recorded) if recorded else None  # None: the agent's own
        # every episode's runner comes from the one place user paths get theirs: sandboxed, checked unless trusted
        self._runner_settings = replace(plan.run.runner, sandbox=sandbox)  # the walls the edge resolved for this run
        self._spares = SpareRunners(self._runner_settings)  # replaced by `open` with one spare per lane
        self._source: EnvSource | None = None
        # episodes their wall clock ended (journal folder -> reason), and what their agent had counted by then
        self._given_up: dict[Path, str] = {}
        self._given_up_results: dict[Path, EpisodeResult] = {}
        self._cache_folder = None
        if plan.cache != "off":
            from agent.llm.cache import default_folder

            self._cache_folder = Path(plan.cache_dir) if plan.cache_dir else cache_folder or default_folder()

    async def open(self, lanes: int) -> None:
        self._source = self.envs(lanes)
        self._spares = SpareRunners(self._runner_settings, lanes)

    async def close(self) -> None:
        if self._source is not None:
            await asyncio.shield(self._source.close())
        await asyncio.shield(self._spares.close())

    def _spec(self, agent: str) -> RunSpec:
        """What builds `agent` for every episode of the plan: its options, the plan's limits, prompts,
        preset and runner settings."""
        return replace(self.plan.run, agent=AgentChoice(agent, self.plan.options_for(agent)))

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

        if self.plan.repeat <= 1 or not any(sampled(p) for p in parts):
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

        return with_cache(llm, self._cache_folder, always=self.plan.cache == "on", ttl=self.plan.cache_ttl,
                          repeat=repeat)

    async def play(self, job: EpisodeJob) -> EpisodeResult:
        """One episode within its wall clock; anything but an LLM outage or cancellation ends as a result."""
        limit = self.plan.episode_timeout
        started = time.monotonic()
        envs: list[Env] = []  # the episode's environment, once the source gave it
        play = asyncio.ensure_future(self._play(job, envs))
        try:
            done, _ = await asyncio.wait({play}, timeout=limit if limit > 0 else None)
        except asyncio.CancelledError:
            play.cancel()
            await asyncio.gather(play, return_exceptions=True)
            raise
        if play in done:
            return play.result()
        reason = wall_clock_reason(limit)
        self._given_up[job.journal] = reason
        for env in envs:
            env.abandon(reason)  # a step blocked in its process returns, so the episode can end
        play.cancel()  # the play's own clean-up closes the agent (its code worker) and the environment
        await asyncio.gather(play, return_exceptions=True)
        self._given_up.pop(job.journal, None)
        counted = self._given_up_results.pop(job.journal, None)  # its calls were billed: the report counts them
        if counted is not None:
            counted.seconds, counted.error = time.monotonic() - started, reason
            return counted
        return EpisodeResult(job.spec.id, job.spec.task_type, False, reason, seconds=time.monotonic() - started,
                             journal=str(job.journal), error=reason, agent=self._tag(job), repeat=job.repeat)

    def _tag(self, job: EpisodeJob) -> str:
        return job.agent if self.plan.multi else ""

    async def _play(self, job: EpisodeJob, envs: list[Env]) -> EpisodeResult:
        """The episode itself: its LLM, its environment from the source, its agent and journal."""
        plan, spec = self.plan, job.spec
        if self._source is None:
            raise RuntimeError("LocalExecutor.play before open")
        started = time.monotonic()
        seed: int | None = None
        temperature: float | None = None
        if self.on_start is not None:
            self.on_start(spec)
        agent: Stepper | None = None
        writer: JournalWriter | None = None
        trace, cached = FailureTrace(), CachedCalls()
        try:
            # may block (gold: the simulator computes a path)
            llm = await asyncio.to_thread(self.llm_for, spec, job.agent if plan.multi else None)
            llm, seed, temperature = self._for_repeat(llm, job.repeat)
            llm = self._cached(llm, job.repeat if plan.repeat > 1 else None)
            episode = EpisodeRef.parse(spec.id, plan.run.env.name)
            registry.provider(episode.env)  # an environment nobody registered fails here, in one line
            async with self._source.env(episode.ref, plan.run.max_steps) as env:
                envs.append(env)
                # an agent that runs code gets a runner whose worker started during the last episode
                runner = self._spares.take() if agents.agent_class(job.agent).traits.answers_are_code else None
                agent = agents.build_agent(self._spec(job.agent), env, llm, runner, prompts=self._prompts)
                # profiles: a resume of this journal goes on with the same model
                writer = JournalWriter(job.journal, session_header(episode, agent, plan.run.model.llm,
                                                                   profiles=plan.run.model.profiles, spec=plan.run))
                agent.host.observers.append(writer)
                agent.host.observers.append(trace)
                agent.host.observers.append(cached)
                finished = await self._drive(agent, spec)
                score = env.score
        except asyncio.CancelledError:
            reason = self._given_up.get(job.journal)
            if reason is not None and agent is not None and writer is not None:  # ended by its wall clock
                finished = _give_up(agent, writer, reason)
                self._given_up_results[job.journal] = _result(job, self._tag(job), finished, seed, temperature,
                                                              trace, cached, started, None)
            raise
        except EvalAborted:
            raise
        except Exception as exc:  # noqa: BLE001 - one broken episode must not stop the others
            error = f"{type(exc).__name__}: {exc}".splitlines()[0]
            return EpisodeResult(spec.id, spec.task_type, False, error, seconds=time.monotonic() - started,
                                 journal=str(job.journal), error=error, agent=self._tag(job), repeat=job.repeat,
                                 seed=seed, temperature=temperature)
        finally:
            if agent is not None:
                await asyncio.shield(agent.close())
            if writer is not None:
                writer.close()
        return _result(job, self._tag(job), finished, seed, temperature, trace, cached, started, score)

    async def _drive(self, agent: Stepper, spec: EpisodeSpec) -> ev.RunFinished:
        failures = 0
        while True:
            event = await agent.step()
            if self.on_event is not None:
                self.on_event(spec, event)
            if isinstance(event, ev.LLMFailed):
                failures += 1
                if not self.abort_on_llm_error:
                    return await agent.host.stop(f"LLM error: {event.error}")
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
    if agent.host.cancelled_wait is not None:
        waited, role = agent.host.cancelled_wait
        agent.stats.failed(waited, role)
        writer(ev.LLMFailed(None, error=f"given up: {reason}", seconds=waited, role=role, retry=False))
    finished = agent.stats.finished(None, False, reason, agent.env.steps)
    writer(finished)
    return finished


def _result(job: EpisodeJob, tag: str, finished: ev.RunFinished, seed: int | None, temperature: float | None,
            trace: FailureTrace, cached: CachedCalls, started: float, score: float | None) -> EpisodeResult:
    """An episode's result from its run's last event: its counts, its time, why it failed."""
    error = finished.reason if finished.reason.startswith(("internal error", "replay mismatch")) else ""
    return EpisodeResult(
        game=job.spec.id,
        task_type=job.spec.task_type,
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
        journal=str(job.journal),
        error=error,
        score=score,
        failure=None if finished.success else trace.describe(finished),
        agent=tag,
        roles=dict(finished.extra.get("roles") or {}),
        cached_calls=cached.count,
        repeat=job.repeat,
        seed=seed,
        temperature=temperature,
    )
