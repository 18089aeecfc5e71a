"""The optional capabilities of envs/protocols.py, offered by a plug-in provider, reach the front ends;
a provider without them gets the documented defaults."""

from __future__ import annotations

from typing import Iterable

import pytest

from agent.sessions.journal import read_journal
from envs import protocols, registry
from recode_tui.commands.cli import main
from tests import toyenv
from tests.toyenv.world import ToyProvider

COIN = toyenv.SCRIPTS / "coin.yaml"


class RichToy(ToyProvider):
    """The toy world with every optional provider capability it can sensibly have."""

    name = "rich-toy"

    def overview(self, task_types: Iterable[str] | None = None) -> list[str]:
        return [f"{t}: {sum(e.task_type == t for e in self.episodes())} episodes" for t in self.task_types
                if task_types is None or t in task_types]

    def header_fields(self, episode: str) -> dict[str, str]:
        return {"room_count": str(len(self.episode(episode).task))}

    def step_limit(self, episode: str) -> int:
        return 7

    def topic_of(self, task_type: str) -> str:
        return "hands" if task_type == "take" else "places"


@pytest.fixture
def rich(toy_env):
    registry.register("rich-toy", RichToy)
    yield
    registry.unregister("rich-toy")


def test_each_capability_is_a_declared_protocol(rich):
    rich_toy, plain = registry.provider("rich-toy"), registry.provider("toy")
    for capability in (protocols.Overview, protocols.HeaderFields, protocols.StepLimits, protocols.Topics,
                       protocols.EpisodeLookup, protocols.GoldActions):
        assert isinstance(rich_toy, capability)
    assert not isinstance(plain, protocols.Overview) and not isinstance(plain, protocols.StepLimits)
    assert isinstance(plain, protocols.GoldActions)


def test_games_list_shows_a_providers_overview_and_lists_episodes_without_one(rich, capsys):
    assert main(["games", "list", "--env", "rich-toy"]) == 0
    assert capsys.readouterr().out.split("\n")[:2] == ["put: 2 episodes", "take: 2 episodes"]
    assert main(["games", "list", "--env", "toy", "--task-type", "take"]) == 0
    assert capsys.readouterr().out.split()[:2] == ["coin-1", "take"]


def test_a_run_keeps_the_providers_header_fields_and_its_per_episode_step_limit(rich, tmp_path, capsys):
    sessions = tmp_path / "sessions"
    assert main(["run", "--env", "rich-toy", "--agent", "one-action", "--game", "coin-1", "--quiet",
                 "--llm", f"scripted:{COIN}", "--sessions", str(sessions)]) == 0
    [folder] = sessions.iterdir()
    header = read_journal(folder).header
    assert header.extra["room_count"] == str(len("take a coin.")) and header.env == "rich-toy"
    assert registry.step_limit("rich-toy:coin-1", 50, None) == 7  # the episode's own limit over the preset's
    assert registry.step_limit("toy:coin-1", None, None) == 30  # no own limit, no preset's: default_max_steps
    assert registry.step_limit("toy:coin-1", 50, 3) == 3  # --max-steps always wins


def test_environment_capabilities_are_read_with_their_defaults():
    class Bare:
        pass

    class Full:
        score, reward, failure, end_reason = 40, 1.0, "the simulator hung", "task failed"
        admissible_commands = ["look"]

        def translate(self, action: str) -> str:
            return action.upper()

    assert (protocols.score_of(Bare()), protocols.failure_of(Bare()), protocols.end_reason_of(Bare())) == (None, "", "")
    assert protocols.admissible_commands_of(Bare()) is None and protocols.translate_of(Bare(), "go") == "go"
    assert (protocols.score_of(Full()), protocols.failure_of(Full()), protocols.end_reason_of(Full())) == (
        40, "the simulator hung", "task failed")
    assert protocols.admissible_commands_of(Full()) == ["look"] and protocols.translate_of(Full(), "go") == "GO"
    assert protocols.reward_of(Full()) == 1.0 and protocols.has_reward(Full()) and not protocols.has_reward(Bare())
