"""AlfworldEnv on the real engine: reset split, commands, limits, errors."""

from __future__ import annotations

import json

import pytest

from envs.base import Env, EnvError
from envs.alfworld.catalog import list_games, resolve_game
from envs.registry import make_env
from envs.alfworld.env import AlfworldEnv, split_first_observation


@pytest.fixture(scope="module")
def put_game():
    return resolve_game("put-01")


def test_protocol_and_reset_split(put_game):
    env = AlfworldEnv(put_game)
    assert isinstance(env, Env)
    assert env.name == "alfworld" and env.task_type == "put" and env.max_steps == 80
    r = env.reset()
    assert r.raw.startswith("-= Welcome to TextWorld, ALFRED! =-")
    assert "Your task is to: " + r.instruction in r.raw
    assert r.instruction.startswith("put ") and r.instruction.endswith(".")
    assert r.observation.startswith("You are in the middle of a room. Looking quickly around you, you see ")
    assert "Welcome" not in r.observation and "Your task is to" not in r.observation
    assert env.steps == 0 and not env.done and not env.won
    env.close()


def test_split_first_observation_plain():
    raw = "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room.\n\nYour task is to: put a apple in microwave."
    assert split_first_observation(raw) == ("put a apple in microwave.", "You are in the middle of a room.")


def test_junk_commands_and_counting(put_game):
    env = AlfworldEnv(put_game)
    env.reset()
    assert env.step("dance wildly") == "Nothing happens."
    assert env.step("") == "Nothing happens."
    assert env.step("take the moon from the sky") == "Nothing happens."
    assert env.steps == 3 and not env.done
    assert env.step("inventory") == "You are not carrying anything."
    env.close()


def test_step_before_reset_raises(put_game):
    with pytest.raises(RuntimeError):
        AlfworldEnv(put_game).step("look")


def _play(env, commands):
    out = []
    for c in commands:
        out.append(env.step(c))
    return out


@pytest.mark.parametrize("form", ["put {o} in {r}", "put {o} on {r}", "put {o} in/on {r}", "move {o} to {r}"])
def test_put_and_move_forms_both_win(put_game, form):
    env = AlfworldEnv(put_game)
    env.reset()
    wt = env.walkthrough
    last = wt[-1]
    assert last.startswith("move ")
    o, r = last[len("move "):].split(" to ")
    _play(env, wt[:-1])
    obs = env.step(form.format(o=o, r=r))
    assert obs.startswith(f"You move the {o} to the {r}"), obs
    assert env.won and env.done
    env.close()


def test_old_put_grammar_accepts_move(tmp_path, put_game):
    """A game in the older grammar (`put X in/on Y`) still accepts `move X to Y`."""
    data = json.loads(put_game.read_text())
    assert 'template :: "move {o} to {r}";' in data["grammar"]
    data["grammar"] = data["grammar"].replace('template :: "move {o} to {r}";', 'template :: "put {o} in/on {r}";')
    data["walkthrough"] = [c.replace("move ", "put ", 1).replace(" to ", " in/on ") if c.startswith("move ") else c
                           for c in data["walkthrough"]]
    old = tmp_path / "old.tw-pddl"
    old.write_text(json.dumps(data))
    env = AlfworldEnv(old)
    env.reset()
    o, r = json.loads(put_game.read_text())["walkthrough"][-1][len("move "):].split(" to ")
    _play(env, env.walkthrough[:-1])
    assert f"put {o} in/on {r}" in env.admissible_commands
    env.step(f"move {o} to {r}")
    assert env.won
    env.close()


def test_step_limit_and_after_done(put_game):
    env = AlfworldEnv(put_game, max_steps=3)
    env.reset()
    for _ in range(3):
        env.step("look")
    assert env.done and not env.won and env.steps == 3
    msg = env.step("look")
    assert "over" in msg and "step limit" in msg
    assert env.steps == 3
    # reset starts a new episode
    env.reset()
    assert not env.done and env.steps == 0
    env.close()


def test_after_win_message(put_game):
    env = make_env("put-01")
    env.reset()
    _play(env, env.walkthrough)
    assert env.won and env.done
    msg = env.step("look")
    assert "over" in msg and "completed" in msg
    env.close()


def test_case_and_period_are_normalised(put_game):
    env = AlfworldEnv(put_game)
    env.reset()
    first = env.walkthrough[0]
    obs = env.step("  " + first.upper() + ". ")
    assert obs.startswith("You arrive at"), obs
    env.close()


def _one_line(exc: EnvError) -> str:
    msg = str(exc)
    assert "\n" not in msg and msg
    return msg


def test_unknown_id_errors():
    with pytest.raises(EnvError) as ei:
        resolve_game("no-such-game")
    msg = _one_line(ei.value)
    assert "recode-tui games list" in msg and "put-01" in msg
    with pytest.raises(EnvError) as ei:
        make_env("put-99")
    assert "recode-tui games list" in _one_line(ei.value)


def test_missing_file_error(tmp_path):
    with pytest.raises(EnvError) as ei:
        AlfworldEnv(tmp_path / "nope.tw-pddl")
    assert "not found" in _one_line(ei.value)
    with pytest.raises(EnvError) as ei:
        resolve_game(str(tmp_path / "nope.tw-pddl"))
    assert "not found" in _one_line(ei.value)


def test_corrupt_file_errors(tmp_path, put_game):
    bad = tmp_path / "bad.tw-pddl"
    bad.write_text("{ this is not json")
    with pytest.raises(EnvError) as ei:
        AlfworldEnv(bad)
    assert "malformed" in _one_line(ei.value) and "regenerate" in str(ei.value)

    wrong = tmp_path / "wrong.tw-pddl"
    wrong.write_text(json.dumps({"hello": "world"}))
    with pytest.raises(EnvError) as ei:
        make_env(str(wrong))
    assert "malformed" in _one_line(ei.value)

    binary = tmp_path / "bin.tw-pddl"
    binary.write_bytes(b"\xff\xfe\x00\x81garbage")
    with pytest.raises(EnvError) as ei:
        AlfworldEnv(binary)
    _one_line(ei.value)

    # valid JSON with a broken PDDL problem: the engine fails, we report it on reset
    data = json.loads(put_game.read_text())
    data["pddl_problem"] = "(define (problem broken) (:domain alfred) (:objects"
    broken = tmp_path / "broken.tw-pddl"
    broken.write_text(json.dumps(data))
    env = AlfworldEnv(broken)
    with pytest.raises(EnvError) as ei:
        env.reset()
    assert "malformed" in _one_line(ei.value)


def test_directory_without_game(tmp_path):
    with pytest.raises(EnvError) as ei:
        AlfworldEnv(tmp_path)
    assert "game.tw-pddl" in _one_line(ei.value)


def test_task_type_inferred_without_metadata(tmp_path):
    for g in list_games():
        data = g.path.read_bytes()
        p = tmp_path / f"{g.id}.tw-pddl"  # no index.json beside it
        p.write_bytes(data)
        assert AlfworldEnv(p).task_type == g.task_type, g


def test_engine_import_keeps_alfworld_data_unset(monkeypatch, put_game):
    import os

    monkeypatch.delenv("ALFWORLD_DATA", raising=False)
    env = AlfworldEnv(put_game)
    env.reset()
    env.close()
    assert "ALFWORLD_DATA" not in os.environ


def test_constructor_accepts_ids():
    env = AlfworldEnv("examine-01", max_steps=10)
    assert env.task_type == "examine" and env.max_steps == 10
    with pytest.raises(EnvError) as ei:
        AlfworldEnv("examine-77")
    assert "recode-tui games list" in str(ei.value)
