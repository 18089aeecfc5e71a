"""The optional capabilities of `envs.provider.EnvProvider`, offered by a plug-in provider, reach the
front ends; a provider without them gets the documented defaults."""

from __future__ import annotations

import json
from typing import Iterable

import pytest

from agent.sessions.journal_read import read_journal
from agent.sessions.replay import ReplayEnv
from envs import registry
from envs.base import Env, EnvError, EnvState, Episode, StateView
from envs.provider import Capability, EnvProvider
from recode_tui.commands.cli import main
from recode_tui.setup.env_workers import EnvWorker, RemoteEnv
from tests import toyenv
from tests.toyenv.world import ToyEnv, ToyProvider

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


def test_a_provider_offers_what_it_overrides(rich):
    rich_toy, plain = registry.provider("rich-toy"), registry.provider("toy")
    assert rich_toy.capabilities() == [Capability.EPISODE_LOOKUP, Capability.STEP_LIMIT, Capability.GOLD_ACTIONS,
                                       Capability.HEADER_FIELDS, Capability.TOPICS, Capability.OVERVIEW]
    assert plain.capabilities() == [Capability.EPISODE_LOOKUP, Capability.GOLD_ACTIONS]


class Minimal(EnvProvider):
    """Only what every environment must have."""

    name = "minimal"
    task_types = ("count",)
    default_max_steps = 9
    prompt_folder = "minimal"

    def episodes(self, split=None, task_types=None):
        return [Episode(self.name, "m-1", "count", "count to three")]

    def make_env(self, episode, max_steps=None):
        raise EnvError("not played here")

    def fingerprint(self, episode):
        return "minimal-v1"

    def label(self, episode):
        return episode


def test_a_provider_with_only_the_required_part_gets_every_default():
    registry.register("minimal", Minimal)
    try:
        source = registry.provider("minimal")
        assert source.capabilities() == []
        assert registry.episode("minimal:m-1").task == "count to three"  # found in its episodes
        with pytest.raises(EnvError, match="games list --env minimal"):
            registry.episode("minimal:m-9")
        assert registry.step_limit("minimal:m-1", None, None) == 9 and registry.step_limit("minimal:m-1", 50, None) == 50
        assert registry.gold_actions("minimal:m-1") is None
        assert registry.header_fields("minimal:m-1") == {"game": "minimal:m-1", "env": "minimal", "episode": "m-1",
                                                          "fingerprint": "minimal-v1"}
        assert registry.env_settings("minimal") == {}
        assert (source.topic_of("count"), source.overview(), source.preset_split("paper"), source.gold_cannot_win(),
                source.preset_warnings("paper"), source.paper_env) == (None, None, None, None, [], None)
        source.warm()
    finally:
        registry.unregister("minimal")


def test_a_factory_that_makes_no_provider_is_one_line():
    registry.register("loose", object)
    try:
        with pytest.raises(EnvError, match="not an EnvProvider; subclass envs.provider.EnvProvider"):
            registry.provider("loose")
    finally:
        registry.unregister("loose")


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
    assert header.extra["room_count"] == str(len("take a coin.")) and header.run.env.name == "rich-toy"
    assert registry.step_limit("rich-toy:coin-1", 50, None) == 7  # the episode's own limit over the preset's
    assert registry.step_limit("toy:coin-1", None, None) == 30  # no own limit, no preset's: default_max_steps
    assert registry.step_limit("toy:coin-1", 50, 3) == 3  # --max-steps always wins


class Full(ToyEnv):
    """The toy world with every optional environment capability."""

    score, reward, failure, end_reason = 40, 1.0, "the simulator hung", "task failed"
    admissible_commands = ["look"]
    score_log = [(1, 0.0, 40.0)]

    def translate(self, action: str) -> str:
        return action.upper()

    def choices(self) -> list[str]:
        return ["click[Buy Now]"]

    def abandon(self, reason: str) -> None:
        self.abandoned = reason


def _read(env: Env) -> tuple:
    return (env.score, env.reward, env.failure, env.end_reason, env.admissible_commands, tuple(env.score_log),
            env.translate("go"), env.choices(), env.is_invalid("Nothing happens."))


def full_env(episode: str, max_steps: int) -> Full:
    """The factory an environment worker process calls (`module:function`)."""
    return Full(episode.split(":")[-1], max_steps)


