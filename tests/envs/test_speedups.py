"""The engine speedups change nothing the agent sees, and a long-lived worker does not grow.

`envs/alfworld/speedups.py` caches parses and translations inside TextWorld and
`envs/alfworld/engines.py` reuses engines between games. Both are installed
process-wide when a process first plays, so the plain engine plays in a process
of its own (RECODE_ALFWORLD_SPEEDUPS=0) while this one plays the same games with
the speedups on, its caches and shelved engines warm from whatever it played
before; the two transcripts (every observation and every admissible-command
list) must be equal, game for game.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from envs.alfworld import speedups
from envs.alfworld.catalog import list_games, list_split
from envs.registry import make_env
from envs.base import EnvError
from tests.envs import engine_transcript

pytestmark = pytest.mark.heavy  # starts engines in other processes: not in `make quick`

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


# The second episode's random commands (both odd ones among them): each is a step of the untouched engine, whose
# admissible commands cost ~0.07 CPU-s; the sweep (`benchmarks/check_speedups.py`) plays 10.
RANDOM_STEPS = 6


def _transcripts(games: list[str], switch: str) -> subprocess.Popen:
    env = dict(os.environ, RECODE_ALFWORLD_SPEEDUPS=switch)
    command = [sys.executable, str(HERE / "engine_transcript.py"), "--random-steps", str(RANDOM_STEPS), *games]
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _lines(process: subprocess.Popen) -> list[dict]:
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err[-2000:]
    return [json.loads(line) for line in out.splitlines()]


def _first_difference(plain: dict, fast: dict) -> str:
    for r, (run_a, run_b) in enumerate(zip(plain["runs"], fast["runs"])):
        for i, (a, b) in enumerate(zip(run_a, run_b)):
            if a != b:
                return f"{plain['game']} episode {r + 1} step {i}: {a!r} != {b!r}"
    return f"{plain['game']}: different lengths"


def test_every_observation_and_admissible_command_is_the_same_with_and_without_speedups(shared_data_if_any):
    # A sample: bundled games of three task types and a real one (the untouched engine takes ~2-3 CPU-s a game,
    # most of it loading). The sweep over all 60 bundled and 140 valid_seen games is `benchmarks/check_speedups.py`.
    games = [g.id for g in list_games()][::20]
    assert {game.split("-")[0] for game in games} == {"put", "heat", "examine"}
    if shared_data_if_any:
        games += [g.id for g in list_split("valid_seen")][:1]
    plain = _transcripts(games, "0")
    fast = [engine_transcript.play(game, RANDOM_STEPS) for game in games]  # meanwhile, here
    plain_lines = _lines(plain)
    untouched, here = plain_lines[-1], engine_transcript.engine_state()
    assert untouched["speedups"] is False and here["speedups"]
    none = {"read": 0, "parsed": 0}  # the switch also leaves the logic cache alone
    assert untouched["logic"] == untouched["grammar"] == untouched["translations"] == none
    for key in ("rules", "types", "document"):  # the built-in logic, as the cache gave it or as parsed here
        assert here[key] == untouched[key], key
    assert [t["game"] for t in fast] == games
    for a, b in zip(plain_lines[:-1], fast):
        assert a == b, _first_difference(a, b)
    walkthrough_wins = sum(run[-1].get("won", False) for t in fast for run in t["runs"][:1])
    assert walkthrough_wins == 3  # the bundled walkthroughs were really played


def _planner_copies_mapped() -> int:
    with open("/proc/self/maps") as maps:
        return len({line.split()[-2] if line.rstrip().endswith("(deleted)") else line.split()[-1]
                    for line in maps if "libdownward" in line})


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
def test_playing_game_after_game_reuses_engines_instead_of_loading_a_planner_copy_each_time(tmp_path):
    games = [g.id for g in list_games()][:8]
    env = make_env(games[0])
    env.reset()
    env.close()
    before = _planner_copies_mapped()
    broken = tmp_path / "broken.tw-pddl"
    broken.write_text(json.dumps({"pddl_domain": "(define", "pddl_problem": "(", "grammar": "", "solvable": True}))
    for game in games[1:]:
        env = make_env(game)
        env.reset()
        env.step(env.walkthrough[0])
        env.close()
        with pytest.raises(EnvError):  # a game that fails to load must not spoil the next one
            make_env(broken).reset()
    env = make_env(games[0])
    assert "Your task is to" in env.reset().raw
    env.close()
    assert _planner_copies_mapped() - before <= 1  # one per game (7 more) without the shelf
