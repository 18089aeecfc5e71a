"""Real ALFWorld valid_seen games (../shared/alfworld): listing, ids, and planner walkthroughs win.

Skipped when ../shared/alfworld is absent.
"""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from envs.base import EnvError
from envs.alfworld.catalog import list_split, resolve_game
from envs.registry import make_env
from envs.alfworld.gamefile import TASK_TYPES
from envs.alfworld.generator import plan_walkthrough

pytestmark = pytest.mark.heavy  # real ALFWorld games


# Two trials per task type: the ones with the smallest PDDL problems, which
# Fast Downward plans in 0.2-5 s (a few valid_seen games take minutes).
SAMPLE_PER_TYPE = 2


def test_list_split(shared_data):
    games = list_split("valid_seen")
    assert len(games) == 140
    counts = collections.Counter(g.task_type for g in games)
    assert counts == {"put": 35, "clean": 27, "cool": 25, "puttwo": 24, "heat": 16, "examine": 13}
    assert all(g.task for g in games)
    assert {g.room for g in games} <= {"kitchen", "living room", "bedroom", "bathroom"}
    assert [g.id for g in list_split("valid_seen", ["heat"])][:1] == [
        next(g.id for g in games if g.task_type == "heat")
    ]


def test_split_ids_resolve(shared_data):
    games = list_split("valid_seen")
    assert resolve_game("valid_seen/0") == games[0].path
    assert resolve_game("valid_seen/139") == games[139].path
    assert resolve_game(str(games[5].path.parent)) == games[5].path
    with pytest.raises(EnvError) as ei:
        resolve_game("valid_seen/140")
    assert "valid_seen/139" in str(ei.value)


SHARED_ALFWORLD = (Path(__file__).resolve().parents[2] / ".." / "shared" / "alfworld").resolve()


def _sample():
    if not (SHARED_ALFWORLD / "json_2.1.1" / "valid_seen").is_dir():
        return []
    import os

    old = os.environ.get("ALFWORLD_DATA")
    os.environ["ALFWORLD_DATA"] = str(SHARED_ALFWORLD)
    try:
        games = list_split("valid_seen")
    finally:
        if old is None:
            del os.environ["ALFWORLD_DATA"]
        else:
            os.environ["ALFWORLD_DATA"] = old
    out = []
    for t in TASK_TYPES:
        of_type = sorted((g for g in games if g.task_type == t), key=lambda g: (g.path.stat().st_size, g.id))
        out += of_type[:SAMPLE_PER_TYPE]
    return out


SAMPLE = _sample()


@pytest.mark.parametrize("game", SAMPLE or [None], ids=[g.id + "-" + g.task_type for g in SAMPLE] or ["none"])
def test_real_game_walkthrough_wins(shared_data, game):
    if game is None:
        pytest.skip("no real games")
    walkthrough = plan_walkthrough(game.path)
    assert walkthrough, f"planner found no plan for {game.id}"
    env = make_env(game.id)
    assert env.task_type == game.task_type
    r = env.reset()
    assert r.instruction == game.task
    assert r.observation.startswith("You are in the middle of a room.")
    for cmd in walkthrough:
        obs = env.step(cmd)
        assert obs != "Nothing happens.", (cmd, obs)
    assert env.won and env.done
    env.close()
