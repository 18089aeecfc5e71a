"""Is the original data's goal list the original's, in its order? Checked against `human_goals.json`:
the original's 12,087 human instruction texts in session-index order, without their price clauses."""

from __future__ import annotations

import json
from pathlib import Path

from envs.webshop.model import Goal

HUMAN_GOALS_FILE = "human_goals.json"


def without_price_clause(goal: Goal) -> str:
    clause = f", and price lower than {goal.price_upper:.2f} dollars" if goal.price_upper is not None else ""
    text = goal.instruction
    return text[: len(text) - len(clause)] if clause and text.endswith(clause) else text


def first_mismatch(goals: list[Goal], texts: list[str]) -> str | None:
    """None when the goals are the texts in the same order; else one line naming the first difference."""
    for index, (goal, text) in enumerate(zip(goals, texts)):
        ours = without_price_clause(goal)
        if ours != text:
            return (f"session index {index} is {ours!r} here but {text!r} in the original's order "
                    f"({HUMAN_GOALS_FILE}): goal numbers name other goals than the original's")
    if len(goals) != len(texts):
        return (f"there are {len(goals):,} goals here and {len(texts):,} in the original's order ({HUMAN_GOALS_FILE}); "
                f"the first {min(len(goals), len(texts)):,} agree")
    return None


def read_texts(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    if not isinstance(data, list) or not all(isinstance(t, str) for t in data):
        raise ValueError(f"{path}: expected a JSON list of instruction texts")
    return data
