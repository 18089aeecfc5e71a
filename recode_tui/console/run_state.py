"""Where the console's run stands: one value the status line and the key bindings follow."""

from __future__ import annotations

from enum import Enum


class RunState(str, Enum):
    """A `str` enum, so the status line shows it as text and old comparisons with strings hold."""

    STARTING = "starting"
    RUNNING = "running"
    PAUSED = "paused"
    AWAITING = "awaiting expansion"
    REVIEWING = "reviewing"
    DONE = "done"

    def __str__(self) -> str:
        return self.value


# Keys that move the run: greyed in the footer once the episode has ended.
STEPPING_ACTIONS = frozenset({"step", "run_to_here"})
