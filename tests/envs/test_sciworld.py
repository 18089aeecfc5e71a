"""ScienceWorld on its real simulator (a JVM from the scienceworld wheel), behind the seam.

A JVM that dies or does not answer is tested through the agent that plays on it
(tests/envs/test_sciworld_recode.py): each such test stops a JVM that whoever plays next must start again.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from envs import registry
from envs.base import EnvError
from envs.sciworld.env import SciWorldEnv
from envs.sciworld.provider import step_limit
from envs.sciworld import variations
from envs.sciworld.simulator import JAVA_HINT, Simulator
from envs.sciworld.tasks import EASY, EASY_ELECTRICAL

pytestmark = [pytest.mark.heavy, pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (.ci/run installs one)")]


@pytest.fixture(scope="module")
def provider():
    return registry.provider("sciworld")


def test_the_gold_path_wins_and_the_score_is_reported_as_it_rises(provider) -> None:
    # use-thermometer/0: 22 gold actions whose score rises in 9 steps (boil/0's 39 heat the world on every step:
    # 3 times the JVM's CPU; the console tests win boil/0 in 14 actions)
    gold = provider.gold_actions("use-thermometer/0")
    env = provider.make_env("use-thermometer/0")
    reset = env.reset()
    assert reset.instruction.startswith("Your task is to measure the temperature")
    assert "This room is called" in reset.observation
    for action in gold:
        env.step(action)
        if env.done:
            break
    assert env.won and env.score == 100
    assert env.score_log and env.score_log[-1][2] == 100
    scores = [new for _, _, new in env.score_log]
    assert scores == sorted(scores)  # the gold path never loses points
    assert env.step("look around").startswith("The episode is over (the task was completed)")


def test_an_action_the_simulator_cannot_parse_is_an_observation_and_counts(provider) -> None:
    env = provider.make_env("find-plant/0", max_steps=2)
    env.reset()
    assert env.step("fly to the moon") == "No known action matches that input."
    assert env.steps == 1 and not env.done
    env.step("look around")
    assert env.done and not env.won and "step limit (2)" in env.end_reason


def test_unknown_tasks_and_variations_get_one_line_with_the_valid_choices(provider, monkeypatch) -> None:
    with pytest.raises(EnvError, match="unknown ScienceWorld task 'boill'.*did you mean boil"):
        provider.make_env("boill/0")
    provider.episodes("test", ["boil"])  # the variation lists are cached from here on
    with pytest.raises(EnvError, match=r"no variation 9999 of boil: it has boil/0 \.\. boil/29"):
        provider.make_env("boil/9999")  # refused before anything starts: no JVM needed
    monkeypatch.setattr(variations, "cached_table", lambda: None)  # a machine that never listed them
    env = provider.make_env("boil/9999")
    with pytest.raises(EnvError, match=r"no variation 9999 of boil: it has boil/0 \.\. boil/29"):
        env.reset()


def test_splits_come_from_the_simulator_and_ids_are_task_slash_variation(provider) -> None:
    test = provider.episodes("test", task_types=["boil"])
    train = provider.episodes("train", task_types=["boil"])
    assert [e.id for e in test][:2] == ["boil/21", "boil/22"] and len(test) == 9
    assert {e.id for e in test}.isdisjoint(e.id for e in train)
    assert provider.topic_of("boil") == "1 Matter"
    assert step_limit("boil") == provider.make_env("boil/0").max_steps >= 1.5 * 168  # boil/22's gold path is 168
    assert provider.fingerprint("boil/0") != provider.fingerprint("boil/1")


def test_the_easy_simplifications_are_the_default_and_sciworld_full_switches_them_off() -> None:
    easy, full = registry.make_env("sciworld:find-animal/0"), registry.make_env("sciworld-full:find-animal/0")
    assert (easy.simplifications, full.simplifications) == (EASY, "")
    assert registry.make_env("sciworld:power-component/0").simplifications == EASY_ELECTRICAL  # keeps its wiring
    assert "A door to the kitchen (that is open)" in easy.reset().observation
    assert easy.step("teleport to kitchen") == "You teleport to the kitchen."
    assert "A door to the kitchen (that is closed)" in full.reset().observation
    assert full.step("teleport to kitchen") == "No known action matches that input."
    assert registry.fingerprint("sciworld-full:boil/0") != registry.fingerprint("sciworld:boil/0")  # resume tells them apart
    assert registry.provider("sciworld-full").episodes("test", ["boil"])[0].ref == "sciworld-full:boil/21"


def test_no_java_is_one_line_that_says_how_to_install_it(monkeypatch, tmp_path, capfd) -> None:
    from recode_tui.commands.cli import main

    bwrap = shutil.which("bwrap")
    if bwrap:  # the sandbox's own tool stays on it: the walls are checked first, and a later test reads their verdict
        (tmp_path / "bwrap").symlink_to(bwrap)
    monkeypatch.setenv("PATH", str(tmp_path))  # no `java` on it
    script = Path(__file__).resolve().parents[2] / "mockllm" / "demos" / "alfworld.yaml"  # any script: Java comes first
    assert main(["run", "--env", "sciworld", "--game", "boil/0", "--llm", f"scripted:{script}", "--quiet",
                 "--sessions", str(tmp_path / "sessions")]) == 2  # refused before anything starts
    assert capfd.readouterr().err == f"recode-tui: error: {JAVA_HINT}\n"
    simulator = Simulator()  # and if the JVM is started all the same
    with pytest.raises(EnvError) as raised:
        SciWorldEnv("boil/0", simulator=simulator).reset()
    assert str(raised.value) == JAVA_HINT and "apt-get install -y openjdk-17-jre-headless" in JAVA_HINT
    import gc

    gc.collect()  # the half-started wrapper is collected without a traceback on stderr
    assert capfd.readouterr().err == ""


def test_a_reset_after_actions_starts_the_loaded_episode_over(process_jvm) -> None:
    """The simulator's reset of a played world (the world a load leaves is at its start already)."""
    process_jvm.load("find-animal", 0, EASY)
    first, task = process_jvm.reset()
    assert "This room is called the" in first and "Your task is to find" in task
    assert process_jvm.step("teleport to kitchen")[0] == "You teleport to the kitchen."
    again, _ = process_jvm.reset()
    assert sorted(again.splitlines()) == sorted(first.splitlines())  # the room's objects come in no fixed order
