"""ReAct's answers for a known action sequence: one turn per action (`--llm gold`)."""

from __future__ import annotations

from agent.llm import Purpose
from agent.runtime.capabilities import ScriptedAnswer


def gold_turns(actions: list[str]) -> list[ScriptedAnswer]:
    """Turn N answers the Nth action, asked again as often as it is refused (keyed by the turn's name)."""
    steps = [a for a in actions if a.strip()]
    return [ScriptedAnswer(f"Thought: step {number} of {len(steps)} of the known solution.\nAction: {action}",
                           Purpose.ACT, f"turn {number}") for number, action in enumerate(steps, 1)]
