"""ReCode's answers for a known action sequence: a plan as code, one placeholder per sub-goal.

The root stub is answered with one placeholder per sub-goal, and each
placeholder with its `run(...)` actions, so the tree has depth like a model's
plan would. The sub-goals are `agent.runtime.gold_path`'s, as every agent's gold
player cuts them. `--llm gold` plays these answers (ReCode's `gold_answers`);
`mockllm.gold` makes them a scripted LLM.
"""

from __future__ import annotations

import json
import re

from agent.llm import Purpose
from agent.runtime.capabilities import ScriptedAnswer
from agent.runtime.gold_path import split_into_parts

ROOT_STUB = "solve(instruction, observation)"
__all__ = ["ROOT_STUB", "gold_plan", "placeholder_name"]


def placeholder_name(index: int, first_action: str) -> str:
    words = re.sub(r"[^a-z0-9]+", "_", first_action.lower()).strip("_")[:32].rstrip("_")
    return f"part_{index}_{words or 'step'}"


def _answer(thought: str, code: str) -> str:
    return f"<think>\n{thought}\n</think>\n<execute>\n{code}\n</execute>\n"


def gold_plan(actions: list[str], max_parts: int = 8) -> list[ScriptedAnswer]:
    """The root's plan, then each placeholder's actions, as ReCode's answers."""
    parts = split_into_parts([a for a in actions if a.strip()], max_parts)
    names = [placeholder_name(i, part[0]) for i, part in enumerate(parts, 1)]
    plan = "\n".join(f"{name}()" for name in names)
    answers = [ScriptedAnswer(_answer("Follow the known solution, one sub-goal at a time.", plan), Purpose.EXPAND, ROOT_STUB)]
    for name, part in zip(names, parts):
        body = "\n".join(f"run({json.dumps(action)})" for action in part)
        answers.append(ScriptedAnswer(_answer(f"The actions of {name}.", body), Purpose.EXPAND, f"{name}()"))
    return answers
