"""Write the scripted demos of the baseline agents (`--llm demo` with `--agent react|codeact|plan-execute|recap`).

ReCode's demo (`alfworld.yaml`) is generic code; the other agents answer in
text a script cannot compute (one action, a plan, a subtask list), so their
demos replay each bundled game's stored walkthrough in the agent's own answer
format. Every entry is `once` and keyed to its game by the task sentence in
the prompt (plus the first observation where two games share a task), so one
file answers any bundled game, in order, per purpose:

- react:        one `Thought:/Action:` answer per walkthrough action;
- codeact:      one cell per part of the walkthrough (a loop of `run(...)`);
- plan-execute: a JSON plan of the parts, then the executor's actions and a `Done:` per step
                (the executor's entries are keyed by their step's description);
- recap:        the parts as subtasks, each decomposed into actions and revised after each one.

Run it again after the bundled games change:

    python mockllm/demos/build_agent_demos.py
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Iterator, Protocol, runtime_checkable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # run as a script from anywhere in the project

from envs import registry  # noqa: E402
from agent.runtime.gold_path import split_into_parts  # noqa: E402

AGENTS = ("react", "codeact", "plan-execute", "recap")
Entry = dict[str, object]


class Game:
    """What a demo needs of one bundled game: how its prompts are recognised, and its walkthrough."""

    def __init__(self, game_id: str, task: str, observation: str, actions: list[str], shared_task: bool) -> None:
        self.id, self.task, self.actions = game_id, task, actions
        self.parts = split_into_parts(actions, max_parts=3)
        first_line = observation.strip().splitlines()[0][:160] if observation.strip() else ""
        # the prompt's task line; the observation only where another bundled game has the same task
        self.when = "Task: " + re.escape(task) + r"\n" + (
            "First observation: " + re.escape(first_line) if shared_task else "")

    def step_description(self, index: int) -> str:
        part = self.parts[index]
        return ", ".join(part[:-1]) + (", then " if len(part) > 1 else "") + part[-1]


@runtime_checkable
class StoredWalkthrough(Protocol):
    """An environment whose game file stores its expert plan (ALFWorld's bundled games)."""

    walkthrough: list[str] | None


def bundled_games() -> list[Game]:
    found = []
    for info in registry.provider("alfworld").episodes(None, None):  # the bundled games
        env = registry.make_env(info.id, env="alfworld")
        reset = env.reset()
        walkthrough = env.walkthrough if isinstance(env, StoredWalkthrough) else None
        found.append((info.id, reset.instruction, reset.observation, list(walkthrough or [])))
        env.close()
    tasks = Counter(task for _, task, _, _ in found)
    return [Game(g, t, o, a, tasks[t] > 1) for g, t, o, a in found]


def _entry(game: Game, purpose: str, answer: str, when: str | None = None) -> Entry:
    return {"game": game.id, "purpose": purpose, "when": when or game.when, "once": True, "answer": answer}


def react(game: Game) -> Iterator[Entry]:
    for number, action in enumerate(game.actions, 1):
        thought = "Start with the first step of the plan." if number == 1 else "The last action worked; next step."
        yield _entry(game, "act", f"Thought: {thought}\nAction: {action}")


def codeact(game: Game) -> Iterator[Entry]:
    for index, part in enumerate(game.parts):
        code = f"for action in {json.dumps(part)}:\n    observation = run(action)\n    print(observation)"
        thought = f"Part {index + 1} of {len(game.parts)}: {game.step_description(index)}."
        yield _entry(game, "act", f"<think>{thought}</think>\n<execute>\n{code}\n</execute>")


def plan_execute(game: Game) -> Iterator[Entry]:
    steps = [{"id": f"s{i}", "description": game.step_description(i - 1), "depends_on": [f"s{i - 1}"] if i > 1 else []}
             for i in range(1, len(game.parts) + 1)]
    yield _entry(game, "plan", json.dumps({"thought": "Find what is needed, then act on it, one part at a time.",
                                            "steps": steps}))
    for index, part in enumerate(game.parts):
        # the executor's prompt names the task and its step (not the first observation)
        when = "Task of the whole run: " + re.escape(game.task) + r"\n[\s\S]*Your step: [^\n]*" + \
               re.escape(game.step_description(index))
        for action in part:
            yield _entry(game, "act", f"Thought: next command of this step\nAction: {action}", when)
        yield _entry(game, "act", f"Thought: the step is achieved\nDone: {part[-1]}", when)


def recap(game: Game) -> Iterator[Entry]:
    def listing(items: list[str], kind: str) -> str:
        return "\n".join(f"{i}. {kind}: {item}" for i, item in enumerate(items, 1))

    goals = [game.step_description(i) for i in range(len(game.parts))]
    yield _entry(game, "decompose", f"Thought: the task in parts\nSubtasks:\n{listing(goals, 'subtask')}")
    for index, part in enumerate(game.parts):
        yield _entry(game, "decompose", f"Thought: the actions of this part\nSubtasks:\n{listing(part, 'action')}")
        for rest in range(1, len(part)):
            yield _entry(game, "refine", f"Thought: that worked; the rest\nSubtasks:\n{listing(part[rest:], 'action')}")
        if index < len(game.parts) - 1:  # the last part wins the game before its level can say done
            yield _entry(game, "refine", f"Thought: this part is done\nDone: {part[-1]}")
            yield _entry(game, "refine", f"Thought: on to the next part\nSubtasks:\n{listing(goals[index + 1:], 'subtask')}")


WRITERS = {"react": react, "codeact": codeact, "plan-execute": plan_execute, "recap": recap}


def demo_path(agent_name: str) -> Path:
    return HERE / f"{agent_name}-alfworld.jsonl"


def main() -> int:
    games = bundled_games()
    for agent_name in AGENTS:
        entries = [e for game in games for e in WRITERS[agent_name](game)]
        demo_path(agent_name).write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
        print(f"{demo_path(agent_name).name}: {len(entries)} answers for {len(games)} games")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
