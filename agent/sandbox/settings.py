"""Where every agent gets its code runner and its checks: one place.

Run, console, eval, resume, fork and the prompt workspace all build their
runner from `RunnerSettings`, so no path runs model code without the
sandbox's checks because someone forgot to pass a runner. Model code always
runs in the sandboxed worker process; `trusted` only drops the static checks
(process isolation and limits stay). The in-process `ThreadRunner` is for the
agent's own tests and is never built here.

A session's journal header records the settings (its run record's `runner`), the
run's seed for node code's `random` included; resuming rebuilds them from
there, so a replay draws the same numbers, except trust: a journal can only make a resume
trusted if the user asks again (`--trusted`), so a journal written by an old
version (which recorded an unchecked in-process runner as trusted) or an
edited one cannot switch the checks off.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from agent.sandbox.walls import SandboxPolicy, in_force

if TYPE_CHECKING:  # the runner (and the runtime under it) loads only when a run makes one: `--help` stays light
    import asyncio

    from agent.runtime.runner import CodeRunner
    from agent.sandbox.runner import SandboxRunner

DEFAULT_NODE_TIMEOUT = 5.0
# A field of a run's record that is not a setting two runs are compared by (`agent.run.spec.differences`).
NOT_A_SETTING = {"setting": False}


@dataclass(frozen=True)
class RunnerSettings:
    """How node code runs: with or without the static checks, each node's time limit, the run's seed,
    and the sandbox's walls and layers.

    `seed` None: each runner made picks its own (a fresh run); a resume passes the recorded one.
    `sandbox`: the policy the edge resolved (`RECODE_SANDBOX*`, `--sandbox`); it travels here, to every
    runner and to eval's Ray tasks, never through the process environment.
    """

    trusted: bool = False
    node_timeout: float = DEFAULT_NODE_TIMEOUT
    seed: int | None = field(default=None, metadata=NOT_A_SETTING)  # each run draws its own
    sandbox: SandboxPolicy = SandboxPolicy()  # the user's walls and layers (a record may only add walls)

    def __post_init__(self) -> None:
        if not self.node_timeout > 0:
            raise ValueError("--node-timeout must be more than 0 seconds")

    def make_runner(self) -> SandboxRunner:
        """A fresh sandboxed runner (its worker starts at the first node)."""
        from agent.sandbox.runner import SandboxRunner

        return SandboxRunner(trusted=self.trusted, node_timeout=self.node_timeout, seed=self.seed, policy=self.sandbox)

    @staticmethod
    def in_force(runner: object) -> str | None:
        """The sandbox a runner's node code has (`walls.in_force`); None for a runner not built here."""
        from agent.sandbox.runner import SandboxRunner

        if not isinstance(runner, SandboxRunner):
            return None
        return in_force(runner.policy, runner.trusted)

    @classmethod
    def of_runner(cls, runner: object) -> "RunnerSettings | None":
        """The settings a runner was built with; None for a runner not built here (tests' ThreadRunner)."""
        from agent.sandbox.runner import SandboxRunner

        if not isinstance(runner, SandboxRunner):
            return None
        return cls(trusted=runner.trusted, node_timeout=runner.node_timeout, seed=runner.seed, sandbox=runner.policy)


RunnerMaker = Callable[[RunnerSettings], "CodeRunner"]
"""Where node code runs, made from the run's runner settings, instead of `RunnerSettings.make_runner`:
the command line never passes one (the sandbox); console-behaviour tests pass the in-process
`ThreadRunner`, for the run they start and every replay of it (resume, rewind, fork)."""


class SpareRunners:
    """Runners whose worker is already started, for an evaluation's next episodes.

    Each episode that runs code takes one and a replacement starts in the background, so the
    sandbox worker's start (about 40 ms, longer than a game's load) is off the episode's path.
    Every runner is still fresh (a worker never serves two episodes); `close` ends the spares.
    """

    def __init__(self, settings: RunnerSettings, size: int = 1) -> None:
        self.settings = settings
        self.size = max(1, size)
        self._spares: list[SandboxRunner] = []
        self._starting: set[asyncio.Task[None]] = set()

    def take(self) -> SandboxRunner:
        """A runner for an episode about to start (a spare if one is ready to hand), and a new spare behind it."""
        from asyncio import ensure_future

        runner = self._spares.pop(0) if self._spares else self.settings.make_runner()
        while len(self._spares) < self.size:
            spare = self.settings.make_runner()
            self._spares.append(spare)
            task = ensure_future(self._start(spare))
            self._starting.add(task)
            task.add_done_callback(self._starting.discard)
        return runner

    @staticmethod
    async def _start(runner: SandboxRunner) -> None:
        try:
            await runner.ensure_started()
        except Exception:  # noqa: BLE001 - a worker that cannot start is reported by its episode's first node
            pass

    async def close(self) -> None:
        """End the spares no episode took (their starts are awaited first, so no worker is left behind)."""
        from asyncio import gather

        if self._starting:
            await gather(*self._starting, return_exceptions=True)
        spares, self._spares = self._spares, []
        for runner in spares:
            await runner.close()
