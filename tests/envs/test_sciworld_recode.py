"""ReCode on ScienceWorld: the gold-path LLM wins real episodes through the sandboxed engine."""

from __future__ import annotations

import asyncio
import shutil

import pytest

from agent.agents.recode.engine import Engine
from agent.runtime import events as ev
from agent.runtime.prompts import DEFAULT_PROMPTS, PromptSet
from agent.sandbox.settings import RunnerSettings
from envs import registry
from envs.sciworld.env import SciWorldEnv
from agent.runtime.gold_path import split_into_parts
from mockllm.gold import gold_llm
from mockllm.scripted import ScriptedLLM, ScriptEntry

pytestmark = [pytest.mark.heavy, pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (.ci/run installs one)")]

# The engine's own view of a won episode (the tree's depth); every task won through `run` is
# tests/envs/test_sciworld_all_tasks.py. use-thermometer/0's 22 gold actions are cut at the cap of 8 sub-goals,
# find-animal/0's 10 into 7 (boil/0's 39, in 3, heat the world on every step: 3 times the JVM's CPU).
EPISODES = ["use-thermometer/0", "find-animal/0"]


PLAYED: dict[str, tuple[Engine, list[ev.Event]]] = {}  # the tests that read the same won episode play it once


async def play(episode: str) -> tuple[Engine, list[ev.Event]]:
    """ReCode with the gold-path LLM on `episode`, played to its end (once per module: the tests only read it)."""
    if episode in PLAYED:
        return PLAYED[episode]
    provider = registry.provider("sciworld")
    llm = gold_llm(Engine, provider.gold_actions(episode))
    runner = RunnerSettings().make_runner()
    agent = Engine(provider.make_env(episode), llm, runner, prompts=PromptSet(DEFAULT_PROMPTS))
    events = []
    try:
        while not agent.host.done:
            events.append(await agent.step())
    finally:
        await agent.close()
    PLAYED[episode] = agent, events
    return agent, events


@pytest.mark.parametrize("episode", EPISODES)
async def test_the_gold_plan_wins_through_the_agent(episode: str) -> None:
    agent, events = await play(episode)
    finished = events[-1]
    assert isinstance(finished, ev.RunFinished) and finished.success, finished.reason
    assert agent.env.score == 100
    depths = {e.depth for e in events if isinstance(e, ev.StubFound)}
    assert depths == {0, 1}  # the root plan, then one placeholder per sub-goal


async def test_the_prompt_has_the_sciworld_actions_and_examples() -> None:
    agent, events = await play("find-animal/0")
    prompt = next(e.prompt for e in events if isinstance(e, ev.LLMRequested))
    assert "teleport to {location}" in prompt and "focus on {obj}" in prompt
    assert "obs = focus_and_take_animal()" in prompt  # the task type's own examples
    assert "Your task is to find a(n) animal" in prompt


def test_gold_paths_split_into_sub_goals_at_moves_and_focus() -> None:
    parts = split_into_parts(["open door to kitchen", "go to kitchen", "look around", "focus on x", "pick up x"])
    assert parts == [["open door to kitchen"], ["go to kitchen", "look around"], ["focus on x", "pick up x"]]
    assert len(split_into_parts([f"go to room {i}" for i in range(30)], max_parts=8)) == 8


async def test_an_action_the_simulator_does_not_parse_is_the_nodes_observation_and_the_plan_goes_on() -> None:
    plan = 'obs = run("fly to the moon")\nseen = run("look around")'
    llm = ScriptedLLM([ScriptEntry(f"<execute>\n{plan}\n</execute>", stub="solve(instruction, observation)")])
    agent = Engine(registry.make_env("sciworld:find-animal/0", max_steps=5), llm, RunnerSettings().make_runner())
    try:
        events = []
        while not agent.host.done:
            events.append(await agent.step())
    finally:
        await agent.close()
    observations = [e.observation for e in events if isinstance(e, ev.ObservationReceived)]
    assert observations[0] == "No known action matches that input." and "This room is called" in observations[1]
    assert not any(isinstance(e, ev.NodeError) and "fly" in e.code for e in events)  # no crash, no node error
    assert isinstance(events[-1], ev.RunFinished) and events[-1].steps == 2


async def test_a_jvm_that_dies_mid_episode_ends_the_run_with_one_line_and_the_next_episode_gets_a_new_one(
        process_jvm) -> None:
    simulator = process_jvm
    plan = 'run("look around")\nrun("look around")\nrun("look around")'

    def agent() -> Engine:
        llm = ScriptedLLM([ScriptEntry(f"<execute>\n{plan}\n</execute>", stub="solve(instruction, observation)")])
        return Engine(SciWorldEnv("find-animal/0", max_steps=5, simulator=simulator), llm, RunnerSettings().make_runner())

    first = agent()
    earlier = len(simulator.notes)
    try:
        event = None
        while not isinstance(event, ev.ObservationReceived):
            assert not first.host.done, event  # a run that ended before its first action would loop here for ever
            event = await first.step()
        simulator._env._gateway.java_process.kill()  # the JVM dies between two actions
        simulator._env._gateway.java_process.wait()
        events = []
        while not first.host.done:
            events.append(await first.step())
        finished = events[-1]
        assert isinstance(finished, ev.RunFinished) and not finished.success and finished.steps == 2
        [lost] = [e for e in events if isinstance(e, ev.ObservationReceived)]  # the action the JVM died under
        assert lost.observation.startswith("(simulator error:") and lost.done and not lost.won
        assert finished.reason == ("the ScienceWorld JVM had stopped before the action 'look around' "
                                   "(a new one starts with the next episode); the episode ends here")
        second = agent()
        try:
            again = await second.run()  # a new JVM: all three actions are played
            assert again.steps == 3 and again.reason == "no pending nodes left and the task is not done"
            assert simulator.notes[earlier:] == [
                "the ScienceWorld JVM had stopped; a new one starts with the next episode"]
        finally:
            await second.close()
    finally:
        await first.close()


def test_every_bundled_sciworld_example_passes_the_answer_check() -> None:
    from agent.agents.recode.examples import check_examples_text

    files = sorted((PromptSet(DEFAULT_PROMPTS).root / "sciworld" / "examples").glob("*.txt"))
    assert len(files) >= 2
    for file in files:
        checks = check_examples_text(file.read_text(encoding="utf-8"))
        assert len(checks) >= 2 and all(c.ok for c in checks), (file.name, [c.problems for c in checks if not c.ok])


async def test_a_simulator_that_hangs_mid_episode_ends_the_run_with_the_reason_and_the_loop_keeps_going(
        process_jvm) -> None:
    simulator = process_jvm
    plan = 'run("look around")\nrun("look around")\nrun("look around")'
    llm = ScriptedLLM([ScriptEntry(f"<execute>\n{plan}\n</execute>", stub="solve(instruction, observation)")])
    agent = Engine(SciWorldEnv("find-animal/0", max_steps=5, simulator=simulator), llm, RunnerSettings().make_runner())
    ticks = 0

    async def ticker() -> None:  # the engine awaits the simulator: the event loop is never blocked on it
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.005)

    clock = asyncio.ensure_future(ticker())
    try:
        event = None
        while not isinstance(event, ev.ObservationReceived):
            assert not agent.host.done, event  # a run that ended before its first action would loop here for ever
            event = await agent.step()
        simulator.call_timeout = 1e-6  # the next action does not answer in time
        finished = await agent.run()
        assert not finished.success and finished.steps == 2
        assert finished.reason.startswith("the simulator did not answer the action 'look around' within")
        assert not simulator.alive and ticks > 1
    finally:
        clock.cancel()
        await agent.close()
