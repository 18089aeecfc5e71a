from __future__ import annotations

from typing import Any, Awaitable, Callable

import pytest
import pytest_asyncio

from agent.runtime.runner import ActionRequest, NodeOutcome
from agent.sandbox.runner import SandboxRunner

NODE_TIMEOUT = 1.0
MEMORY_MB = 256
# The limit for code that runs until it is stopped, where what is checked is that it stops (and what is kept),
# not when: each such node costs its limit in CPU. Nodes that must complete run under NODE_TIMEOUT. Not shorter:
# the limit is the worker's wall time, and at 0.3 s a loaded machine (two suites at once) gave a node's first
# prints no turn before it ran out (the output-kept test saw none).
SPIN_TIMEOUT = 1.0


class FakeEnv:
    """Answers `run(action)` with a scripted observation and records the actions."""

    def __init__(self, script: dict[str, str] | None = None, default: str = "Nothing happens.") -> None:
        self.script = dict(script or {})
        self.default = default
        self.actions: list[str] = []

    def step(self, action: str) -> str:
        self.actions.append(action)
        return self.script.get(action, self.default)


async def _drive(
    runner: SandboxRunner,
    code: str,
    env: FakeEnv | None = None,
    stop_after: int | None = None,
    on_action: Callable[[ActionRequest], Awaitable[Any]] | None = None,
) -> NodeOutcome:
    """Run one node to its end, answering every action from `env`."""
    env = env or FakeEnv()
    await runner.start(code)
    while True:
        message = await runner.next_message()
        if isinstance(message, NodeOutcome):
            return message
        if on_action is not None:
            await on_action(message)
        observation = env.step(message.action)
        runner.answer(observation, stop=stop_after is not None and len(env.actions) >= stop_after)


async def started_runner(node_timeout: float):
    """A started sandbox runner with the tests' memory and output limits, closed when the generator ends."""
    r = SandboxRunner(node_timeout=node_timeout, memory_mb=MEMORY_MB, max_output_chars=10_000)
    await r.ensure_started()
    try:
        yield r
    finally:
        await r.close()


@pytest_asyncio.fixture
async def runner():
    async for r in started_runner(NODE_TIMEOUT):
        yield r


@pytest_asyncio.fixture
async def spinning_runner():
    """`runner` with the short limit (SPIN_TIMEOUT), for tests whose code runs until the limit ends it."""
    async for r in started_runner(SPIN_TIMEOUT):
        yield r


@pytest.fixture
def drive():
    """`await drive(runner, code, env=None, stop_after=None, on_action=None) -> NodeOutcome`."""
    return _drive


@pytest.fixture
def make_env():
    return FakeEnv
