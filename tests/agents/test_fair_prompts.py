"""The same environment facts, the same action list and a stated budget in every agent's first
prompt, on both environments (the real ALFWorld engine and the real ScienceWorld simulator)."""

from __future__ import annotations

import shutil

import pytest

from agent.runtime import events as ev
from agent.runtime.prompts import env_text
from mockllm.scripted import ScriptedLLM
from recode_tui.setup.build import make_agent
from tests.settings import episode_named, run_settings

pytestmark = pytest.mark.heavy  # ScienceWorld's JVM


AGENTS = ["recode", "react", "codeact", "plan-execute", "recap"]
EPISODES = {"alfworld": "put-01", "sciworld": "sciworld:power-component/0"}
needs_java = pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime")


async def first_prompt(episode: str, agent_name: str, **kwargs) -> str:
    """The prompt of the agent's first LLM call (asked of nobody: the request event comes first)."""
    agent = make_agent(run_settings(agent=agent_name, **kwargs), episode_named(episode), ScriptedLLM([]))
    try:
        while True:
            event = await agent.step()
            if isinstance(event, ev.LLMRequested):
                return event.prompt
            assert not isinstance(event, ev.RunFinished), event.reason
    finally:
        await agent.close()


@pytest.mark.parametrize("env", [pytest.param("alfworld"), pytest.param("sciworld", marks=needs_java)])
@pytest.mark.parametrize("agent", AGENTS)
async def test_every_agents_first_prompt_has_its_environments_facts_and_the_shared_action_list(agent, env):
    prompt = await first_prompt(EPISODES[env], agent)
    facts, actions = env_text(env, "facts.txt"), env_text(env, "actions.txt")
    assert facts and actions
    assert facts in prompt and actions in prompt
    if env == "sciworld":
        for line in ("Text in parentheses is a description", "wait1", "anode", "terminal 1", "connect {obj} to {obj}"):
            assert line in prompt
        for alfworld_only in ("Nothing happens", "butterknife", "cabinet 1"):  # no ALFWorld text in generic rules
            assert alfworld_only not in prompt
    else:
        for line in ("must be opened", "already at also answers \"Nothing happens.\"", "only after going to"):
            assert line in prompt


@pytest.mark.parametrize("agent, budget", [
    ("recode", "Steps left: 80 of 80"),
    ("react", "(80 of 80 steps left)"),
    ("codeact", "after 6 cells in a row that raise"),
    ("plan-execute", "at most 10 commands for one plan step"),
    ("recap", "at most 16 answers after the first at one level"),
])
async def test_every_agents_first_prompt_states_its_budget(agent, budget):
    prompt = await first_prompt(EPISODES["alfworld"], agent)
    assert budget in prompt
    assert "80" in prompt  # the episode's step limit


async def test_react_has_a_stated_default_history_window():
    prompt = await first_prompt(EPISODES["alfworld"], "react")
    assert "# The turns so far (the last 30 turns are shown; each turn spends one step)" in prompt
