"""Rebuild Plan-and-Execute's and ReCAP's ALFWorld examples from ReAct's (the same bundled games):

    python -m tests.agents.build_alfworld_examples

ReAct's example of each task type is replayed on the real engine (it must win), cut into the steps
`SPLITS` names, and written as a plan with executor steps and as ReCAP's levels; a level lists only
actions whose objects it has seen. `test_examples_win_alfworld.py` plays them back.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from envs.alfworld.catalog import resolve_game
from envs.alfworld.env import AlfworldEnv

ROOT = Path(__file__).resolve().parents[2] / "agent" / "agents"
GAMES = {"put": "put-06", "clean": "clean-06", "heat": "heat-06", "cool": "cool-06", "examine": "examine-06", "puttwo": "puttwo-06"}
# per type: plan thought, then steps as (description, number of ReAct turns, done claim)
SPLITS = {
 "put": ("Find a pen and take it, then put it in a drawer.",
         [("find a pen (desk, garbagecan, shelf, sidetable first) and take it", 3, "holding pen 2 (from garbagecan 1)"),
          ("put the pen in a drawer, opening it first if it is closed", 3, "")]),
 "clean": ("Find a fork, clean it at the sinkbasin, then put it on the countertop.",
         [("find a fork (drawers first) and take it", 3, "holding fork 1 (from drawer 1)"),
          ("clean the fork at sinkbasin 1", 2, "fork 1 is clean, still in hand"),
          ("put the clean fork on countertop 1", 2, "")]),
 "heat": ("Find bread, heat it in the microwave, then put it on the countertop.",
         [("find bread (countertop, garbagecan, fridge first) and take it", 3, "holding bread 3 (from garbagecan 1)"),
          ("heat the bread with microwave 1", 2, "bread 3 is hot, still in hand"),
          ("put the hot bread on countertop 1", 2, "")]),
 "cool": ("Find bread, cool it in the fridge, then put it on the dining table.",
         [("find bread (countertop first) and take it", 2, "holding bread 1 (from countertop 1)"),
          ("cool the bread with fridge 1", 2, "bread 1 is cool, still in hand"),
          ("put the cool bread on diningtable 1", 2, "")]),
 "examine": ("Find a pencil and take it, then switch on the desklamp while holding it.",
         [("find a pencil (desk, shelf first) and take it; note where the desklamp is", 3, "holding pencil 1 (from shelf 1); desklamp 1 is on desk 1"),
          ("go to the desklamp and switch it on while holding the pencil", 2, "")]),
 "puttwo": ("Bowls go one at a time: find one, put it in the fridge, then find the second and put it in too.",
         [("find a bowl (cabinets, countertop first) and take it", 5, "holding bowl 1 (from cabinet 2)"),
          ("put the bowl in fridge 1, opening it first", 3, "bowl 1 is in fridge 1; the fridge is open"),
          ("find a second bowl (not the one in the fridge) and take it", 2, "holding bowl 2 (from countertop 1)"),
          ("put the second bowl in fridge 1", 2, "")]),
}

def react_turns(task_type):
    text = (ROOT / "react/prompts/alfworld/examples" / f"{task_type}.txt").read_text()
    head = text.split("\nThought:", 1)[0]
    turns = re.findall(r"^Thought: (.*)\nAction: (.*)\nObservation: (.*)$", text, re.M)
    return head, turns

def play(game, actions):
    env = AlfworldEnv(resolve_game(game)); env.reset()
    obs = [env.step(a).strip() for a in actions]
    assert env.won, game
    return obs

OBJ = re.compile(r"\b[a-z]+ \d+\b")

def known(actions, seen):
    """The leading actions whose objects were all seen: a plan names only what it has seen."""
    out = []
    for a in actions:
        if out and any(o not in seen for o in OBJ.findall(a)):
            break
        out.append(a)
    return out

def listing(items):
    return "\n".join(f"{i}. {kind}: {text}" for i, (kind, text) in enumerate(items, 1))

def build() -> None:
    for task_type, game in GAMES.items():
        head, turns = react_turns(task_type)
        obs = play(game, [a for _, a, _ in turns])
        turns = [(t, a, o) for (t, a, _), o in zip(turns, obs)]
        task = re.search(r"^Task: (.*)$", head, re.M)[1]
        plan_thought, steps = SPLITS[task_type]
        assert sum(n for _, n, _ in steps) == len(turns), task_type
        # Plan-and-Execute
        plan = {"thought": plan_thought, "steps": [
            {"id": f"s{i}", "description": d, "depends_on": [f"s{i-1}"] if i > 1 else []} for i, (d, _, _) in enumerate(steps, 1)]}
        plan_text = '{"thought": ' + json.dumps(plan_thought) + ',\n "steps": [\n' + ",\n".join(
            "  " + json.dumps(s) for s in plan["steps"]) + "\n ]}"
        pe = ROOT / "plan_execute/prompts/alfworld"
        (pe / "planner_examples").mkdir(exist_ok=True)
        (pe / "executor_examples").mkdir(exist_ok=True)
        (pe / "planner_examples" / f"{task_type}.txt").write_text(head.strip() + "\n" + plan_text + "\n")
        blocks, at = [], 0
        for i, (d, n, claim) in enumerate(steps, 1):
            lines = [f"Your step: s{i}: {d}"]
            for t, a, o in turns[at:at + n]:
                lines += [f"Thought: {t}", f"Action: {a}", f"Observation: {o}"]
            if claim:
                lines += ["Thought: The step is achieved.", f"Done: {claim}"]
            blocks.append("\n".join(lines))
            at += n
        (pe / "executor_examples" / f"{task_type}.txt").write_text("\n\n".join(blocks) + "\n")
        # ReCAP
        goals = [d for d, _, _ in steps]
        out = [head.strip(), f"## depth 0: {task}", f"Thought: {plan_thought}", "Subtasks:", listing([("subtask", g) for g in goals])]
        at = 0
        seen = head
        for i, (d, n, claim) in enumerate(steps):
            part = turns[at:at + n]
            at += n
            out += [f"## depth 1: {d}", f"Thought: {part[0][0]}", "Subtasks:", listing([("action", a) for a in known([a for _, a, _ in part], seen)])]
            for j, (t, a, o) in enumerate(part):
                if i == len(steps) - 1 and j == len(part) - 1:
                    out.append(f"Observation after `{a}`: {o}")
                    break
                out.append(f"Observation after `{a}`: {o}")
                seen += "\n" + o
                if j + 1 < len(part):
                    out += [f"Thought: {part[j + 1][0]}", "Subtasks:", listing([("action", x) for x in known([x for _, x, _ in part[j + 1:]], seen)])]
                else:
                    out += ["Thought: The subtask is achieved.", f"Done: {claim}",
                            f"## back at depth 0 (re-injected): the subtask returned done: {claim}",
                            f"Thought: Next: {goals[i + 1]}.", "Subtasks:", listing([("subtask", g) for g in goals[i + 1:]])]
        rc = ROOT / "recap/prompts/alfworld/examples"; rc.mkdir(exist_ok=True)
        (rc / f"{task_type}.txt").write_text("\n".join(out) + "\n")
        print(task_type, "ok")


if __name__ == "__main__":
    build()
