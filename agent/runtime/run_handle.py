"""The host's side of one run: `agent.host`, what the debugger, the journal, replay, eval and the console drive.

An agent author writes `episode()` with the helpers of `agent.runtime.stepper`; everything a
front end or a session does to the run goes through the agent's `RunHandle` instead: the
step loop (one event of `episode()` per `step()`), the observers told of each event, the count
of events so far, the replay queue of statements typed at a stop (a resume or fork fills it),
the LLM of each role (the console switches it), the call being waited on and the wait an eval
cancelled, the finished record, `stop`, `prepare` and `close`, and the environment's thread.
"""

from __future__ import annotations

import asyncio
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any, AsyncGenerator, AsyncIterator, Callable, TypeVar

from agent.llm import LLM
from agent.llm.routing import RoutedLLM
from agent.runtime.actions import TooManyRefusals
from agent.runtime.costs import MAIN_ROLE
from agent.runtime.events import Event, LLMFailed, RunFinished, StatementRun
from agent.runtime.prompts import PromptFileMissing
from agent.runtime.recorded import RecordedStatement, ReplayMismatch
from agent.runtime.runner import CodeRunner, EarlyStart
from envs.base import Env, Reset

T = TypeVar("T")


class EndRun(Exception):
    """Raised inside `episode()` to end the run at once, unsuccessfully: the message is the whole reason."""


class RunHandle:
    """Drives one agent's `episode()` one event at a time for its host, and holds what only the host sets.

    Built by the agent (`Stepper.__init__`) from its episode and its way of finishing, so no
    agent class inherits the loop and no author meets its names.
    """

    def __init__(self, episode: Callable[[], AsyncIterator[Event]], finish: Callable[[bool, str], RunFinished],
                 env: Env, runner: CodeRunner, llm: LLM, *, warm_runner: bool) -> None:
        self._episode, self._finish = episode, finish
        self.env = env
        self.runner = runner
        self._warm_runner = warm_runner  # its answers run in the runner: `prepare` starts the worker early
        self.llm = llm  # the LLM of every role that has none of its own (the console's L switches it)
        self.role_llms: dict[str, LLM] = {}
        self.preset = ""  # the named preset the run was built with (agent.agents.presets), for the journal
        self.observers: list[Callable[[Event], None]] = []  # e.g. the session journal
        self.finished: RunFinished | None = None
        self.events_emitted = 0  # events so far (statements in, LLM failures out): where a statement ran
        # A replay's recorded statements (`!` at a stop), each run again after the same event count.
        self.replay_queue: deque[RecordedStatement] = deque()
        self.answering_since: float | None = None  # monotonic time the LLM was asked, while it answers
        self.cancelled_wait: tuple[float, str] | None = None  # seconds and role of a call cancelled while it waited
        self._last_node: str | None = None
        self._env_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="env")
        self._prepared: asyncio.Future[Reset] | None = None  # `prepare()`'s reset, taken by `reset_env`
        self._events: AsyncGenerator[Event, None] = self._drive()

    # -- the LLMs by role -----------------------------------------------------------

    def llm_for(self, role: str = MAIN_ROLE) -> LLM:
        """The LLM that answers a call of `role`: its own, else the routed one's part, else the main one."""
        own = self.role_llms.get(role)
        if own is not None:
            return own
        # one LLM per role handed over whole (a fork's hand-back)
        return self.llm.for_role(role) if isinstance(self.llm, RoutedLLM) else self.llm

    def set_llm(self, llm: LLM, role: str | None = None) -> None:
        """Give `role` its own LLM; no role: the LLM of every role without one of its own."""
        if role is None or role == MAIN_ROLE:
            self.llm = llm
        else:
            self.role_llms[role] = llm

    # -- the loop ------------------------------------------------------------------------

    async def step(self) -> Event:
        """Do the next smallest unit of work and say what happened."""
        if self.finished is not None:
            return self.finished
        if self.replay_queue and self.replay_queue[0].after <= self.events_emitted:
            return await self._replay_statement(self.replay_queue.popleft())
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
        early = self.runner.ensure_started() if self._warm_runner and isinstance(self.runner, EarlyStart) else None
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
            async for event in self._episode():
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
