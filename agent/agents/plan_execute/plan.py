"""The planner's answer: a JSON plan of steps with ids and dependencies, checked before it is used.

A plan that cannot be run (not JSON, a duplicate id, an unknown dependency, a
cycle) is refused with one sentence saying what is wrong, and that sentence is
what the planner is re-asked with.
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class PlanStep:
    id: str
    description: str
    depends_on: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The step as the executor reads it: `s2: take the mug` (its dependencies are the
        scheduler's business, and their outputs are listed apart)."""
        return f"{self.id}: {self.description}"

    @property
    def label(self) -> str:
        """How the step is drawn as a node: `s2: take the mug [after s1]`."""
        after = f" [after {', '.join(self.depends_on)}]" if self.depends_on else ""
        return f"{self.id}: {self.description}{after}"


@dataclass(frozen=True)
class Plan:
    steps: tuple[PlanStep, ...]
    thought: str = ""


class PlanError(ValueError):
    """Why a plan answer cannot be used, in one sentence the planner is re-asked with."""


def parse_plan(text: str, done: frozenset[str] = frozenset(), allow_empty: bool = False) -> Plan:
    """Read and check a plan answer. `done`: ids of steps already finished, which the new
    steps may depend on but not reuse (a replan)."""
    data = _load_json(text)
    thought = ""
    if isinstance(data, dict):
        thought = str(data.get("thought", "") or "")
        raw_steps = data.get("steps")
        if not isinstance(raw_steps, list):
            raise PlanError('the plan needs a "steps" list: {"thought": "...", "steps": [{"id": "s1", ...}]}')
    elif isinstance(data, list):
        raw_steps = data
    else:
        raise PlanError('the plan must be a JSON object {"thought": "...", "steps": [...]}')
    if not raw_steps and not allow_empty:
        raise PlanError("the plan has no steps; give at least one")
    steps: list[PlanStep] = []
    for index, raw in enumerate(raw_steps, start=1):
        if not isinstance(raw, dict):
            raise PlanError(f"step {index} is not an object with id, description and depends_on")
        step_id = str(raw.get("id", "")).strip()
        if not step_id:
            raise PlanError(f"step {index} has no id")
        description = str(raw.get("description", "")).strip()
        if not description:
            raise PlanError(f"step {step_id} has no description")
        depends = raw.get("depends_on", [])
        if isinstance(depends, str):
            depends = [depends]
        if not isinstance(depends, list):
            raise PlanError(f"step {step_id}: depends_on must be a list of step ids")
        steps.append(PlanStep(step_id, " ".join(description.split()), tuple(str(d).strip() for d in depends)))
    _check(steps, done)
    return Plan(tuple(steps), thought.strip())


def _fenced(text: str) -> str | None:
    """What the answer's first ```json ... ``` (or ``` ... ```) block holds, or None.

    Two `find`s, linear in the text: a regex for it backtracked over a long run of
    blanks after an unclosed fence, in time growing with the square of the run.
    """
    opening = text.find("```")
    if opening < 0:
        return None
    start = opening + 3 + (4 if text.startswith("json", opening + 3) else 0)
    start = len(text) - len(text[start:].lstrip())
    closing = text.find("```", start)
    return text[start:closing] if closing >= 0 else None


def _load_json(text: str) -> object:
    fenced = _fenced(text)
    body = fenced if fenced is not None else text
    starts = [i for i in (body.find("{"), body.find("[")) if i >= 0]
    if not starts:
        raise PlanError('the answer holds no JSON; answer with one object {"thought": "...", "steps": [...]}')
    try:
        data, _ = json.JSONDecoder().raw_decode(body[min(starts):])
    except json.JSONDecodeError as exc:
        raise PlanError(f"the plan is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:  # the decoder recurses per bracket: '[' * 100000 is not a plan, nor a crash
        raise PlanError(
            'the plan is nested too deeply to read; answer with one flat object {"thought": "...", "steps": [...]}'
        ) from None
    return data


def _check(steps: list[PlanStep], done: frozenset[str]) -> None:
    ids: set[str] = set()
    for step in steps:
        if step.id in ids:
            raise PlanError(f"two steps have the id {step.id}; give each step its own id")
        if step.id in done:
            raise PlanError(f"step id {step.id} is already used by a finished step; give the new step a new id")
        ids.add(step.id)
    for step in steps:
        for dep in step.depends_on:
            if dep == step.id:
                raise PlanError(f"step {step.id} depends on itself")
            if dep not in ids and dep not in done:
                raise PlanError(f"step {step.id} depends on {dep}, which is not a step of the plan")
    cycle = _find_cycle(steps)
    if cycle:
        raise PlanError(f"the dependencies form a cycle: {' -> '.join(cycle)}; a step can only wait for earlier work")


def _find_cycle(steps: list[PlanStep]) -> list[str]:
    """A dependency cycle as step ids (`[a, b, a]`), or [] when there is none.

    Iterative: a chain of thousands of steps, each after the one before, is a valid plan
    and must not hit the recursion limit.
    """
    ids = {s.id for s in steps}
    after = {s.id: [d for d in s.depends_on if d in ids] for s in steps}
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    for step in steps:
        if step.id in state:
            continue
        path: list[str] = []
        stack: list[tuple[str, int]] = [(step.id, 0)]
        state[step.id] = 1
        while stack:
            node, index = stack[-1]
            if index == 0:
                path.append(node)
            if index < len(after[node]):
                stack[-1] = (node, index + 1)
                dep = after[node][index]
                if state.get(dep) == 1:
                    return path[path.index(dep):] + [dep]
                if dep not in state:
                    state[dep] = 1
                    stack.append((dep, 0))
                continue
            state[node] = 2
            stack.pop()
            path.pop()
    return []


def plan_text(steps: tuple[PlanStep, ...] | list[PlanStep]) -> str:
    return "\n".join(step.label for step in steps) or "(no steps)"


def plan_diff(old: list[PlanStep], new: list[PlanStep]) -> str:
    """The remaining plan before and after a replan, one line per step: `-` dropped,
    `+` added, `~` changed, ` ` kept."""
    old_by_id = {s.id: s for s in old}
    new_ids = {s.id for s in new}
    lines = [f"- {s.label}" for s in old if s.id not in new_ids]
    for step in new:
        before = old_by_id.get(step.id)
        if before is None:
            lines.append(f"+ {step.label}")
        elif before != step:
            lines.append(f"~ {step.label} (was: {before.description})")
        else:
            lines.append(f"  {step.label}")
    return "\n".join(lines) or "(both plans are empty)"
