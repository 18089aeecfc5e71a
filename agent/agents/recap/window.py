"""ReCAP's one shared conversation, shown to the model through a sliding window.

Every LLM call is one round (what it was told, what it answered). The prompt
shows the latest `size` rounds and, whatever their age, the latest round of
each level on the path from the root to the current subtask, so the plans the
current subtask serves are never cut. Cuts are marked where rounds are left out.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Round:
    number: int  # 1-based, in the order of the conversation
    node_id: str  # the level (subtask node) that made the call
    depth: int
    goal: str
    told: str  # the input of the round: a new subtask, an observation, a re-injection
    answer: str


class Window:
    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self.rounds: list[Round] = []

    def add(self, node_id: str, depth: int, goal: str, told: str, answer: str) -> Round:
        entry = Round(len(self.rounds) + 1, node_id, depth, goal, told, answer)
        self.rounds.append(entry)
        return entry

    def visible(self, path: list[str]) -> list[Round]:
        """The rounds the model sees now: the latest `size`, plus each path level's latest round."""
        keep = {r.number for r in self.rounds[-self.size:]}
        for node_id in path:
            latest = next((r for r in reversed(self.rounds) if r.node_id == node_id), None)
            if latest is not None:
                keep.add(latest.number)
        return [r for r in self.rounds if r.number in keep]

    def render(self, path: list[str]) -> str:
        shown = self.visible(path)
        if not shown:
            return "(no rounds yet)"
        pinned = {r.number for r in shown} - {r.number for r in self.rounds[-self.size:]}
        parts: list[str] = []
        previous = 0
        for entry in shown:
            gap = entry.number - previous - 1
            if gap:
                parts.append(f"[... {gap} earlier round{'s' if gap != 1 else ''} cut from the window ...]")
            kept = " (kept: on the path to the current subtask)" if entry.number in pinned else ""
            parts.append(f"## Round {entry.number}, depth {entry.depth}: {entry.goal}{kept}\n"
                         f"{entry.told.strip()}\n>>> your answer:\n{entry.answer.strip()}")
            previous = entry.number
        return "\n\n".join(parts)
