"""CodeAct's answers for a known action sequence: one cell per sub-goal (`--llm gold`)."""

from __future__ import annotations

import json

from agent.llm import Purpose
from agent.runtime.capabilities import ScriptedAnswer
from agent.runtime.gold_path import bounded_parts, part_text


def gold_cells(actions: list[str]) -> list[ScriptedAnswer]:
    """Cell N sends the Nth sub-goal's actions in a loop and prints what each answered."""
    parts = bounded_parts(actions)
    return [ScriptedAnswer(
        f"<think>{part_text(number, len(parts), part)}.</think>\n<execute>\n"
        f"for action in {json.dumps(part)}:\n    print(run(action))\n</execute>",
        Purpose.ACT, f"cell {number}") for number, part in enumerate(parts, 1)]
