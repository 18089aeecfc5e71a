"""The environment seam: names to providers, short episode references, fingerprints."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from agent.sessions.journal import file_hash
from envs import registry
from envs.alfworld.catalog import resolve_game
from envs.base import Env, EnvError, Reset
from envs.base import Episode
from envs.provider import EnvProvider


def test_alfworld_is_registered_and_lists_its_bundled_episodes() -> None:
    provider = registry.provider("alfworld")
    episodes = provider.episodes()
    assert "alfworld" in registry.names()
    assert {e.task_type for e in episodes} == set(provider.task_types)
    put = next(e for e in episodes if e.id == "put-01")
    assert put.ref == "alfworld:put-01" and "vase" in put.task
    assert all(e.task_type == "heat" for e in provider.episodes(task_types=["heat"]))


def test_episode_references_with_and_without_the_environment_name() -> None:
    EpisodeRef = registry.EpisodeRef
    assert EpisodeRef.parse("alfworld:put-01") == EpisodeRef("alfworld", "put-01", "put-01")
    assert EpisodeRef.parse("put-01", "alfworld") == EpisodeRef("alfworld", "put-01", "put-01")
    assert EpisodeRef.parse("alfworld:valid_unseen/12") == EpisodeRef("alfworld", "valid_unseen/12", "valid_unseen/12")
    assert EpisodeRef.parse("boil/0", "sciworld") == EpisodeRef("sciworld", "boil/0", "sciworld:boil/0")
    assert EpisodeRef.parse("C:/games/put.tw-pddl") == EpisodeRef("alfworld", "C:/games/put.tw-pddl", "C:/games/put.tw-pddl")
    with pytest.raises(EnvError, match="--env"):
        EpisodeRef.parse("alfworld:put-01", "sciworld")


def test_an_unknown_environment_names_the_known_ones() -> None:
    with pytest.raises(EnvError, match="unknown environment 'nope'.*alfworld"):
        registry.provider("nope")


def test_fingerprint_matches_the_game_hash_old_journals_store() -> None:
    """Journals written before the seam keep `game_hash`; the provider's fingerprint is the same value."""
    assert registry.fingerprint("alfworld:put-01") == file_hash(resolve_game("put-01"))
    assert registry.fingerprint("put-01") != registry.fingerprint("put-02")


def test_make_env_plays_the_real_game_with_the_step_limit() -> None:
    env = registry.make_env("alfworld:put-01", max_steps=3)
    try:
        reset = env.reset()
        assert "vase" in reset.instruction
        for _ in range(3):
            env.step("look")
        assert env.done and not env.won and env.steps == 3
    finally:
        env.close()
    assert registry.provider("alfworld").label("put-01") == "put-01 · put"


@dataclass
class _CounterEnv(Env):
    """A test environment: win by saying `count` three times."""

    max_steps: int = 5
    name: str = "counter"
    task_type: str | None = "count"
    said: list[str] = field(default_factory=list)

    def reset(self) -> Reset:
        return Reset("say count three times", "nothing counted yet", "say count three times")

    def step(self, action: str) -> str:
        self.said.append(action)
        return f"{self.said.count('count')} counted"

    @property
    def done(self) -> bool:
        return self.won or len(self.said) >= self.max_steps

    @property
    def won(self) -> bool:
        return self.said.count("count") >= 3

    @property
    def steps(self) -> int:
        return len(self.said)

    def close(self) -> None:
        pass


class _CounterProvider(EnvProvider):
    name = "counter"
    task_types = ("count",)
    default_max_steps = 5
    prompt_folder = "counter"

    def episodes(self, split=None, task_types=None):
        return [Episode(self.name, "c-1", "count", "say count three times")]

    def make_env(self, episode, max_steps=None):
        if episode != "c-1":
            raise EnvError(f"no episode {episode!r}; use c-1")
        return _CounterEnv(max_steps or self.default_max_steps)

    def fingerprint(self, episode):
        return "counter-v1"

    def label(self, episode):
        return episode


def test_a_new_environment_is_one_registration() -> None:
    registry.register("counter", _CounterProvider)
    try:
        assert isinstance(registry.provider("counter"), EnvProvider)
        env = registry.make_env("counter:c-1")
        env.reset()
        for _ in range(3):
            env.step("count")
        assert env.won
        with pytest.raises(EnvError, match="use c-1"):
            registry.make_env("c-9", env="counter")
    finally:
        registry.unregister("counter")
    assert "counter" not in registry.names()
