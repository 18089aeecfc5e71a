"""ReAct and CodeAct play real ScienceWorld episodes (the JVM) with scripted answer lists from the gold paths."""

from __future__ import annotations

import shutil

import pytest

from agent.runtime import events as ev
from envs import registry
from recode_tui.setup.build import make_agent

from .scripts import cell_answer, loop_cell, react_llm
from mockllm.scripted import ScriptEntry, ScriptedLLM
from tests.settings import episode_named, run_settings

pytestmark = [pytest.mark.heavy, pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (.ci/run installs one)")]


async def play(agent) -> list[ev.Event]:
    events = []
    try:
        while not agent.host.done:
            events.append(await agent.step())
    finally:
        await agent.close()
    return events


@pytest.mark.parametrize("episode", ["find-animal/0", "chemistry-mix/0"])
async def test_react_wins_a_sciworld_episode_one_gold_action_per_turn(episode):
    actions = registry.provider("sciworld").gold_actions(episode)
    agent = make_agent(run_settings(agent="react"), episode_named(f"sciworld:{episode}"), react_llm(actions))
    events = await play(agent)
    finished = events[-1]
    assert finished.success, finished.reason
    assert agent.env.score == 100 and finished.llm_calls == agent.env.steps <= len(actions)  # one call a turn
    assert not any(isinstance(e, ev.LLMRejected) for e in events)  # every gold action is in the grammar
    prompt = next(e.prompt for e in events if isinstance(e, ev.LLMRequested))
    assert "teleport to {location}" in prompt and "Task: Your task is to" in prompt


async def test_codeact_wins_a_sciworld_episode_in_one_cell():
    actions = registry.provider("sciworld").gold_actions("find-animal/0")
    llm = ScriptedLLM([ScriptEntry(cell_answer(loop_cell(actions)), purpose="act", once=True)])
    agent = make_agent(run_settings(agent="codeact"), episode_named("sciworld:find-animal/0"), llm)
    events = await play(agent)
    assert events[-1].success and events[-1].llm_calls == 1
    assert sum(isinstance(e, ev.ActionSent) for e in events) == len(actions)
