"""What the sandbox worker reports about node code: its capped printed output, its errors, its variables' summaries.

Kept apart from the request loop: these turn values made by node code into
the short plain strings a reply carries, and never raise on a hostile value.
"""

from __future__ import annotations

from typing import Any

from agent.runtime.varlist import bounded_repr, infer_type

MAX_ERROR_CHARS = 2000

Summaries = dict[str, tuple[str, str]]  # variable name -> (type, short value)


class Output:
    """A node's printed output, capped like the in-process runner's."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.reset()

    def reset(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.sent = 0

    @property
    def full(self) -> bool:
        return self.length >= self.limit

    def write(self, text: str) -> None:
        room = self.limit - self.length
        if room <= 0:
            if room == 0 and text:  # filled exactly: still say that more was cut
                self.parts.append(f"\n[output cut at {self.limit} chars]\n")
                self.length += 1
            return
        if len(text) > room:
            text = text[:room] + f"\n[output cut at {self.limit} chars]\n"
        self.parts.append(text)
        self.length += len(text)

    def delta(self) -> str:
        """What was printed since the last call (streamed so a kill loses nothing)."""
        text = "".join(self.parts[self.sent:])
        self.sent = len(self.parts)
        return text


def describe(exc: BaseException) -> str:
    if isinstance(exc, MemoryError):
        return "memory limit"
    try:
        text = f"{type(exc).__name__}: {exc}"
    except BaseException:  # noqa: BLE001
        text = type(exc).__name__
    if len(text) > MAX_ERROR_CHARS:
        text = text[:MAX_ERROR_CHARS] + "... [cut]"
    return text


def summary_of(name: str, value: Any) -> tuple[str, str]:
    try:
        return infer_type(value), bounded_repr(value, 120).replace("\n", "\\n")
    except BaseException as exc:  # noqa: BLE001
        return "?", f"<unprintable: {type(exc).__name__}>"


def summarise(values: dict[str, Any]) -> Summaries:
    return {name: summary_of(name, value) for name, value in values.items()}


def summary_changes(before: Summaries, after: Summaries) -> list[list[str]]:
    """New, changed and removed variables between two summaries, as a reply's `changes`."""
    changes = [
        [name, t, s, "new" if name not in before else "changed"]
        for name, (t, s) in after.items()
        if before.get(name) != (t, s)
    ]
    changes += [[name, t, s, "removed"] for name, (t, s) in before.items() if name not in after]
    return changes
