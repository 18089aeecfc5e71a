"""Each agent's ALFWorld few-shot examples, played as its answers through the real engine, win the
bundled game each was written for: every action is one the example shows, every observation the
example shows is what the agent answered, and the first prompt shows that task type's example
only (examples are chosen per task type, so the prompt does not carry all six)."""

from __future__ import annotations

from functools import lru_cache

import pytest

from agent.runtime import events as ev
from envs.alfworld.catalog import list_games, resolve_game
from envs.alfworld.env import AlfworldEnv
from mockllm.scripted import ScriptedLLM
from recode_tui.setup.build import make_agent

from .agent_examples import AGENTS, Example, examples_of
from tests.settings import episode_named, run_settings

pytestmark = pytest.mark.heavy  # real ALFWorld games


TASK_TYPES = ("put", "clean", "heat", "cool", "examine", "puttwo")


def game_of(example: Example) -> str:
    """The bundled game with the example's task and first observation."""
    game = _game_starting(example.instruction, example.first_observation)
    assert game, f"{example.source}: no bundled game starts as the example does ({example.instruction!r})"
    return game


@lru_cache(maxsize=None)
def _game_starting(task: str, first_observation: str) -> str:
    for game in list_games(list(TASK_TYPES)):
        if game.task.strip() == task:
            env = AlfworldEnv(resolve_game(game.id))
            try:
                if env.reset().observation.strip() == first_observation:
                    return game.id
            finally:
                env.close()
    return ""


async def play(episode_ref: str, example: Example, agent_name: str) -> tuple[object, list[str], list[str], list[str]]:
    agent = make_agent(run_settings(agent=agent_name, max_steps=50), episode_named(episode_ref), ScriptedLLM(example.entries))
    sent, observations, prompts = [], [], []
    try:
        while not agent.host.done:
            event = await agent.step()
            if isinstance(event, ev.ActionSent):
                sent.append(event.action)
            elif isinstance(event, ev.ObservationReceived):
                observations.append(event.observation.strip())
            elif isinstance(event, ev.LLMRequested):
                prompts.append(event.prompt)
    finally:
        await agent.close()
    return agent, sent, observations, prompts


@pytest.mark.parametrize("agent_name", AGENTS)
async def test_the_agents_alfworld_examples_played_as_its_answers_win_their_games(agent_name: str) -> None:
    examples = examples_of(agent_name, "alfworld")
    games = {game_of(ex): ex for ex in examples}
    assert sorted(g.split("-")[0] for g in games) == sorted(TASK_TYPES), "one example per task type"
    for game, example in games.items():
        agent, sent, observations, prompts = await play(game, example, agent_name)
        assert agent.env.won, f"{agent_name} {example.source} on {game}: lost after {sent}"
        if example.actions:  # the example's own actions, each answered as the example shows
            assert sent == example.actions, example.source
            assert observations == example.observations, example.source
        else:  # code computes its actions: each answer is one the example's output shows
            assert observations and all(o in example.text for o in observations), example.source
        first = prompts[0]
        assert example.instruction in first, f"{agent_name}: the first prompt of {game} lacks its example"
        others = [ex.instruction for g, ex in games.items() if g != game]
        assert not any(f"Task: {o}" in first for o in others), f"{agent_name}: {game}'s prompt shows other types' examples"

