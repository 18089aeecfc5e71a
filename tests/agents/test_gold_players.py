"""Every agent has a gold player on every environment with gold paths (`--llm gold`): the episode's
known solution in that agent's own answer format, so a two-agent offline evaluation works on
ScienceWorld and WebShop as the demo scripts make it work on ALFWorld.

Real parts: the real WebShop and ScienceWorld engines, every agent as the registry builds it. `make test`
plays each agent on one environment, taking turns; `make slow` every agent on both.
"""

from __future__ import annotations

import shutil

import pytest

from agent import agents
from agent.eval.executor import LocalExecutor
from envs import registry
from recode_tui.api import plan_evaluation, run_evaluation
from recode_tui.commands.arguments import eval_options
from recode_tui.commands.parser import build_parser
from recode_tui.setup.build import gold_llm_for, make_agent
from tests.eval.helpers import read_report
from tests.settings import EnvsInThisProcess, episode_named, run_settings

pytestmark = pytest.mark.heavy  # the real WebShop and ScienceWorld engines


AGENTS = ("recode", "react", "codeact", "plan-execute", "recap")
NEEDS_JAVA = pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (.ci/run installs one)")
EPISODES = {
    "webshop": pytest.param("webshop:0", id="webshop"),
    "sciworld": pytest.param("sciworld:find-animal/0", id="sciworld", marks=[pytest.mark.heavy, NEEDS_JAVA]),
}


def test_every_agent_declares_a_gold_player() -> None:
    for name in AGENTS:
        answers = agents.agent_class(name).gold_answers(["look around", "go to kitchen", "focus on water"])
        assert answers, f"{name} has no gold player"


def agent_episodes() -> list:
    """Every agent on every environment; `make test` plays each agent on one of them, taking turns (both
    environments, every agent), and `make slow` the rest."""
    cases = []
    for i, agent_name in enumerate(AGENTS):
        for j, (env, episode) in enumerate(EPISODES.items()):
            marks = [*episode.marks, *(() if i % len(EPISODES) == j else (pytest.mark.slow,))]
            cases.append(pytest.param(agent_name, episode.values[0], id=f"{env}-{agent_name}", marks=marks))
    return cases


@pytest.mark.parametrize("agent_name, episode", agent_episodes())
async def test_the_gold_player_wins_in_the_agents_own_answers(agent_name, episode) -> None:
    ref = episode_named(episode)
    agent = make_agent(run_settings(agent=agent_name), ref, gold_llm_for(ref, agent_name))
    try:
        finished = await agent.run()
    finally:
        await agent.close()
    assert finished.success, finished.reason
    assert finished.llm_calls >= 1 and agent.env.won


@NEEDS_JAVA
async def test_a_two_agent_offline_evaluation_runs_on_sciworld(tmp_path) -> None:
    out = tmp_path / "sci"
    args = build_parser().parse_args(["eval", "--env", "sciworld", "--agent", "recode,react", "--llm", "gold",
                                      "--games", "find-animal/0", "-c", "1", "--out", str(out), "--no-progress"])
    planned = plan_evaluation(eval_options(args))
    executor = LocalExecutor(planned.report, planned.llm_for, lambda lanes: EnvsInThisProcess(),
                             abort_on_llm_error=planned.abort_on_llm_error, sandbox=planned.sandbox,
                             cache_folder=planned.cache_folder)
    await run_evaluation(planned, executor)
    report = read_report(out)
    assert sorted(e["agent"] for e in report["episodes"]) == ["react", "recode"]
    assert all(e["success"] for e in report["episodes"])
