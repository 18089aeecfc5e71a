"""`--llm demo` plays each agent's own bundled demo script, and it wins the first bundled game of
each of the six ALFWorld task types (the real engine; the full sweep is benchmarks/bench_agents.py)."""

from __future__ import annotations

import asyncio

import pytest

from envs.alfworld.catalog import list_games
from recode_tui.setup.build import make_agent, make_llm
from tests.settings import episode_named, run_settings

pytestmark = pytest.mark.heavy  # real ALFWorld games


TYPES = ["put", "clean", "heat", "cool", "examine", "puttwo"]
AGENTS = ["react", "codeact", "plan-execute", "recap"]


async def _play(episode_ref: str, agent_name: str):
    agent = make_agent(run_settings(max_steps=50, agent=agent_name), episode_named(episode_ref), make_llm("demo", agent_name=agent_name))
    try:
        return await agent.run()
    finally:
        await agent.close()


@pytest.mark.parametrize("agent", AGENTS)
def test_each_agents_demo_wins_the_six_task_types(agent: str) -> None:
    for task_type in TYPES:
        game = list_games([task_type])[0].id
        finished = asyncio.run(_play(game, agent))
        assert finished.success, f"{agent} demo on {game}: {finished.reason}"
        assert finished.llm_calls >= 1


def test_demo_picks_the_agents_own_script() -> None:
    scripts = {agent: make_llm("demo", agent_name=agent).entries[0].purpose for agent in AGENTS}
    assert scripts == {"react": "act", "codeact": "act", "plan-execute": "plan", "recap": "decompose"}
    assert make_llm("demo").entries[0].stub.startswith("solve(")  # ReCode keeps its generic demo


def test_the_two_games_sharing_a_task_each_get_their_own_answers() -> None:
    # heat-01 and heat-04 both ask "put a hot cup in sinkbasin."; their walkthroughs differ
    for game in ("heat-01", "heat-04"):
        finished = asyncio.run(_play(game, "react"))
        assert finished.success, f"react demo on {game}: {finished.reason}"
