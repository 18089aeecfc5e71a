"""A node's own time in the sandbox: the worker's running time, with the parent's turns (steps, breakpoints, helpers) left out.

Kept apart from `SandboxRunner` so the rule the time limit rests on is one
small thing: the clock runs only between `resume()` and `pause()`.
"""

from __future__ import annotations

import time


class NodeClock:
    """Seconds a node has run so far, counted in segments while the worker holds it."""

    def __init__(self) -> None:
        self.busy = 0.0  # finished segments
        self._start: float | None = None

    def reset(self) -> None:
        self.busy = 0.0
        self._start = None

    def resume(self) -> None:
        """The worker has the node again (started, answered, served)."""
        self._start = time.monotonic()

    def pause(self) -> None:
        """The parent has the turn: what follows is not the node's time."""
        if self._start is not None:
            self.busy += time.monotonic() - self._start
            self._start = None

    def remaining(self, limit: float) -> float:
        """Seconds left of `limit`, starting a segment if none runs."""
        if self._start is None:
            self._start = time.monotonic()
        return limit - self.busy - (time.monotonic() - self._start)
