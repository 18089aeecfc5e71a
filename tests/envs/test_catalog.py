"""The bundled games and their index."""

from __future__ import annotations

import collections

import pytest

from envs.base import EnvError
from envs.alfworld.catalog import game_info, list_games, list_split, resolve_game
from envs.alfworld.env import AlfworldEnv
from envs.alfworld.gamefile import TASK_TYPES, infer_task_type, load_game_json, task_sentence

GAMES = list_games()


def test_at_least_ten_per_type():
    counts = collections.Counter(g.task_type for g in GAMES)
    assert set(counts) == set(TASK_TYPES)
    assert all(n >= 10 for n in counts.values()), counts
    assert len({g.id for g in GAMES}) == len(GAMES)


def test_index_matches_files():
    rooms = set()
    for g in GAMES:
        assert g.path.is_file(), g
        data = load_game_json(g.path)
        assert data["solvable"] is True and data["walkthrough"]
        assert task_sentence(data) == g.task
        assert infer_task_type(g.task) == g.task_type
        assert g.id.startswith(g.task_type + "-")
        rooms.add(g.room)
    assert rooms == {"kitchen", "living room", "bedroom", "bathroom"}


def test_filters_and_resolution():
    heat = list_games(["heat"])
    assert heat and all(g.task_type == "heat" for g in heat)
    assert list_games(["pick_heat_then_place_in_recep"]) == heat
    assert resolve_game("heat-7") == resolve_game("heat-07") == heat[6].path
    assert resolve_game(str(heat[0].path)) == heat[0].path
    assert game_info("heat-01").task_type == "heat"
    with pytest.raises(EnvError):
        list_games(["juggle"])


def test_no_fixed_sequence_solves_all():
    walkthroughs = {tuple(AlfworldEnv(g.path).walkthrough) for g in GAMES}
    assert len(walkthroughs) == len(GAMES)


def test_split_id_without_data(monkeypatch):
    monkeypatch.delenv("ALFWORLD_DATA", raising=False)
    assert list_split("valid_seen") == []
    with pytest.raises(EnvError) as ei:
        resolve_game("valid_seen/3")
    assert "ALFWORLD_DATA" in str(ei.value) and "\n" not in str(ei.value)


SAMPLE = GAMES[::5]  # two of each task type; `make slow` plays every bundled game
# real ALFWorld games: the first of each type in `make quick`, the second too in `make test`
SAMPLED = [game if index % 2 == 0 else pytest.param(game, marks=pytest.mark.heavy) for index, game in enumerate(SAMPLE)]


@pytest.mark.parametrize("game", SAMPLED, ids=[g.id for g in SAMPLE])
def test_a_sample_of_bundled_walkthroughs_wins(game):
    walkthrough_wins(game)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES, ids=[g.id for g in GAMES])
def test_bundled_walkthrough_wins(game):
    walkthrough_wins(game)


def walkthrough_wins(game) -> None:
    env = AlfworldEnv(game.path)
    r = env.reset()
    assert r.instruction == game.task
    assert env.task_type == game.task_type
    for cmd in env.walkthrough:
        obs = env.step(cmd)
        assert obs != "Nothing happens.", (cmd, obs)
    assert env.won and env.done
    assert env.steps == len(env.walkthrough) <= env.max_steps
    env.close()
