"""Rebuild every agent's ScienceWorld few-shot examples from real plays (one JVM):

    python -m tests.agents.build_sciworld_examples

`sciworld_example_plays.SPEC` holds, per topic, one train variation with the actions a person
chose, each with its thought, cut into steps. Each is played on the simulator (it must win), and
the observations it answered are written into the examples of all five agents, each in its own
format: ReAct turns, CodeAct cells (one per step), Plan-and-Execute's plan and executor steps,
ReCAP's levels, and ReCode's plan tree (a root calling one function per step). The test
`test_examples_win_sciworld.py` plays them back as each agent's answers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from envs.sciworld.env import SciWorldEnv

from .sciworld_example_plays import SPEC

ROOT = Path(__file__).resolve().parents[2] / "agent"
AGENTS = ROOT / "agents"
OBSERVING = ("look", "use ", "wait", "examine", "0")  # after these a plan depends on what is seen
FOLDERS = {
    "react": AGENTS / "react/prompts/sciworld/examples", "codeact": AGENTS / "codeact/prompts/sciworld/examples",
    "planner": AGENTS / "plan_execute/prompts/sciworld/planner_examples",
    "executor": AGENTS / "plan_execute/prompts/sciworld/executor_examples",
    "recap": AGENTS / "recap/prompts/sciworld/examples", "recode": ROOT / "prompts/default/sciworld/examples",
}
Turn = tuple[str, str, str]  # thought, action, observation
Part = tuple[str, str, str, list[Turn]]  # step description, ReCode call line, done claim, turns


def play(episode: str, actions: list[str]) -> tuple[str, str, list[str]]:
    """The task, first observation and each action's observation; the play must win."""
    env = SciWorldEnv(episode, max_steps=100)
    reset = env.reset()
    observations = []
    for action in actions:
        observations.append(env.step(action).strip())
        if env.done:
            break
    if not (env.won and env.score == 100):
        raise SystemExit(f"{episode}: the play does not win (score {env.score}): {observations[-1]}")
    return reset.instruction, reset.observation.strip(), observations


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _upto_observing(actions: list[str]) -> list[str]:
    out = []
    for action in actions:
        out.append(action)
        if action.startswith(OBSERVING):
            break
    return out


def _listing(items: list[tuple[str, str]]) -> str:
    return "\n".join(f"{i}. {kind}: {text}" for i, (kind, text) in enumerate(items, 1))


def _code(turns: list[Turn]) -> str:
    """One `run` a line; a focus (which ends the task when it picks the wrong thing) is checked."""
    lines = []
    for _, action, _ in turns:
        lines.append(f"obs = run({json.dumps(action)})")
        if action.startswith("focus on "):
            lines += ['if "You focus on" not in obs:', '    print("not focused:", obs)']
    return "\n".join(lines)


def react(head: str, parts: list[Part]) -> str:
    lines = [head]
    for _, _, _, turns in parts:
        for thought, action, observation in turns:
            lines += [f"Thought: {thought}", f"Action: {action}", f"Observation: {observation}"]
    return "\n".join(lines) + "\n"


def codeact(head: str, plan: str, parts: list[Part]) -> str:
    lines = [head]
    for number, (_, _, _, turns) in enumerate(parts, 1):
        think = " ".join(t for t, _, _ in turns)
        think = f"{plan} {think}" if number == 1 else think
        code = _code(turns)
        lines += [f"[cell {number}]", f"<think>{think}</think>", "<execute>", code, "</execute>", "Output:",
                  "\n".join(o for _, _, o in turns), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def planner(head: str, plan: str, parts: list[Part]) -> str:
    steps = [{"id": f"s{i}", "description": d, "depends_on": [f"s{i - 1}"] if i > 1 else []}
             for i, (d, _, _, _) in enumerate(parts, 1)]
    body = ",\n".join("  " + json.dumps(s) for s in steps)
    return f'{head}\n{{"thought": {json.dumps(plan)},\n "steps": [\n{body}\n ]}}\n'


def executor(parts: list[Part]) -> str:
    blocks = []
    for number, (description, _, claim, turns) in enumerate(parts, 1):
        lines = [f"Your step: s{number}: {description}"]
        for thought, action, observation in turns:
            lines += [f"Thought: {thought}", f"Action: {action}", f"Observation: {observation}"]
        if claim:  # the last step wins the episode before it can say done
            lines += ["Thought: The step is achieved.", f"Done: {claim}"]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def recap(head: str, task: str, plan: str, parts: list[Part]) -> str:
    goals = [d for d, _, _, _ in parts]
    out = [head, f"## depth 0: {task}", f"Thought: {plan}", "Subtasks:", _listing([("subtask", g) for g in goals])]
    for index, (description, _, claim, turns) in enumerate(parts):
        actions = [a for _, a, _ in turns]
        out += [f"## depth 1: {description}", f"Thought: {turns[0][0]}", "Subtasks:",
                _listing([("action", a) for a in _upto_observing(actions)])]
        for at, (_, action, observation) in enumerate(turns):
            out.append(f"Observation after `{action}`: {observation}")
            if index == len(parts) - 1 and at == len(turns) - 1:
                break
            if at + 1 < len(turns):
                out += [f"Thought: {turns[at + 1][0]}", "Subtasks:",
                        _listing([("action", a) for a in _upto_observing(actions[at + 1:])])]
            else:
                out += ["Thought: The subtask is achieved.", f"Done: {claim}",
                        f"## back at depth 0 (re-injected): the subtask returned done: {claim}",
                        f"Thought: Next: {goals[index + 1]}.", "Subtasks:",
                        _listing([("subtask", g) for g in goals[index + 1:]])]
    return "\n".join(out) + "\n"


def recode(task: str, first: str, plan: str, parts: list[Part]) -> str:
    blocks = [f"Function: solve(instruction, observation)\nVariables:\n- instruction (str): {_flat(task)}\n"
              f"- observation (str): {_flat(first)}\nAnswer:\n<think>{plan}</think>\n<execute>\n"
              + "\n".join(call for _, call, _, _ in parts) + "\n</execute>"]
    for description, call, _, turns in parts:
        think = " ".join(t for t, _, _ in turns)
        code = _code(turns)
        blocks.append(f"Function: {call}\nVariables:\nAnswer:\n<think>{description[0].upper()}{description[1:]}. "
                      f"{think}</think>\n<execute>\n{code}\n</execute>")
    return "\n---\n".join(blocks) + "\n"


def build() -> None:
    for folder in FOLDERS.values():
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.txt"):
            old.unlink()
    for episode, (plan, steps) in SPEC.items():
        name = episode.split("/")[0]
        task, first, observations = play(episode, [a for _, _, _, turns in steps for _, a in turns])
        head = f"Task: {task}\nFirst observation: {first}"
        parts: list[Part] = []
        at = 0
        for description, call, claim, turns in steps:
            turns = turns[: max(0, len(observations) - at)]  # the simulator may finish early
            if turns:
                parts.append((description, call, claim, [(t, a, observations[at + i]) for i, (t, a) in enumerate(turns)]))
            at += len(turns)
        texts = {"react": react(head, parts), "codeact": codeact(head, plan, parts), "planner": planner(head, plan, parts),
                 "executor": executor(parts), "recap": recap(head, task, plan, parts),
                 "recode": recode(task, first, plan, parts)}
        for kind, text in texts.items():
            (FOLDERS[kind] / f"{name}.txt").write_text(text, encoding="utf-8")
        print(f"{episode}: {len(observations)} actions, won")


if __name__ == "__main__":
    build()
