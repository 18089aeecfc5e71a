"""What the parent accepts from a worker while a node runs: which frames, how large, and how much output.

The worker is treated as hostile (node code may have taken it over), so
nothing it sends may hold a node past its deadline or grow the parent's
memory without bound: each frame has its size limit, and all the frames of one
node together at most `budgets.NODE_BYTES`. Kept apart from `SandboxRunner` so the rules are one
small thing: a frame is judged by the phase the node is in, and printed
output is counted by the parent, whatever the worker says it printed.

Phases of a node, as the parent sees them:

- running (before `ran`): `out` (printed output), `action` (a `run()`),
  `call` (a helper), `ran` (the code ended), or `outcome` (the worker failed
  before the code could run);
- saving (after `ran`): only `outcome`; a second `ran` or anything else
  is a broken worker.
"""

from __future__ import annotations

import time
from typing import Any

from agent.sandbox.budgets import NODE_BYTES
from agent.sandbox.clock import NodeClock
from agent.sandbox.protocol import FRAME_BYTES, JSON_BYTES_PER_CHAR, MAX_CALL_BYTES, MAX_FRAME

RUNNING_FRAMES = frozenset({"out", "action", "call", "ran", "outcome"})
SAVING_FRAMES = frozenset({"outcome"})
# A worker that sends this many characters of output beyond the cap is killed: an honest one stops at the
# cap and adds one line saying the output was cut.
OUTPUT_SLACK = 64 * 1024


def cut_marker(cap: int) -> str:
    """The line that ends output cut at the cap (the worker's own wording, so an honest worker's is kept)."""
    return f"\n[output cut at {cap} chars]\n"


def frame_refusal(kind: str, saving: bool) -> str | None:
    """Why a `kind` frame is refused in this phase of a node (None: it may come)."""
    if not saving:
        if kind in RUNNING_FRAMES:
            return None
        return f"worker sent a malformed message (an unexpected {kind!r} while a node runs)"
    if kind in SAVING_FRAMES:
        return None
    if kind == "ran":
        return "worker sent a second 'ran' for one node"
    return f"worker sent a malformed message (an unexpected {kind!r} after the node's code ended)"


def running_frame_limit(max_output_chars: int) -> int:
    """The largest frame a running node's worker may send (no snapshot: a call's arguments and output)."""
    return min(MAX_FRAME, MAX_CALL_BYTES + JSON_BYTES_PER_CHAR * (max_output_chars + OUTPUT_SLACK))


class NodeOutput:
    """A node's printed output as the parent keeps it: at most the cap, however much the worker sends.

    `take` returns the reason to kill the worker once it has sent far more than the cap.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: list[str] = []
        self.kept = 0  # characters kept (at most the cap)
        self.received = 0  # characters the worker sent for this node
        self.cut = False

    def take(self, text: str) -> str | None:
        """Keep what fits of `text` from the worker; the reason to kill it when it sent far more than the cap."""
        self.received += len(text)
        self.keep(text)
        if self.received > self.cap + OUTPUT_SLACK:
            return (f"worker sent {self.received} characters of output for one node, far more than the "
                    f"output cap of {self.cap}")
        return None

    def keep(self, text: str) -> None:
        """Keep what fits of `text` (the parent's own copy of an observation counts too)."""
        if not text or self.cut:
            return
        room = self.cap - self.kept
        if len(text) > room:
            text = text[:room] + cut_marker(self.cap)
            self.cut = True
        self.parts.append(text)
        self.kept += len(text)

    @property
    def full(self) -> bool:
        return self.cut or self.kept >= self.cap

    def text(self) -> str:
        return "".join(self.parts)


class NodeWatch:
    """One node as the parent watches it: its phase, its single deadline, the output it kept.

    The node's own time runs on `clock` until `ran`; then a save deadline is
    fixed, which no later frame moves. Only a frame that hands the parent the
    turn (`action`, `call`) or ends the code pauses the clock: output does not.
    """

    def __init__(self, cap: int, node_timeout: float, save_timeout: float, clock: NodeClock) -> None:
        self.output = NodeOutput(cap)
        self.node_timeout = node_timeout
        self.save_timeout = save_timeout
        self.clock = clock
        self.save_deadline: float | None = None  # set at `ran`: when the variables must be saved by
        self.received_bytes = 0  # every frame of this node, together
        self._frame_limit = running_frame_limit(cap)

    @property
    def saving(self) -> bool:
        return self.save_deadline is not None

    @property
    def max_frame(self) -> int:
        """The largest frame that may come now (only the outcome after `ran` carries a snapshot)."""
        return MAX_FRAME if self.saving else self._frame_limit

    def remaining(self) -> float:
        """Seconds left before the node's deadline (its own time, or the save deadline after `ran`)."""
        if self.save_deadline is not None:
            return max(self.save_deadline - time.monotonic(), 0.0)
        return max(self.clock.remaining(self.node_timeout), 0.0)

    def judge(self, message: dict[str, Any]) -> str | None:
        """Take in a frame from the worker; the reason to kill it, or None when the frame may come now."""
        kind = message["t"]
        self.received_bytes += int(message.get(FRAME_BYTES, 0))
        if self.received_bytes > NODE_BYTES:
            return (f"worker sent {self.received_bytes // 2**20} MiB for one node, more than the "
                    f"{NODE_BYTES // 2**20} MiB a node may send")
        refusal = frame_refusal(kind, self.saving) or self.output.take(str(message.get("out", "")))
        if refusal:
            return refusal
        if kind != "out":
            self.clock.pause()
        if kind == "ran":
            self.save_deadline = time.monotonic() + self.save_timeout
        return None
