"""Plan-and-Execute's answers for a known action sequence (`--llm gold`): a plan of one step per
sub-goal, and each step's executor turns (its actions, then `Done:`)."""

from __future__ import annotations

import json

from agent.agents.plan_execute.plan import PlanStep
from agent.llm import Purpose
from agent.runtime.capabilities import ScriptedAnswer
from agent.runtime.gold_path import bounded_parts, part_text


def gold_plan_and_turns(actions: list[str], executor_steps: int) -> list[ScriptedAnswer]:
    """The planner's plan, then per step (keyed by its label) one turn per action and a `Done:` turn,
    each step short enough to end within the executor's `executor_steps` turns."""
    parts = bounded_parts(actions, most=max(1, executor_steps - 1))
    steps = [PlanStep(f"s{number}", part_text(number, len(parts), part), (f"s{number - 1}",) if number > 1 else ())
             for number, part in enumerate(parts, 1)]
    plan = {"thought": "Follow the known solution, one part at a time.",
            "steps": [{"id": s.id, "description": s.description, "depends_on": list(s.depends_on)} for s in steps]}
    answers = [ScriptedAnswer(json.dumps(plan), Purpose.PLAN)]
    for step, part in zip(steps, parts):
        answers += [ScriptedAnswer(f"Thought: the next action of {step.id}.\nAction: {action}", Purpose.ACT,
                                   step.label, once=True) for action in part]
        answers.append(ScriptedAnswer(f"Thought: {step.id} is done.\nDone: {step.description}", Purpose.ACT,
                                      step.label, once=True))
    return answers
