"""The response cache keeps only answers an agent took: a re-ask after a refusal reaches the model,
and the next run does not inherit a refused answer. The bundled test server answers an error when
its script has no answer.

Real parts: the ReCode agent (on the toy world, tests/toyenv: the cache, not the engine, is what is
tested), the real openai client against the local OpenAI-compatible server on 127.0.0.1, the cache in a
real folder.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from agent.llm import LLMError
from agent.llm.cache import with_cache
from agent.llm.openai_client import OpenAILLM
from agent.llm.profiles import Profile
from agent.runtime import events as ev
from mockllm.openai_server import OpenAICompatibleServer, entries_responder, write_profiles
from mockllm.scripted import ScriptEntry
from recode_tui.setup.build import make_agent, make_llm
from tests.settings import episode_named, in_process, run_settings

JUNK = "I would look around the room first."  # no <execute>: ReCode refuses it
GOOD = '<think>look first</think>\n<execute>\nrun("look")\n</execute>'


class SamplingModel:
    """A model that samples: the same prompt may get another answer the next time it reaches it.

    The first prompt and the first re-ask get the junk; the re-ask's prompt asked a second time
    gets a good answer. Only a call that reaches the server can get it.
    """

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()

    def __call__(self, prompt: str) -> str:
        self.seen[prompt] += 1
        if "# Current function to expand" not in prompt:
            return GOOD
        is_reask = "rejected" in prompt.split("# Current function to expand")[-1]
        return GOOD if is_reask and self.seen[prompt] > 1 else JUNK


async def first_answer(agent) -> list[ev.Event]:
    """Step until the first accepted answer (or the end): every event so far."""
    events: list[ev.Event] = []
    while not agent.host.done and not any(isinstance(e, ev.LLMAnswered) for e in events):
        events.append(await agent.step())
    return events


def cached_texts(folder: Path) -> list[str]:
    return [json.loads(file.read_text())["text"] for file in folder.rglob("*.json")]


async def test_a_reask_after_a_refusal_reaches_the_model_and_a_refused_answer_is_never_kept(tmp_path, toy_game):
    model = SamplingModel()
    cache = tmp_path / "cache"
    with OpenAICompatibleServer(model) as server:
        profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, max_retries=0)

        async def play() -> list[ev.Event]:
            llm = with_cache(make_llm("profile:local", str(profiles), agent_name="recode"), cache, always=True)
            agent = make_agent(run_settings(agent="recode"), episode_named(toy_game), llm, runner_maker=in_process)
            try:
                return await first_answer(agent)
            finally:
                await agent.close()

        events = await play()
        refused = [e for e in events if isinstance(e, ev.LLMRejected)]
        answered = [e for e in events if isinstance(e, ev.LLMAnswered)]
        # junk, junk again, then the re-ask's prompt once more: the model's new sample, not the cached junk
        assert [e.raw for e in refused] == [JUNK, JUNK] and not any(e.cached for e in refused)
        assert len(answered) == 1 and not answered[0].cached and "run(\"look\")" in answered[0].raw
        assert len(server.calls) == 3
        assert cached_texts(cache) == [GOOD]  # only the taken answer was kept

        paid = len(server.calls)
        again = await play()
        # the first prompt's junk was never kept: the next run asks the model again
        assert len(server.calls) > paid and server.calls[paid].answer == JUNK
        assert not any(e.cached for e in again if isinstance(e, ev.LLMRejected))
        assert JUNK not in cached_texts(cache)


async def test_a_kept_answer_an_agent_refuses_is_dropped(tmp_path):
    """An answer kept earlier that the agent now refuses (its judge changed) is never served again."""
    answers = iter([GOOD, JUNK])
    with OpenAICompatibleServer(lambda prompt: next(answers)) as server:
        llm = OpenAILLM(Profile(name="local", model="m", api_key="k", base_url=server.base_url, max_retries=0))
        cached = with_cache(llm, tmp_path / "cache", always=True)
        first = await cached.complete("the same prompt")
        assert first.judged is not None
        first.judged(True)  # taken: kept
        hit = await cached.complete("the same prompt")
        assert hit.cached and hit.text == GOOD and len(server.calls) == 1
        assert hit.judged is not None
        hit.judged(False)  # refused now: dropped
        fresh = await cached.complete("the same prompt")
        assert not fresh.cached and fresh.text == JUNK and len(server.calls) == 2


async def test_the_test_server_answers_an_error_when_its_script_has_none():
    script = [ScriptEntry("<execute>\nrun('look')\n</execute>", stub="known_stub()")]
    prompt = "# Current function to expand\nother_stub()\n# Available"
    with OpenAICompatibleServer(entries_responder(script)) as server:
        llm = OpenAILLM(Profile(name="local", model="m", api_key="k", base_url=server.base_url, max_retries=0))
        with pytest.raises(LLMError) as caught:
            await llm.complete(prompt)
    assert server.calls[-1].status == 400 and server.calls[-1].answer is None
    message = str(caught.value)
    assert "refused the request (HTTP 400): the script has no answer for stub `other_stub()`" in message
    assert "\n" not in message
