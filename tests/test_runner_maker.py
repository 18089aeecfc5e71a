"""Where node code runs is chosen beside where the environment is made: `make_agent`'s `runner_maker`.

The command line passes none, so every run it starts has the sandbox; a behaviour test passes the
runtime's in-process runner and the run's own settings reach it.
"""

from __future__ import annotations

import pytest

from agent.runtime.thread_runner import ThreadRunner
from agent.sandbox.runner import SandboxRunner
from agent.sandbox.settings import RunnerSettings
from mockllm.human import HumanLLM
from recode_tui.setup.build import make_agent
from tests.settings import episode_named, run_settings


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


async def test_without_a_runner_maker_node_code_runs_in_the_sandbox() -> None:
    agent = make_agent(run_settings(), episode_named("toy:vase-1"), HumanLLM())
    try:
        assert isinstance(agent.runner, SandboxRunner) and agent.runner.check("open('x')") is not None
    finally:
        await agent.close()


async def test_a_runner_maker_gets_the_run_s_runner_settings_and_its_runner_runs_the_nodes() -> None:
    asked: list[RunnerSettings] = []

    def in_process(settings: RunnerSettings) -> ThreadRunner:
        asked.append(settings)
        return ThreadRunner(node_timeout=settings.node_timeout)

    agent = make_agent(run_settings(node_timeout=2.5), episode_named("toy:vase-1"), HumanLLM(), runner_maker=in_process)
    try:
        assert asked == [RunnerSettings(node_timeout=2.5)]
        assert isinstance(agent.runner, ThreadRunner) and agent.runner.node_timeout == 2.5
    finally:
        await agent.close()
