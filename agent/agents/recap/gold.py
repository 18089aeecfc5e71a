"""ReCAP's answers for a known action sequence (`--llm gold`): the task as one subtask per sub-goal,
each subtask as its actions; every revision lists what is left."""

from __future__ import annotations

from agent.llm import Purpose
from agent.runtime.capabilities import ScriptedAnswer
from agent.runtime.gold_path import bounded_parts, part_text


def _listing(kind: str, items: list[str]) -> str:
    return "\n".join(f"{number}. {kind}: {item}" for number, item in enumerate(items, 1))


def gold_levels(actions: list[str]) -> list[ScriptedAnswer]:
    """Each subtask's level (keyed by its text): its actions, then after each one the actions left, then
    `Done:`. The task's level (any other node, so listed last): the subtasks, then after each the ones left."""
    parts = bounded_parts(actions)
    texts = [part_text(number, len(parts), part) for number, part in enumerate(parts, 1)]
    answers: list[ScriptedAnswer] = []
    for text, part in zip(texts, parts):
        answers.append(ScriptedAnswer(f"Thought: the actions of {text}.\nSubtasks:\n{_listing('action', part)}",
                                      Purpose.DECOMPOSE, text, once=True))
        answers += [ScriptedAnswer(f"Thought: that worked; next.\nSubtasks:\n{_listing('action', part[done:])}",
                                   Purpose.REFINE, text, once=True) for done in range(1, len(part))]
        answers.append(ScriptedAnswer(f"Thought: this part is done.\nDone: {text}", Purpose.REFINE, text, once=True))
    answers.append(ScriptedAnswer(f"Thought: follow the known solution, one part at a time.\nSubtasks:\n"
                                  f"{_listing('subtask', texts)}", Purpose.DECOMPOSE, once=True))
    answers += [ScriptedAnswer(f"Thought: that part is done; next.\nSubtasks:\n{_listing('subtask', texts[done:])}",
                               Purpose.REFINE, once=True) for done in range(1, len(texts))]
    return answers
