"""The agent driver: runs debugger commands in a worker and reports by messages.

The UI never awaits the agent. A command (`next`, `continue`, a submitted
expansion) runs in a Textual worker; every agent event is buffered and
posted as one `Events` message per ~50 ms, so a `continue` over hundreds of
events costs a handful of re-renders; when the command ends, `Stopped` says
where and why. The flush is timed only while events wait in the buffer: an
idle console (most of a person's session) wakes for nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Awaitable, Callable

from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget

from agent.runtime import events as ev
from agent.runtime.debugger import Debugger, Stop, StepMode
from recode_tui.console.support.lazy_work import LazyWork

FLUSH_SECONDS = 0.05


class AgentDriver(Widget):
    """A non-visual widget owning the debugger and the one agent worker."""

    DEFAULT_CSS = "AgentDriver { display: none; }"

    @dataclass
    class Events(Message):
        """A batch of agent events, in order."""

        events: tuple[ev.Event, ...]

    @dataclass
    class Stopped(Message):
        """A command finished: the run is paused at `stop.event`."""

        result: Stop

    @dataclass
    class Started(Message):
        """A command began running the agent."""

        command: str

    @dataclass
    class Failed(Message):
        """A command raised (an agent bug or a refused submit); the text says what."""

        error: str

    def __init__(self, debugger: Debugger) -> None:
        super().__init__()
        self.debugger = debugger
        self._buffer: list[ev.Event] = []
        self._last_flush = 0.0
        self._flush_timer: Timer | None = None  # set while the buffer holds events not yet due
        self._active = False
        debugger.on_event = self._on_agent_event

    @property
    def busy(self) -> bool:
        return self._active or self.debugger.running

    def _on_agent_event(self, event: ev.Event) -> None:
        """Called by the debugger on the app's event loop (the worker's coroutine) for each event."""
        self._buffer.append(event)
        since = time.monotonic() - self._last_flush
        if since >= FLUSH_SECONDS:
            self.flush()
        elif self._flush_timer is None:  # the batch goes out when it is due, even if the command runs on
            self._flush_timer = self.set_timer(FLUSH_SECONDS - since, self.flush)

    def flush(self) -> None:
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        if self._buffer:
            batch, self._buffer = tuple(self._buffer), []
            self._last_flush = time.monotonic()
            self.post_message(self.Events(batch).set_sender(self))

    def step(self, mode: StepMode | str) -> bool:
        """Start a step command; False when one is already running."""
        mode = StepMode(mode)
        return self._start(mode.value, lambda: self.debugger.step(mode))

    def run_until(self, node_id: str) -> bool:
        """Continue until `node_id` starts; False when a command is already running."""
        return self._start("run to here", lambda: self.debugger.run_until(node_id))

    def submit(self, text: str) -> bool:
        return self._start("submit", lambda: self.debugger.submit(text))

    def pause(self) -> None:
        self.debugger.request_pause()

    def _start(self, command: str, call: Callable[[], Awaitable[Stop]]) -> bool:
        if self.busy:
            return False
        self._active = True
        self.post_message(self.Started(command).set_sender(self))
        # The coroutine is made when the worker starts: a key typed as the console closes starts a worker that
        # never runs, and a coroutine made for it would be reported "never awaited" in the person's terminal.
        self.run_worker(LazyWork(lambda: self._run(call)), group="agent", exit_on_error=False, name=command)
        return True

    async def _run(self, call: Callable[[], Awaitable[Stop]]) -> None:
        try:
            stop = await call()
        except Exception as exc:  # noqa: BLE001 - shown to the person, never crashes the UI
            self._active = False
            self.flush()
            self.post_message(self.Failed(f"{type(exc).__name__}: {exc}").set_sender(self))
            return
        self._active = False
        self.flush()
        self.post_message(self.Stopped(stop).set_sender(self))
