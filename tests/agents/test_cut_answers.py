"""An answer the model's max_tokens cut short is the model's answer: each agent judges it by its own
rule (what part of it stands on its own), and a cut answer with nothing usable is re-asked with the
reason in that agent's words, never treated as a server failure.

Real parts: every agent on the toy world (tests/toyenv, put-01's task), the real openai client against the local
OpenAI-compatible server on 127.0.0.1 answering with `finish_reason: length`.
"""

from __future__ import annotations

import pytest

from agent.runtime import events as ev
from mockllm.openai_server import OpenAICompatibleServer, Reply, write_profiles
from recode_tui.setup.build import make_agent, make_llm
from tests.settings import episode_named, run_settings

pytestmark = pytest.mark.heavy  # the sandbox worker


@pytest.fixture(autouse=True)
def toy(toy_env):
    """The toy world (tests/toyenv): what is checked is each agent's rule, not the engine."""
    return toy_env


# each agent's first answer on put-01's task (toy:vase-1), cut after a part that stands on its own, and what that part does
USABLE = {
    "recode": ('<think>look first</think>\n<execute>\nrun("look")\n</execute>\n<think>and then I would',
               'run("look")'),
    "codeact": ('<think>look first</think>\n<execute>\nrun("look")\n</execute>\nNext I will', 'run("look")'),
    "react": ("Thought: the vase may be on the table.\nAction: go to diningtable 1\nObservation: You arrive at din",
              "go to diningtable 1"),
    "recap": ("Thought: the table first\nSubtasks:\n1. action: go to diningtable 1\n2. subtask: take the va",
              "action: go to diningtable 1"),
}
# each agent's first answer cut with nothing usable, and the reason in that agent's words
UNUSABLE = {
    "recode": ('<think>look first</think>\n<execute>\nrun("lo', "before </execute>"),
    "codeact": ('<think>look first</think>\n<execute>\nrun("lo', "before </execute>"),
    "react": ("Thought: the vase may be on the table.\nAction: go to dining", "before a whole `Action:` line"),
    "recap": ("Thought: the table first\nSubtasks:\n1. action: go to dini", "before a whole subtask line"),
    "plan-execute": ('{"thought": "find the vase", "steps": [{"id": "s1", "descr', "before the plan's JSON ended"),
}


def agent_for(tmp_path, server: OpenAICompatibleServer, agent: str):
    profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, max_retries=0)
    return make_agent(run_settings(agent=agent), episode_named("toy:vase-1"),
                       make_llm("profile:local", str(profiles), agent_name=agent))


async def until(agent, done) -> list[ev.Event]:
    """Step until `done(events)`, the end, or an LLM failure (which the next step would only repeat)."""
    events: list[ev.Event] = []
    while not agent.host.done and not done(events) and not any(isinstance(e, ev.LLMFailed) for e in events):
        events.append(await agent.step())
    return events


@pytest.mark.parametrize("agent_name", list(USABLE))
async def test_an_answer_cut_after_a_whole_part_is_taken_and_acted_on(tmp_path, agent_name):
    text, does = USABLE[agent_name]
    with OpenAICompatibleServer(lambda prompt: Reply(text, "length")) as server:
        agent = agent_for(tmp_path, server, agent_name)
        try:
            events = await until(agent, lambda seen: any(isinstance(e, ev.ActionSent) for e in seen))
        finally:
            await agent.close()
    assert not [e for e in events if isinstance(e, (ev.LLMRejected, ev.LLMFailed))]
    answered = next(e for e in events if isinstance(e, ev.LLMAnswered))
    assert answered.cut_at == 2048 and any(does in block for block in answered.blocks)
    assert answered.input_tokens > 0 and answered.output_tokens > 0


@pytest.mark.parametrize("agent_name", list(UNUSABLE))
async def test_a_cut_answer_with_nothing_usable_is_reasked_in_the_agents_words(tmp_path, agent_name):
    text, missing = UNUSABLE[agent_name]
    with OpenAICompatibleServer(lambda prompt: Reply(text, "length")) as server:
        agent = agent_for(tmp_path, server, agent_name)
        try:
            events = await until(agent, lambda seen: sum(isinstance(e, ev.LLMRequested) for e in seen) == 2)
        finally:
            await agent.close()
    assert not [e for e in events if isinstance(e, ev.LLMFailed)]  # the model's answer, not a server failure
    refused = next(e for e in events if isinstance(e, ev.LLMRejected))
    assert refused.reason.startswith(f"the answer was cut at max_tokens=2048 {missing}")
    assert refused.cut_at == 2048 and refused.raw == text
    assert refused.output_tokens == server.calls[0].completion_tokens > 0  # billed, and counted
    if agent_name not in ("recode", "codeact"):
        assert "</execute>" not in refused.reason  # ReCode's tag is no other agent's rule
    again = [e for e in events if isinstance(e, ev.LLMRequested)][1]
    assert again.attempt == 2 and missing in again.prompt  # asked again with the reason
