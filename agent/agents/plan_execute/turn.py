"""The executor's answer for one turn: a thought and exactly one of an action, `Done:` or `Failed:`."""

from __future__ import annotations

import re
from dataclasses import dataclass

_KEY = re.compile(r"^\s*(thought|action|done|failed)\s*:\s*(.*)$", re.I)
DECISION_LINE = re.compile(r"^\s*(action|done|failed)\s*:\s*\S", re.I)  # a whole decision: an answer may be cut after it


@dataclass(frozen=True)
class Turn:
    thought: str
    kind: str  # "action", "done" or "failed"
    text: str  # the action, the step's output, or why it failed


class TurnError(ValueError):
    """Why an executor answer cannot be used, in one sentence."""


def parse_turn(text: str) -> Turn:
    thought: list[str] = []
    found: list[tuple[str, str]] = []
    current = None
    for line in text.strip().splitlines():
        match = _KEY.match(line)
        if match:
            key, value = match.group(1).lower(), match.group(2).strip()
            if key == "thought":
                current = thought
                thought.append(value)
            else:
                found.append((key, value))
                current = None
        elif current is not None:
            current.append(line.strip())
    if not found:
        raise TurnError("the answer has no `Action: ...`, `Done: ...` or `Failed: ...` line")
    if len(found) > 1:
        keys = ", ".join(k.capitalize() + ":" for k, _ in found)
        raise TurnError(f"the answer has {len(found)} decisions ({keys}); give exactly one per turn")
    kind, value = found[0]
    if kind == "action" and not value:
        raise TurnError("`Action:` is empty; write one command from the action list after it")
    if kind != "action" and not value:
        value = "(no detail given)"
    return Turn(" ".join(t for t in thought if t).strip(), kind, value)
