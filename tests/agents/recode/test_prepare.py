"""`prepare()`: a front end starts the episode's reset (and the code worker) while it draws.

The console calls it before mounting its screen, so the run is ready to step sooner. What the person sees
must be what an unprepared run shows: one reset, the same first events, an error where it was,
and no worker left running when the run is closed unstepped.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from agent.agents.recode.engine import Engine
from agent.runtime import events as ev
from agent.runtime.thread_runner import ThreadRunner
from agent.sandbox.settings import RunnerSettings
from envs.registry import make_env
from envs.base import EnvError
from mockllm.scripted import ScriptedLLM


class CountingResets:
    """The toy environment, counting its resets (and failing them when asked)."""

    def __init__(self, env, fail: bool = False) -> None:
        self.env, self.fail, self.resets = env, fail, 0

    def __getattr__(self, name):  # dynamic: the wrapped environment's other members
        return getattr(self.env, name)

    def reset(self):
        self.resets += 1
        if self.fail:
            raise EnvError("the game file is malformed, regenerate it or pick another game")
        return self.env.reset()


async def first_events(agent: Engine, count: int) -> list[ev.Event]:
    return [await agent.step() for _ in range(count)]


@pytest.mark.heavy  # the sandbox worker: prepare starts it with the reset
async def test_a_prepared_run_shows_the_same_first_events_after_one_reset(toy_game):
    plain = Engine(make_env(toy_game), ScriptedLLM([]), RunnerSettings().make_runner())
    env = CountingResets(make_env(toy_game))
    prepared = Engine(env, ScriptedLLM([]), RunnerSettings().make_runner())
    try:
        prepared.host.prepare()
        prepared.host.prepare()  # a second call starts nothing more
        # the reset and the sandbox worker are done before the first step: wait for that state
        deadline = time.monotonic() + 60
        while not (env.resets == 1 and prepared.runner.worker_pid is not None) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
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
        agent = Engine(CountingResets(make_env(toy_game), fail=True), ScriptedLLM([]), ThreadRunner())  # in-process:
        try:  # the reset's failure is what this checks, not the worker
            if prepare:
                agent.host.prepare()
                await asyncio.sleep(0.1)
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
    await asyncio.sleep(0.5)  # a start left running would bring a worker up after the close
    assert agent.runner.worker_pid is None
