"""A known solution (an environment's gold action path) cut into sub-goals, for any agent's gold player.

`--llm gold` plays an episode's gold path with an agent's own answers
(`Stepper.gold_answers`): ReCode one placeholder per sub-goal, CodeAct one
cell per sub-goal, Plan-and-Execute one plan step per sub-goal, ReCAP one
subtask per sub-goal, ReAct one turn per action. Every agent cuts the path here,
the same way. Sub-goals start where the path moves somewhere or commits to an
object (`go to`, `teleport to`, `open door to`, `focus on`); small neighbours are
merged so there are at most `max_parts`, and a sub-goal longer than `most`
actions is cut again (an executor's turn budget, a level's revision limit).
"""

from __future__ import annotations

import re

_BOUNDARY = re.compile(r"^(go to|teleport to|open door to|focus on)\b")


def split_into_parts(actions: list[str], max_parts: int = 8) -> list[list[str]]:
    """Group a gold path into sub-goals (each non-empty, in order)."""
    parts: list[list[str]] = []
    for action in actions:
        if not parts or (_BOUNDARY.match(action) and parts[-1]):
            parts.append([action])
        else:
            parts[-1].append(action)
    while len(parts) > max_parts:
        sizes = [len(a) + len(b) for a, b in zip(parts, parts[1:])]
        i = sizes.index(min(sizes))
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return parts


def bounded_parts(actions: list[str], max_parts: int = 8, most: int = 9) -> list[list[str]]:
    """The sub-goals of `split_into_parts`, none longer than `most` actions (blank actions dropped)."""
    parts = split_into_parts([a for a in actions if a.strip()], max_parts)
    return [part[i : i + most] for part in parts for i in range(0, len(part), most)]


def part_text(index: int, count: int, part: list[str]) -> str:
    """A sub-goal in words, unique within its path: `part 2 of 5: go to kitchen, then 2 more action(s)`."""
    more = f", then {len(part) - 1} more action(s)" if len(part) > 1 else ""
    return f"part {index} of {count}: {part[0]}{more}"
