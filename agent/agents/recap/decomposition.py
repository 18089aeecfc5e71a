"""A ReCAP answer: a thought and the full list of remaining subtasks, or `Done:` / `Failed:`.

The list is numbered lines, each marked as a primitive action (sent to the
environment as is) or a composite subtask (solved by a deeper level):

    Thought: the vase is probably on a table
    Subtasks:
    1. action: go to diningtable 1
    2. subtask: take the vase and put it on sidetable 1

Only the first item is carried out; the rest is the plan ahead, revised after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ITEM = re.compile(r"^\s*(\d+)\s*[.)]\s*(action|subtask)\s*:\s*(.*?)\s*$", re.I)
_KEY = re.compile(r"^\s*(thought|think|subtasks|done|failed)\s*:\s*(.*?)\s*$", re.I)
# a line that decides something by itself (an item, or the level's end): an answer may be cut after it
DECISION_LINE = re.compile(r"^\s*(?:\d+\s*[.)]\s*(?:action|subtask)|done|failed)\s*:\s*\S", re.I)


@dataclass(frozen=True)
class Item:
    kind: str  # "action" or "subtask"
    text: str

    @property
    def label(self) -> str:
        return f"{self.kind}: {self.text}"


@dataclass(frozen=True)
class Decomposition:
    thought: str
    items: tuple[Item, ...] = ()
    end: str = ""  # "done" or "failed" when the level is finished
    result: str = ""  # what it produced, or why it failed

    def listing(self) -> str:
        return "\n".join(f"{i}. {item.label}" for i, item in enumerate(self.items, 1)) or "(none)"


class DecompositionError(ValueError):
    """Why an answer cannot be used, in one sentence the LLM is re-asked with."""


def parse_decomposition(text: str) -> Decomposition:
    thought: list[str] = []
    items: list[Item] = []
    end: tuple[str, str] | None = None
    section = ""
    for number, line in enumerate(text.strip().splitlines(), start=1):
        if not line.strip():
            continue
        item = _ITEM.match(line)
        if item and section == "subtasks":
            if not item.group(3):
                raise DecompositionError(f"line {number}: the {item.group(2).lower()} is empty")
            items.append(Item(item.group(2).lower(), " ".join(item.group(3).split())))
            continue
        key = _KEY.match(line)
        if key:
            name = key.group(1).lower()
            if name in ("thought", "think"):
                section = "thought"
                thought.append(key.group(2))
            elif name == "subtasks":
                section = "subtasks"
            else:
                if end is not None:
                    raise DecompositionError("the answer says Done/Failed twice; give one")
                end = (name, key.group(2) or "(no detail given)")
                section = ""
            continue
        if section == "thought":
            thought.append(line.strip())
        elif section == "subtasks":
            raise DecompositionError(f"line {number} ({line.strip()[:40]}) is not `N. action: COMMAND` "
                                     "or `N. subtask: DESCRIPTION`")
    if end is not None and items:
        raise DecompositionError("the answer has both a subtask list and Done/Failed; give one of them")
    if end is None and not items:
        if section == "subtasks":
            raise DecompositionError("the subtask list is empty; write `Done: RESULT` when this subtask is finished")
        raise DecompositionError("the answer has no `Subtasks:` list and no `Done:` or `Failed:` line")
    joined = " ".join(t for t in thought if t).strip()
    if end is not None:
        return Decomposition(joined, (), end[0], end[1])
    return Decomposition(joined, tuple(items))
