"""Plan-and-Execute and ReCAP each play a real ScienceWorld episode with scripted answers
(the episode's gold path, cut into steps or subtasks)."""

from __future__ import annotations

import asyncio
import json
import shutil

import pytest

from agent.runtime import events as ev
from envs import registry
from agent.runtime.gold_path import split_into_parts
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.setup.build import make_agent
from tests.settings import episode_named, run_settings

pytestmark = [pytest.mark.heavy, pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (.ci/run installs one)")]

EPISODE = "sciworld:find-animal/0"


@pytest.fixture(scope="module")
def gold() -> list[str]:
    return registry.gold_actions(EPISODE)


def in_order(answers: list[tuple[str, str]]) -> ScriptedLLM:
    return ScriptedLLM([ScriptEntry(answer=a, purpose=p, once=True) for p, a in answers])


async def play(llm, agent_name: str) -> tuple[object, list[ev.Event]]:
    agent = make_agent(run_settings(agent=agent_name), episode_named(EPISODE), llm)
    seen: list[ev.Event] = []
    try:
        await agent.run(seen.append)
    finally:
        await agent.close()
    return agent, seen


def test_plan_execute_wins_a_sciworld_episode(gold):
    parts = split_into_parts(gold, max_parts=3)
    steps = [{"id": f"s{i}", "description": f"do: {', '.join(part)}", "depends_on": [f"s{i - 1}"] if i > 1 else []}
             for i, part in enumerate(parts, 1)]
    answers = [("plan", json.dumps({"thought": "three parts", "steps": steps}))]
    for part in parts:
        answers += [("act", f"Thought: next\nAction: {action}") for action in part] + [("act", "Done: part done")]
    agent, seen = asyncio.run(play(in_order(answers), "plan-execute"))
    assert seen[-1].success, seen[-1].reason
    assert agent.env.name == "sciworld" and len(agent.tree.root.children) == len(parts)
    prompt = next(e.prompt for e in seen if isinstance(e, ev.LLMRequested))
    assert "focus on {obj}" in prompt and "focus on an animal seen here and pick it up" in prompt  # the actions, the type's example


def test_recap_wins_a_sciworld_episode(gold):
    first, rest = gold[:2], gold[2:]
    def listing(actions: list[str], start: int = 1) -> str:
        return "\n".join(f"{i}. action: {a}" for i, a in enumerate(actions, start))

    answers = [("decompose", f"Thought: reach the kitchen first\nSubtasks:\n1. subtask: reach the kitchen\n"
                             f"{listing(rest, start=2)}"),
               ("decompose", f"Thought: two moves\nSubtasks:\n{listing(first)}"),
               ("refine", f"Thought: one more\nSubtasks:\n{listing(first[1:])}"),
               ("refine", "Thought: here\nDone: in the kitchen")]
    for i in range(len(rest)):
        answers.append(("refine", f"Thought: go on\nSubtasks:\n{listing(rest[i:])}"))
    agent, seen = asyncio.run(play(in_order(answers), "recap"))
    assert seen[-1].success, seen[-1].reason
    assert agent.tree.root.children[0].code == "reach the kitchen"
    assert any(isinstance(e, ev.AgentNote) and e.label == "re-injection" for e in seen)
