"""Every agent's ScienceWorld few-shot examples (one task per topic, the same tasks for all five
agents), played as that agent's answers on the real simulator, win the variation each was written
for, with the observations the example shows. One JVM for the module (the shared simulator).

`make test` plays a sample that still covers every topic and every agent: each turn-based agent
plays two topics, a different two each, and ReCode's plans the topics left; the sweep of every
agent on every topic is marked `slow` (`make slow`)."""

from __future__ import annotations

import re
import shutil

import pytest

from agent.runtime import events as ev
from agent.runtime.prompts import PromptSet
from agent.agents.recode.authoring import play_examples
from envs.sciworld.tasks import all_tasks
from mockllm.scripted import ScriptedLLM
from recode_tui.setup.build import make_agent

from .agent_examples import AGENTS, Example, examples_of
from tests.settings import episode_named, run_settings

pytestmark = [pytest.mark.heavy, pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime")]

# the train variation each example was played on (its task and first observation are the variation's)
EPISODES = {
    "melt": "melt/4", "use-thermometer": "use-thermometer/3", "power-component": "power-component/5",
    "find-animal": "find-animal/3", "grow-plant": "grow-plant/0",
    "chemistry-mix-paint-secondary-color": "chemistry-mix-paint-secondary-color/1",
    "lifespan-longest-lived": "lifespan-longest-lived/0", "identify-life-stages-2": "identify-life-stages-2/3",
    "inclined-plane-determine-angle": "inclined-plane-determine-angle/0",
    "mendelian-genetics-known-plant": "mendelian-genetics-known-plant/0",
}


def test_the_examples_cover_every_topic_with_one_task_each() -> None:
    groups = {t.name: t.group for t in all_tasks()}
    assert sorted(groups[name] for name in EPISODES) == list(range(1, 11))


def lines(observation: str) -> list[str]:
    """An observation's lines in any order and with numbers blurred: the simulator lists a room's
    objects in no fixed order, and a temperature drifts a few degrees from one play to the next."""
    return sorted(re.sub(r"-?\d+", "N", line.strip()) for line in observation.splitlines())


def episode_of(example: Example) -> str:
    name = example.source.rsplit("/", 1)[1].removesuffix(".txt")
    return EPISODES[name]


async def play(episode: str, example: Example, agent_name: str) -> tuple[object, list[str], list[str], list[str]]:
    agent = make_agent(run_settings(agent=agent_name, max_steps=40), episode_named(f"sciworld:{episode}"),
                         ScriptedLLM(example.entries))
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


TOPICS = sorted(EPISODES)


def sampled(agent_index: int, topic_index: int) -> bool:
    """Agent i plays topics 2i and 2i+1 in `make test`: a topic played by one agent, every agent twice."""
    return topic_index // 2 == agent_index


AGENT_TOPICS = [pytest.param(agent, topic, id=f"{agent}-{topic}",
                             marks=() if sampled(i, j) else pytest.mark.slow)
                for i, agent in enumerate(AGENTS) for j, topic in enumerate(TOPICS)]


@pytest.mark.parametrize("agent_name", AGENTS)
def test_each_agent_has_one_sciworld_example_per_topic(agent_name: str) -> None:
    examples = examples_of(agent_name, "sciworld")
    assert sorted(episode_of(ex).split("/")[0] for ex in examples) == TOPICS


@pytest.mark.parametrize("agent_name, topic", AGENT_TOPICS)
async def test_the_agents_sciworld_example_played_as_its_answers_wins_its_variation(agent_name: str,
                                                                                     topic: str) -> None:
    examples = examples_of(agent_name, "sciworld")
    for example in [ex for ex in examples if episode_of(ex).split("/")[0] == topic]:
        episode = episode_of(example)
        agent, sent, observations, prompts = await play(episode, example, agent_name)
        assert agent.env.won, f"{agent_name} {example.source} on {episode}: score {agent.env.score} after {sent}"
        assert prompts[0].count(example.instruction) >= 1 and example.first_observation.splitlines()[0] in prompts[0]
        if example.actions:
            # the example's own actions; the simulator may finish a step early (a circuit can power its
            # device in the tick it closes, or one tick later), never later
            assert sent == example.actions[:len(sent)] and len(sent) >= len(example.actions) - 1, example.source
            shown = example.observations[:len(sent)]
            assert [lines(o) for o in observations] == [lines(o) for o in shown], example.source
        else:  # CodeAct's cells: every answer is one the example's output shows
            shown = set(lines(example.text))
            assert observations and all(set(lines(o)) <= shown for o in observations), example.source
        others = [ex.instruction for ex in examples if ex is not example]
        assert not any(o in prompts[0] for o in others), f"{agent_name} {episode}: other tasks' examples in the prompt"


PLAN_SAMPLE = {topic for j, topic in enumerate(TOPICS) if not any(sampled(i, j) for i in range(len(AGENTS)))}


@pytest.mark.parametrize("name", [pytest.param(name, marks=() if name in PLAN_SAMPLE else pytest.mark.slow)
                                  for name in TOPICS])
async def test_recodes_sciworld_example_played_as_the_plan_wins_its_variation(name: str) -> None:
    prompts = PromptSet()
    text = prompts.text(f"sciworld/examples/{name}.txt")
    play = await play_examples(text, f"sciworld:{EPISODES[name]}", env_name="sciworld", max_steps=40)
    assert play.won, f"{name}: {play.summary()} after {list(play.actions)}"
