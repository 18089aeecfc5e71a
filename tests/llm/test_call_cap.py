"""A profile's `max_concurrency`: at most that many calls in flight to the model at once."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from agent.llm.openai_client import OpenAILLM
from agent.llm.profiles import Profile, ProfileError, load_profiles
from mockllm.openai_server import OpenAICompatibleServer


class InFlight:
    def __init__(self) -> None:
        self.now, self.most, self.lock = 0, 0, threading.Lock()

    def __call__(self, prompt: str) -> str:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(0.2)
        with self.lock:
            self.now -= 1
        return "<execute>\nrun('look')\n</execute>"


@pytest.mark.parametrize("cap, most", [(0, 3), (2, 2), (1, 1)])
async def test_calls_in_flight_never_exceed_the_profiles_cap(cap: int, most: int) -> None:
    counter = InFlight()
    with OpenAICompatibleServer(counter) as server:
        profile = Profile(name=f"capped{cap}", model="local-test-model", api_key="k", base_url=server.base_url,
                          max_concurrency=cap)
        llms = [OpenAILLM(profile) for _ in range(3)]  # three episodes, each with its own client
        await asyncio.gather(*(llm.complete("solve the task") for llm in llms))
    assert counter.most == most


def test_a_negative_cap_is_refused_with_its_line(tmp_path) -> None:
    path = tmp_path / "profiles.yaml"
    path.write_text("models:\n  a:\n    model: m\n    max_concurrency: -1\n")
    with pytest.raises(ProfileError, match=r"models.a.max_concurrency must be 1 or more .*line 4"):
        load_profiles(path)
