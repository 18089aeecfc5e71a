"""The console's environment in a worker started at the program's start (`EnvHost`), so a run is ready to step sooner.

What a person at the console reads of the environment must be the same whether it runs in the
process or in the early worker: the observations, the admissible commands (ReAct checks an
action against them), the translation into the game's grammar, and a bad game's one-line error.
"""

from __future__ import annotations

import pytest

from envs.registry import make_env
from recode_tui.setup.env_workers import RemoteEnv
from recode_tui.setup.env_host import EnvHost
from recode_tui.setup.usage import UsageError
from tests.settings import episode_named

pytestmark = pytest.mark.heavy  # real ALFWorld games


@pytest.fixture
def host():
    started = EnvHost("alfworld")
    started.start()
    yield started
    started.close()


def test_the_hosted_episode_reads_like_the_in_process_one(host):
    local = make_env("put-01", 80)
    hosted = host.make_env(episode_named("put-01"), 80)
    assert isinstance(hosted, RemoteEnv) and not host.waiting
    assert hosted.reset() == local.reset()
    assert hosted.admissible_commands == local.admissible_commands != []
    for action in local.walkthrough:
        # `put X in/on Y` in this game's grammar, and a command typed with extra spaces and capitals
        assert hosted.translate(f"  {action.upper()} ") == local.translate(f"  {action.upper()} ")
        assert hosted.step(action) == local.step(action)
        assert hosted.admissible_commands == local.admissible_commands
        assert (hosted.done, hosted.won, hosted.steps) == (local.done, local.won, local.steps)
    assert hosted.won
    local.close()
    hosted.close()


def test_closing_the_hosted_episode_ends_its_worker(host):
    hosted = host.make_env(episode_named("put-01"), 80)
    assert isinstance(hosted, RemoteEnv)
    process = hosted.worker.process
    hosted.reset()
    hosted.close()
    assert process.wait(timeout=10) is not None


def test_an_episode_of_another_environment_is_made_in_process_and_the_worker_ends(host, monkeypatch):
    made = []
    monkeypatch.setattr("recode_tui.setup.build.make_env", lambda ref, steps: made.append((ref.env, steps)) or "env")
    assert host.worker is not None
    process = host.worker.process
    assert host.make_env(episode_named("sciworld:boil/0"), 30) == "env"
    assert made == [("sciworld", 30)]
    assert process.wait(timeout=10) is not None and not host.waiting


def test_a_bad_game_is_one_line_that_says_what_to_do(host):
    with pytest.raises(UsageError) as error:
        host.make_env(episode_named("nope-99"), 80)
    assert "\n" not in str(error.value) and "recode-tui games list" in str(error.value)


def test_the_host_is_started_only_for_a_hosted_environment():
    assert EnvHost.for_arguments(None, None) is not None
    assert EnvHost.for_arguments(None, "alfworld:valid_seen/3") is not None
    assert EnvHost.for_arguments("sciworld", None) is None
    assert EnvHost.for_arguments(None, "webshop:12") is not None


def test_a_hosted_webshop_episode_shows_the_pages_choices_reward_and_invalid_clicks_as_in_process():
    """WebShop's page choices (listed at the console's stops) and its reward come with every reply."""
    host = EnvHost("webshop")
    host.start()
    try:
        episode = episode_named("webshop:0")
        local, hosted = make_env(episode.ref, 30), host.make_env(episode, 30)
        assert isinstance(hosted, RemoteEnv)
        assert hosted.reset() == local.reset()
        for action in ["click[nowhere]", *(episode.gold_actions() or [])]:
            observation = hosted.step(action)
            assert observation == local.step(action)
            assert hosted.state() == local.state() and hosted.is_invalid(observation) == local.is_invalid(observation)
        assert hosted.won and hosted.reward == 1.0 and hosted.choices() == []
        local.close()
        hosted.close()
    finally:
        host.close()
