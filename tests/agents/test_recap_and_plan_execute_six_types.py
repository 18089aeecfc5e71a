"""Both hierarchical agents win a bundled game of each of the six ALFWorld task types, with
scripted answers cut from the game's stored walkthrough (steps for Plan-and-Execute,
subtasks for ReCAP), through the real engine."""

from __future__ import annotations

import asyncio
import json

import pytest

from agent.runtime import events as ev
from envs.alfworld.catalog import list_games, resolve_game
from agent.runtime.gold_path import split_into_parts
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.setup.build import make_agent
from tests.settings import episode_named, run_settings

TYPES = ["put", "clean", "heat", "cool", "examine", "puttwo"]


def walkthrough(task_type: str) -> tuple[str, list[list[str]]]:
    game = list_games([task_type])[0].id
    actions = json.loads(resolve_game(game).read_text())["walkthrough"]
    return game, split_into_parts(actions, max_parts=3)


def in_order(answers: list[tuple[str, str]]) -> ScriptedLLM:
    return ScriptedLLM([ScriptEntry(answer=a, purpose=p, once=True) for p, a in answers])


async def play(episode_ref: str, llm: ScriptedLLM, agent_name: str) -> tuple[object, ev.RunFinished]:
    agent = make_agent(run_settings(max_steps=40, agent=agent_name), episode_named(episode_ref), llm)
    try:
        return agent, await agent.run()
    finally:
        await agent.close()


def plan_execute_answers(parts: list[list[str]]) -> list[tuple[str, str]]:
    steps = [{"id": f"s{i}", "description": f"{part[0]} and on", "depends_on": [f"s{i - 1}"] if i > 1 else []}
             for i, part in enumerate(parts, 1)]
    answers = [("plan", json.dumps({"thought": "one step per part", "steps": steps}))]
    for part in parts:
        answers += [("act", f"Thought: next\nAction: {action}") for action in part] + [("act", "Done: part done")]
    return answers


def recap_answers(parts: list[list[str]]) -> list[tuple[str, str]]:
    def listing(items: list[str], kind: str) -> str:
        return "\n".join(f"{i}. {kind}: {item}" for i, item in enumerate(items, 1))

    goals = [f"{part[0]} and on" for part in parts]
    answers = [("decompose", f"Thought: in parts\nSubtasks:\n{listing(goals, 'subtask')}")]
    for index, part in enumerate(parts):
        answers.append(("decompose", f"Thought: do it\nSubtasks:\n{listing(part, 'action')}"))
        answers += [("refine", f"Thought: go on\nSubtasks:\n{listing(part[i:], 'action')}") for i in range(1, len(part))]
        if index < len(parts) - 1:  # the last part wins the game before its level can say done
            answers += [("refine", "Thought: done\nDone: part done"),
                        ("refine", f"Thought: next part\nSubtasks:\n{listing(goals[index + 1:], 'subtask')}")]
    return answers


# real ALFWorld games: one part (`put`) and two (`puttwo`) in `make quick`, every type in `make test`
@pytest.mark.parametrize("task_type", [t if t in ("put", "puttwo") else pytest.param(t, marks=pytest.mark.heavy)
                                       for t in TYPES])
def test_both_agents_win_each_task_type(task_type: str) -> None:
    game, parts = walkthrough(task_type)
    agent, finished = asyncio.run(play(game, in_order(plan_execute_answers(parts)), "plan-execute"))
    assert finished.success, f"plan-execute on {game}: {finished.reason}"
    assert len(agent.tree.root.children) == len(parts)
    agent, finished = asyncio.run(play(game, in_order(recap_answers(parts)), "recap"))
    assert finished.success, f"recap on {game}: {finished.reason}"
    assert [c.code for c in agent.tree.root.children] == [f"{part[0]} and on" for part in parts]
