"""ReviewLLM without any UI: the model proposes, decisions decide the source and the record."""

from __future__ import annotations

import asyncio

import pytest

from agent.llm import CallContext, Completion, LLMError, Usage
from mockllm.review import ReviewLLM


class Counting:
    name = "fake"

    def __init__(self, *texts: str) -> None:
        self.texts = list(texts)

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion:
        return Completion(self.texts.pop(0), Usage(10, 5), 0.25, "model")


async def review(llm: ReviewLLM, *decisions) -> Completion:
    task = asyncio.ensure_future(llm.complete("prompt"))
    for decide in decisions:
        while not llm.waiting:
            await asyncio.sleep(0)
        decide(llm)
    return await task


async def test_accept_as_is_and_edited() -> None:
    done = await review(ReviewLLM(Counting("A")), lambda r: r.accept())
    assert (done.text, done.source, done.proposed) == ("A", "model", "A")
    done = await review(ReviewLLM(Counting("A")), lambda r: r.accept("A, edited"))
    assert (done.text, done.source, done.proposed) == ("A, edited", "model+edited", "A")


async def test_regenerate_counts_every_call_and_records_the_last_proposal() -> None:
    seen = []
    llm = ReviewLLM(Counting("A", "B"), on_proposal=seen.append)
    done = await review(llm, lambda r: r.regenerate(), lambda r: r.accept())
    assert [p.text for p in seen] == ["A", "B"] and [p.round for p in seen] == [1, 2]
    assert (done.text, done.proposed, done.usage, done.cost) == ("B", "B", Usage(20, 10), 0.5)


async def test_reject_then_own_text_is_the_persons() -> None:
    done = await review(ReviewLLM(Counting("A")), lambda r: r.reject(), lambda r: r.accept("mine"))
    assert (done.text, done.source, done.proposed) == ("mine", "human", "A")


async def test_cancel_is_an_llm_error_and_no_decision_without_a_proposal() -> None:
    llm = ReviewLLM(Counting("A"))
    with pytest.raises(RuntimeError):
        llm.accept()
    with pytest.raises(LLMError):
        await review(llm, lambda r: r.cancel())


async def test_a_regenerate_reaches_the_model_even_when_the_proposal_came_from_the_response_cache(tmp_path) -> None:
    """The person refused a cached proposal: asking again must not serve the same answer from the cache."""
    from agent.llm.cache import with_cache
    from agent.llm.openai_client import OpenAILLM
    from agent.llm.profiles import Profile
    from mockllm.openai_server import OpenAICompatibleServer

    answers = iter(["A", "B", "C"])
    with OpenAICompatibleServer(lambda prompt: next(answers)) as server:
        model = OpenAILLM(Profile(name="local", model="m", api_key="k", base_url=server.base_url, max_retries=0))
        earlier = await with_cache(model, tmp_path, always=True).complete("prompt")
        assert earlier.judged is not None
        earlier.judged(True)  # an earlier run's agent took "A": kept
        seen = []
        llm = ReviewLLM(with_cache(model, tmp_path, always=True), on_proposal=seen.append)
        done = await review(llm, lambda r: r.regenerate(), lambda r: r.accept())
    assert [p.text for p in seen] == ["A", "B"]  # "A" from the cache, then the model's new answer
    assert done.text == "B" and len(server.calls) == 2
