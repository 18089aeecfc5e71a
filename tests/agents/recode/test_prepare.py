"""`prepare()`: a front end starts the episode's reset (and the code worker) while it draws.

The console calls it before mounting its screen, so the run is ready to step sooner. What the person sees
must be what an unprepared run shows: one reset, the same first events, an error where it was,
and no worker left running when the run is closed unstepped.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from agent.agents.recode.engine import Engine
from agent.runtime import events as ev
from agent.runtime.thread_runner import ThreadRunner
from agent.sandbox.settings import RunnerSettings
from envs.registry import make_env
from envs.base import EnvError
from mockllm.scripted import ScriptedLLM


HANG = 60.0  # bounds a broken prepare's hang only


class CountingResets:
    """The toy environment, counting its resets (and failing them when asked); `ended` is set once one ends."""

    def __init__(self, env, fail: bool = False) -> None:
        self.env, self.fail, self.resets = env, fail, 0
        self.ended = threading.Event()  # the reset runs in the run's environment thread

    def __getattr__(self, name):  # dynamic: the wrapped environment's other members
        return getattr(self.env, name)

    def reset(self):
        self.resets += 1
        try:
            if self.fail:
                raise EnvError("the game file is malformed, regenerate it or pick another game")
            return self.env.reset()
        finally:
            self.ended.set()

    async def reset_ended(self) -> None:
        assert await asyncio.to_thread(self.ended.wait, HANG), "the prepared reset never ended"


def worker_started(runner) -> asyncio.Future[None]:
    """A future resolved once the runner's early start (`ensure_started`, what `prepare` calls) has ended."""
    started: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    start = runner.ensure_started

    async def ensure_started() -> None:
        try:
            await start()
        finally:
            if not started.done():
                started.set_result(None)

    runner.ensure_started = ensure_started
    return started


async def first_events(agent: Engine, count: int) -> list[ev.Event]:
    return [await agent.step() for _ in range(count)]


@pytest.mark.heavy  # the sandbox worker: prepare starts it with the reset
async def test_a_prepared_run_shows_the_same_first_events_after_one_reset(toy_game):
    plain = Engine(make_env(toy_game), ScriptedLLM([]), RunnerSettings().make_runner())
    env = CountingResets(make_env(toy_game))
    prepared = Engine(env, ScriptedLLM([]), RunnerSettings().make_runner())
    try:
        started = worker_started(prepared.runner)
        prepared.host.prepare()
        prepared.host.prepare()  # a second call starts nothing more
        # the reset and the sandbox worker are done before the first step: await both
        await env.reset_ended()
        await asyncio.wait_for(started, HANG)
        assert env.resets == 1 and prepared.runner.worker_pid is not None
        ours, theirs = await first_events(prepared, 3), await first_events(plain, 3)
        assert [e.kind for e in ours] == [e.kind for e in theirs]
        assert ours[0].observation == theirs[0].observation and env.resets == 1
    finally:
        await prepared.close()
        await plain.close()


async def test_a_prepared_reset_that_fails_ends_the_run_as_an_unprepared_one_does(toy_game):
    results = []
    for prepare in (False, True):
        env = CountingResets(make_env(toy_game), fail=True)
        agent = Engine(env, ScriptedLLM([]), ThreadRunner())  # in-process:
        try:  # the reset's failure is what this checks, not the worker
            if prepare:
                agent.host.prepare()
                await env.reset_ended()  # the prepared reset has failed before the first step
            try:
                event = await agent.step()
                results.append(f"{event.kind}: {getattr(event, 'reason', '')}")  # dynamic: a RunFinished, or not
            except EnvError as error:
                results.append(f"raised: {error}")
        finally:
            await agent.close()
    assert results[0] == results[1] and "malformed" in results[0]


@pytest.mark.heavy  # the sandbox worker: a start under way when the run closes
async def test_a_prepared_run_closed_unstepped_leaves_no_worker(toy_game):
    agent = Engine(CountingResets(make_env(toy_game), fail=True), ScriptedLLM([]), RunnerSettings().make_runner())
    agent.host.prepare()
    await agent.close()  # at once: the prepared reset and the worker's start are still under way
    # a start left running would bring a worker up after the close: await whatever the run left in the loop
    left = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    await asyncio.wait_for(asyncio.gather(*left, return_exceptions=True), HANG)
    assert agent.runner.worker_pid is None
