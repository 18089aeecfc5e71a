"""Each baseline agent's WebShop few-shot examples, played as its answers on the real WebShop, win the
instructions they were written for; and the agent's first prompt carries them."""

from __future__ import annotations

import pytest

from agent.runtime import events as ev
from mockllm.scripted import ScriptedLLM
from recode_tui.setup.build import make_agent
from tests.envs.webshop_helpers import webshop  # noqa: F401 - the fixture

from .webshop_examples import EXAMPLES
from tests.settings import episode_named, in_process, run_settings

AGENTS = ["react", "codeact", "plan-execute", "recap"]


def goal_of(provider, instruction: str) -> str:
    for episode in provider.episodes():
        if provider.catalogue.goal(episode.id).instruction == instruction:
            return episode.id
    raise AssertionError(f"no bundled goal has the instruction {instruction!r}")


@pytest.mark.parametrize("agent_name", AGENTS)
async def test_the_agents_examples_played_as_its_answers_win_their_instructions(webshop, agent_name):
    examples = EXAMPLES[agent_name]()
    assert examples
    for example in examples:
        episode = "webshop:" + goal_of(webshop, example.instruction)
        agent = make_agent(run_settings(agent=agent_name), episode_named(episode), ScriptedLLM(example.entries),
                           runner_maker=in_process)  # in-process: WebShop's prompts are what this checks
        sent, prompts, observations = [], [], []
        try:
            while not agent.host.done:
                event = await agent.step()
                if isinstance(event, ev.ActionSent):
                    sent.append(event.action)
                elif isinstance(event, ev.ObservationReceived):
                    observations.append(event.observation)
                elif isinstance(event, ev.LLMRequested):
                    prompts.append(event.prompt)
        finally:
            await agent.close()
        assert agent.env.won and agent.env.reward == 1.0, f"{agent_name} {episode}: {agent.env.score} after {sent}"
        if example.actions:
            assert sent == example.actions  # the example's own clicks, none refused or skipped
        else:  # code computes its clicks: what the example's output shows is what the site answered
            assert observations and all(o in example.text for o in observations)
        assert not any("Invalid action" in o for o in observations)
        assert example.instruction in prompts[0] and any("Truique Office Chair" in p for p in prompts)  # examples shown
