"""ReCode on ScienceWorld: the gold-path LLM wins real episodes through the sandboxed engine."""

from __future__ import annotations

import shutil

import pytest

from agent import events as ev
from agent.engine import Engine
from agent.prompt import DEFAULT_PROMPTS, PromptSet
from agent.runners import RunnerSettings
from envs import registry
from mockllm.gold import gold_llm, split_into_parts

pytestmark = pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (.ci/run installs one)")

# One variation of a few tasks from different topic groups; the benchmark-sized sweep of all
# 30 tasks lives in benchmarks/bench_sciworld_gold.py.
EPISODES = ["boil/0", "find-animal/0", "use-thermometer/0", "chemistry-mix/0", "lifespan-longest-lived/0"]


async def play(episode: str) -> tuple[Engine, list[ev.Event]]:
    provider = registry.provider("sciworld")
    llm = gold_llm(provider.gold_actions(episode))
    runner = RunnerSettings().make_runner()
    engine = Engine(provider.make_env(episode), llm, runner, prompts=PromptSet(DEFAULT_PROMPTS))
    events = []
    try:
        while not engine.done:
            events.append(await engine.step())
    finally:
        await engine.close()
    return engine, events


@pytest.mark.parametrize("episode", EPISODES)
async def test_the_gold_plan_wins_through_the_engine(episode: str) -> None:
    engine, events = await play(episode)
    finished = events[-1]
    assert isinstance(finished, ev.RunFinished) and finished.success, finished.reason
    assert engine.env.score == 100
    depths = {e.depth for e in events if isinstance(e, ev.StubFound)}
    assert depths == {0, 1}  # the root plan, then one placeholder per sub-goal


async def test_the_prompt_has_the_sciworld_actions_and_examples() -> None:
    engine, events = await play("find-animal/0")
    prompt = next(e.prompt for e in events if isinstance(e, ev.ExpansionRequested))
    assert "teleport to {location}" in prompt and "focus on {obj}" in prompt
    assert "animal = find_and_focus_animal(rooms)" in prompt  # the task type's own examples
    assert "Your task is to find a(n) animal" in prompt


def test_gold_paths_split_into_sub_goals_at_moves_and_focus() -> None:
    parts = split_into_parts(["open door to kitchen", "go to kitchen", "look around", "focus on x", "pick up x"])
    assert parts == [["open door to kitchen"], ["go to kitchen", "look around"], ["focus on x", "pick up x"]]
    assert len(split_into_parts([f"go to room {i}" for i in range(30)], max_parts=8)) == 8
