"""Typed settings for tests, built the way the command line's edge builds them.

Tests pass what they change and take the rest from the defaults a user gets, so a
new setting is one keyword here, not an edit of every call.
"""

from __future__ import annotations

from contextlib import asynccontextmanager, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, AsyncIterator, Iterator

import pytest

from agent.runtime.breakpoints import Breakpoint
from agent.runtime.thread_runner import ThreadRunner
from agent.runtime.limits import Limits
from agent.run.spec import AgentChoice, RunFlags, RunSpec
from agent.sandbox.settings import RunnerSettings
from recode_tui.setup.build import parse_episode, settings_of
from envs import registry
from envs.base import Env
from envs.registry import EpisodeRef
from recode_tui.setup.settings import ConsoleOptions, LLMSettings, RunOptions


def run_settings(
    *,
    agent: str | None = None,
    preset: str | None = None,
    max_steps: int | None = None,
    limits: Limits | None = None,
    prompts: str | Path | None = None,
    agent_options: dict[str, Any] | None = None,
    trusted: bool = False,
    node_timeout: float | None = None,
) -> RunSpec:
    """The settings `run`/`tui` would build from these flags (`limits` and `agent_options` as objects)."""
    settings = settings_of(RunFlags(agent=agent, preset=preset, max_steps=max_steps,
                                    prompts=str(prompts) if prompts is not None else None, trusted=trusted,
                                    node_timeout=node_timeout))
    if limits is not None:
        settings = replace(settings, limits=limits)
    if agent_options is not None:
        settings = replace(settings, agent=AgentChoice(settings.agent.name, dict(agent_options)))
    return settings


def episode_named(episode_ref: str | Path) -> EpisodeRef:
    """An episode as `--game` names it (`put-01`, `sciworld:boil/0`, `toy:coin-1`, a `.tw-pddl` path)."""
    return parse_episode(None, str(episode_ref))


def console_options(
    episode_ref: str | Path = "put-01",
    llm: str = "human",
    *,
    sessions_dir: str | Path | None = None,
    resume: str | Path | None = None,
    profiles: str | Path | None = None,
    llm_given: bool = False,
    breakpoints: list[Breakpoint] | None = None,
    keymap: dict[str, str] | None = None,
    review: bool = False,
    at: str | None = None,
    from_last_good: bool = False,
    cursor_blink: bool = False,
    **settings: Any,
) -> ConsoleOptions:
    """What `recode-tui tui --game GAME --llm LLM ...` parses to, with the console's test defaults:
    no journal unless `sessions_dir` or `resume` is given, the cursors still (steady screenshots).

    `settings`: `run_settings`'s keywords (agent, limits, max_steps, trusted, node_timeout, ...).
    """
    resumed = Path(resume) if resume is not None else None
    run = RunOptions("tui", episode_named(episode_ref), LLMSettings(llm, str(profiles) if profiles else None, given=llm_given),
                     run_settings(**settings), sessions=str(sessions_dir) if sessions_dir is not None else None,
                     resume=str(resume) if resume is not None else None, resumed=resumed,
                     from_last_good=from_last_good)
    return ConsoleOptions(run, keymap, tuple(breakpoints) if breakpoints is not None else None, review, at,
                          journaled=sessions_dir is not None or resume is not None, cursor_blink=cursor_blink)


def in_process(settings: RunnerSettings) -> ThreadRunner:
    """The runtime's own in-process runner with the run's node time limit (no static checks, no worker
    process): a `RunnerMaker` for tests whose subject is not the sandbox."""
    return ThreadRunner(node_timeout=settings.node_timeout)


IN_PROCESS_REPLAY: dict[str, Any] = {"runs_with": RunnerSettings(trusted=True), "runner_maker": in_process}
"""A replay's keywords (`resume_session`, `branch_session`) for a session recorded in-process: its node
code replays in the in-process runner, unchecked as it was recorded (the user's `--trusted`)."""


@contextmanager
def node_code_in_process() -> Iterator[None]:
    """Runs a command or the API starts meanwhile run their node code in-process (`in_process`) instead of the
    sandbox's worker: for tests of what a command writes or prints, not of the sandbox. The command line has no
    such choice (it always runs the sandbox): this swaps where `RunnerSettings` makes its runners."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(RunnerSettings, "make_runner", in_process)
        yield


class EnvsInThisProcess:
    """An evaluation's environments made in the test's own process (ScienceWorld's on the process's one JVM),
    where the command line's pool starts a worker process per lane, each with its own engine (a JVM for
    ScienceWorld): for tests of what an evaluation plays and reports, not of its workers
    (tests/envs/test_sciworld_cli.py plays ScienceWorld in the pool's workers)."""

    @asynccontextmanager
    async def env(self, episode_ref: str, max_steps: int | None) -> AsyncIterator[Env]:
        env = registry.make_env(episode_ref, max_steps)
        try:
            yield env
        finally:
            env.close()

    async def close(self) -> None:
        pass


@contextmanager
def episodes_in_this_process() -> Iterator[None]:
    """`eval` started meanwhile (the command, or the API's `local_executor`) makes its environments in this process
    (`EnvsInThisProcess`) instead of its pool's worker processes. The command line has no such choice: this swaps
    the pool `local_executor` builds."""
    from recode_tui.setup import env_workers

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(env_workers, "EnvPool", lambda size, **_: EnvsInThisProcess())
        yield
