"""Where the console's run stands: one value the status line and the key bindings follow."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from textual.message import Message


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
# ctrl+s hands an answer to the run only while one is awaited: typed by the person or under review.
SUBMIT_STATES = frozenset({RunState.AWAITING, RunState.REVIEWING})


def action_enabled(action: str, state: RunState) -> bool:
    """Whether a key of the debug screen can act in `state`; a key that cannot is greyed."""
    if action in STEPPING_ACTIONS:
        return state is not RunState.DONE
    if action == "submit":
        return state in SUBMIT_STATES
    return True


def keys_differ(old: RunState, new: RunState) -> bool:
    """True when going from `old` to `new` greys a key or brings one back (the footer is redrawn)."""
    return (old is RunState.DONE, old in SUBMIT_STATES) != (new is RunState.DONE, new in SUBMIT_STATES)


@dataclass
class RunStateChanged(Message):
    """A helper's word on where the run stands; the debug screen that owns the run sets it.

    `reason` (with its `kind`, as on the status line) is said with it when given.
    """

    state: RunState
    kind: str = ""
    reason: str = ""
