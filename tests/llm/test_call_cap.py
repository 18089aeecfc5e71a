"""A profile's `max_concurrency`: at most that many calls in flight to the model at once."""

from __future__ import annotations

import asyncio
import threading

import pytest

from agent.llm.openai_client import OpenAILLM
from agent.llm.profiles import Profile, ProfileError, load_profiles
from mockllm.openai_server import OpenAICompatibleServer


CALLS = 3  # three episodes, each with its own client, asking at once
HANG = 30.0  # bounds a broken cap's hang only (a cap that lets fewer calls through than it says)
OVER = 0.05  # how long a held wave waits for a call over the cap: the calls are all sent at once, so one over it is there at once


class InFlight:
    """The server's answer to each call, holding it until its wave is in flight together: as many calls as the
    cap should let through (fewer for the last), so the most in flight at once is the cap's whole, never a
    matter of timing; then, below the cap of all calls, a moment for a call over the cap to arrive (it ends the
    wait at once)."""

    def __init__(self, peak: int) -> None:
        self.peak, self.now, self.most, self.done = peak, 0, 0, 0
        self.changed = threading.Condition()

    def __call__(self, prompt: str) -> str:
        with self.changed:
            self.now += 1
            self.most = max(self.most, self.now)
            self.changed.notify_all()
            self.changed.wait_for(lambda: self.now >= min(self.peak, CALLS - self.done), timeout=HANG)
            if self.peak < CALLS:
                self.changed.wait_for(lambda: self.most > self.peak, timeout=OVER)
            self.now -= 1
            self.done += 1
            self.changed.notify_all()
        return "<execute>\nrun('look')\n</execute>"


@pytest.mark.parametrize("cap, most", [(0, 3), (2, 2), (1, 1)])
async def test_calls_in_flight_never_exceed_the_profiles_cap(cap: int, most: int) -> None:
    counter = InFlight(most)
    with OpenAICompatibleServer(counter) as server:
        profile = Profile(name=f"capped{cap}", model="local-test-model", api_key="k", base_url=server.base_url,
                          max_concurrency=cap)
        llms = [OpenAILLM(profile) for _ in range(CALLS)]  # three episodes, each with its own client
        await asyncio.gather(*(llm.complete("solve the task") for llm in llms))
    assert counter.most == most


def test_a_negative_cap_is_refused_with_its_line(tmp_path) -> None:
    path = tmp_path / "profiles.yaml"
    path.write_text("models:\n  a:\n    model: m\n    max_concurrency: -1\n")
    with pytest.raises(ProfileError, match=r"models.a.max_concurrency must be 1 or more .*line 4"):
        load_profiles(path)