def test_environment_capabilities_are_read_with_their_defaults():
    bare = ToyEnv("coin-1", 5)
    assert _read(bare) == (None, None, "", "", None, (), "go", [], True)
    bare.abandon("over its wall clock")  # nothing to end in this process
    assert _read(Full("coin-1", 5)) == (40, 1.0, "the simulator hung", "task failed", ["look"], ((1, 0.0, 40.0),),
                                        "GO", ["click[Buy Now]"], True)


def test_a_replay_reads_the_capabilities_of_the_environment_it_checks():
    full = Full("coin-1", 5)
    replay = ReplayEnv(full, [])
    assert _read(replay) == _read(full) and (replay.name, replay.max_steps) == (full.name, 5)
    replay.abandon("over its wall clock")
    assert full.abandoned == "over its wall clock"


def test_an_environment_in_a_worker_process_reads_like_the_one_it_runs(toy_env):
    """Eval's workers and the console's early worker send the episode's whole state with each reply:
    a score log, a reward, the page's choices reach the parent as the environment says them."""
    worker = EnvWorker("tests.plugins.test_env_capabilities:full_env", warm=False)
    try:
        remote, full = RemoteEnv.open(worker, "toy:coin-1", 5), Full("coin-1", 5)
        assert remote.reset() == full.reset()
        for action in ("look", "fly"):
            assert remote.step(action) == full.step(action)
            assert (remote.state(), _read(remote)) == (full.state(), _read(full))
        assert (remote.steps, remote.done, remote.won) == (2, False, False)
    finally:
        worker.close()


class Seen(StateView):
    """A stand-in with nothing but the record (the calls are never made here)."""

    name, task_type, max_steps = "seen", None, 5

    def __init__(self, seen: EnvState) -> None:
        self.seen = seen

    def reset(self):
        raise AssertionError("not called")

    def step(self, action):
        raise AssertionError("not called")

    def close(self) -> None:
        pass


def test_a_stand_in_answers_every_field_of_the_state_record_from_the_record():
    """A field added to `EnvState` must be answered by `StateView` too, or wrappers read the default."""
    record = EnvState(done=True, won=True, steps=3, score=40.0, score_log=((1, 0.0, 40.0),), reward=0.5,
                      end_reason="bought", failure="hung", admissible_commands=("look",), choices=("click[x]",))
    view = Seen(record)
    assert set(EnvState.__dataclass_fields__) == {"done", "won", "steps", "score", "score_log", "reward", "end_reason",
                                                  "failure", "admissible_commands", "choices"}
    read = {name: getattr(view, name) for name in EnvState.__dataclass_fields__}  # each field as a reader reads it
    read["choices"] = view.choices()
    assert {k: tuple(v) if isinstance(v, (list, tuple)) else v for k, v in read.items()} == record.to_json()
    assert view.state() == record == EnvState.from_json(json.loads(json.dumps(record.to_json())))


class Grumpy(ToyEnv):
    """The toy world answering what it cannot do in words of its own, which only it knows mean `invalid`."""

    def _do(self, command: str) -> str:
        observation = super()._do(command)
        return "Huh? The room does not follow." if observation == "Nothing happens." else observation

    def is_invalid(self, observation: str) -> bool:
        return observation.startswith("Huh?")


async def test_the_invalid_breakpoint_stops_on_the_environments_own_reply(toy_env):
    """Which reply means an action was not carried out is the environment's to say (`Env.is_invalid`)."""
    from agent.runtime import events as ev
    from agent.runtime.breakpoints import BreakpointKind
    from agent.runtime.debugger import Debugger
    from mockllm.scripted import ScriptedLLM, ScriptEntry
    from recode_tui.setup.build import make_agent
    from tests.settings import episode_named, run_settings
    from tests.toyenv.agent import PURPOSE

    llm = ScriptedLLM([ScriptEntry("Action: look", purpose=PURPOSE, once=True),
                       ScriptEntry("Action: fly to the moon", purpose=PURPOSE, once=True)])
    agent = make_agent(run_settings(agent="one-action"), episode_named("toy:coin-1"), llm,
                       env_maker=lambda episode, steps: Grumpy(episode.episode, steps or 5))
    debugger = Debugger(agent)
    try:
        debugger.toggle_breakpoint(1)
        debugger.add_breakpoint(BreakpointKind.INVALID_ACTION)
        stop = await debugger.step("continue")
        assert isinstance(stop.event, ev.ObservationReceived) and stop.event.invalid
        assert stop.event.action == "fly to the moon" and "an invalid action" in stop.reason.text
    finally:
        await agent.close()
