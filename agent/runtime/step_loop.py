"""The stepping loop under every agent: one event per `step()`, its observers, statements typed at a stop, and the end.

Apart from `agent.runtime.stepper`, which is the extension API an agent
author writes against (`open_episode`, `ask`, `act`, `run_code`, `started`,
`completed`, `finish`, ...): this is the plumbing the debugger, the journal,
replay and eval drive, and no agent overrides. A subclass supplies
`episode()` and `_finish()`.
"""

from __future__ import annotations

import asyncio
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any, AsyncGenerator, AsyncIterator, Callable, ClassVar, TypeVar

from agent.runtime.actions import TooManyRefusals
from agent.runtime.events import AgentNote, Event, LLMFailed, RunFinished, StatementRun
from agent.runtime.prompts import PromptFileMissing
from agent.runtime.recorded import RecordedStatement, ReplayMismatch
from agent.runtime.runner import CodeRunner, EarlyStart
from envs.base import Env, Reset

T = TypeVar("T")


class EndRun(Exception):
    """Raised inside `episode()` to end the run at once, unsuccessfully: the message is the whole reason."""


class StepLoop:
    """Drives a subclass's `episode()` one event at a time and tells the observers."""

    answers_are_code: ClassVar[bool] = False  # its answers run in the runner (whose worker `reset_env` starts)

    def __init__(self, env: Env, runner: CodeRunner) -> None:
        self.env = env
        self.runner: CodeRunner = runner
        self.observers: list[Callable[[Event], None]] = []  # e.g. the session journal
        self.finished: RunFinished | None = None
        self.events_emitted = 0  # events so far (statements in, LLM failures out): where a statement ran
        self.notes: list[AgentNote] = []  # the agent's decisions so far (replans, re-injections), for its view
        self._last_node: str | None = None
        # A replay's recorded statements (`!` at a stop), each run again after the same event count.
        self.pending_statements: deque[RecordedStatement] = deque()
        self._env_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="env")
        self._prepared: asyncio.Future[Reset] | None = None  # `prepare()`'s reset, taken by `reset_env`
        self._events: AsyncGenerator[Event, None] = self._drive()

    # -- what the subclass supplies --------------------------------------------------

    def episode(self) -> AsyncIterator[Event]:
        raise NotImplementedError(f"{type(self).__name__} must define episode()")

    def _finish(self, success: bool, reason: str) -> RunFinished:
        raise NotImplementedError

    # -- the loop ------------------------------------------------------------------------

    async def step(self) -> Event:
        """Do the next smallest unit of work and say what happened."""
        if self.finished is not None:
            return self.finished
        if self.pending_statements and self.pending_statements[0].after <= self.events_emitted:
            return await self._replay_statement(self.pending_statements.popleft())
        try:
            event = await self._events.__anext__()
        except StopAsyncIteration:  # pragma: no cover - _drive always ends with RunFinished
            assert self.finished is not None
            return self.finished
        if isinstance(event, RunFinished):
            self.finished = event
            self._env_thread.shutdown(wait=False)
        self._notify(event)
        return event

    async def run_statement(self, code: str) -> StatementRun:
        """Run the person's statement or expression at a stop, through the runner and its checks.

        Raises with the one-line reason when it is refused or raises (nothing changed then).
        The event goes to the observers, so the journal keeps it for replays.
        """
        if self.finished is not None:
            raise RuntimeError("the run has ended")
        value, changes = await self.runner.execute(code)
        event = StatementRun(self._last_node, code=code, value=value, changes=changes, after=self.events_emitted)
        if changes or not _is_expression(code):  # a look that changed nothing needs no replay
            self._notify(event)
        return event

    async def _replay_statement(self, recorded: RecordedStatement) -> Event:
        try:
            value, changes = await self.runner.execute(recorded.code)
        except Exception as exc:  # noqa: BLE001 - the recording said it ran
            return await self.stop(f"replay mismatch: the statement `{recorded.code}` typed at a stop "
                                   f"now fails: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
        event = StatementRun(self._last_node, code=recorded.code, value=value, changes=changes,
                             after=self.events_emitted)
        self._notify(event)
        return event

    def _notify(self, event: Event) -> None:
        if not isinstance(event, LLMFailed):  # a replay answers from the journal: no failures to count
            self.events_emitted += 1
        if event.node_id is not None:
            self._last_node = event.node_id
        if isinstance(event, AgentNote):
            self.notes.append(event)
        for observer in self.observers:
            observer(event)

    @property
    def done(self) -> bool:
        return self.finished is not None

    async def run(self, on_event: Callable[[Event], Any] | None = None) -> RunFinished:
        """A batch run: step until the end. Nobody is there to fix an LLM failure, so it ends the run."""
        while True:
            event = await self.step()
            if isinstance(event, LLMFailed):
                event = await self.stop(f"LLM error: {event.error}")
            if on_event is not None:
                on_event(event)
            if isinstance(event, RunFinished):
                return event

    async def stop(self, reason: str) -> RunFinished:
        """End the run now (unsuccessful) with a reason; later `step()`s return the same result."""
        if self.finished is None:
            await self._events.aclose()
            self.finished = self._finish(self.env.won, "won" if self.env.won else reason)
            self._env_thread.shutdown(wait=False)
            self._notify(self.finished)
        return self.finished

    async def close(self) -> None:
        prepared, self._prepared = self._prepared, None
        if prepared is not None:  # prepared and never stepped: let the reset end before the runner closes
            await asyncio.gather(prepared, return_exceptions=True)
        await self.runner.close()
        self._env_thread.shutdown(wait=False)

    def prepare(self) -> None:
        """Start the episode's slow first work now, in the background: the environment's reset and the code
        worker. A front end calls it while it draws (the console, before mounting its screen); the episode's
        `reset_env` then finds them done. Events are still emitted only by `step()`."""
        if self._prepared is None and self.finished is None and self.events_emitted == 0:
            self._prepared = asyncio.ensure_future(self._reset_and_warm())
            self._prepared.add_done_callback(_retrieved)

    async def reset_env(self) -> Reset:
        """Reset the environment in its thread: the reset `prepare()` started, if it did, else one now.

        Only a prepared episode (the console) starts its code worker during the reset; `eval` starts
        each episode's worker during the episode before (`SpareRunners`), and `run` waits the 40 ms once.
        """
        prepared, self._prepared = self._prepared, None
        if prepared is not None:
            return await prepared
        return await self.in_env_thread(self.env.reset)

    async def _reset_and_warm(self) -> Reset:
        """The reset, with the sandbox worker's start (about 40 ms) overlapping it (`prepare`)."""
        early = self.runner.ensure_started() if self.answers_are_code and isinstance(self.runner, EarlyStart) else None
        warming = asyncio.ensure_future(early) if early is not None else None
        try:
            return await self.in_env_thread(self.env.reset)
        finally:
            if warming is not None:
                try:
                    await warming
                except Exception:  # noqa: BLE001 - a worker that cannot start is reported by the first node
                    pass

    async def in_env_thread(self, fn: Callable[..., T], *args: Any) -> T:
        """Call `fn(*args)` in the environment's own thread (environments may block; the console must not)."""
        return await asyncio.get_running_loop().run_in_executor(self._env_thread, fn, *args)

    async def _drive(self) -> AsyncGenerator[Event, None]:
        try:
            async for event in self.episode():
                yield event
        except ReplayMismatch as exc:
            yield self._finish(False, f"replay mismatch: {exc}")
        except (TooManyRefusals, PromptFileMissing, EndRun) as exc:  # the message is the whole reason
            yield self._finish(False, str(exc))
        except Exception as exc:  # noqa: BLE001 - an agent bug must still end the run cleanly
            yield self._finish(False, f"internal error: {type(exc).__name__}: {exc}")


def _is_expression(code: str) -> bool:
    try:
        compile(code, "<shell>", "eval")
    except (SyntaxError, ValueError):
        return False
    return True


def _retrieved(task: "asyncio.Future[Any]") -> None:
    """Mark a prepared reset's error as seen: it is raised again where the episode takes the reset."""
    if not task.cancelled():
        task.exception()
