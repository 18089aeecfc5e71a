"""Play games on the real engine and print everything it said, one JSON line per game.

Run in its own process (the engine speedups patch modules process-wide), e.g.

    RECODE_ALFWORLD_SPEEDUPS=0 python tests/envs/engine_transcript.py put-01 valid_seen/3

Per game: a first episode playing the walkthrough (when the game has one), then
a reset and a second episode of seeded random admissible commands with an
unparseable and an inapplicable command mixed in. Every observation, the
admissible commands after each step, and won/done are recorded, so two
transcripts are equal only if the engine behaved identically. A last line says
whether the speedups were installed.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from envs.alfworld import speedups  # noqa: E402
from envs.registry import make_env  # noqa: E402

RANDOM_STEPS = 10
ODD_COMMANDS = ("jump over the moon", "take nothing from nowhere")


def _record(env, observation: str) -> dict:
    return {"obs": observation, "admissible": env.admissible_commands, "won": env.won, "done": env.done}


def play(episode_ref: str) -> dict:
    env = make_env(episode_ref)
    try:
        first = env.reset()
        runs = [[{"obs": first.raw, "admissible": env.admissible_commands}]]
        for action in env.walkthrough or []:
            runs[-1].append(_record(env, env.step(action)))
        second = env.reset()
        runs.append([{"obs": second.raw, "admissible": env.admissible_commands}])
        rng = random.Random(episode_ref)
        for i in range(RANDOM_STEPS):
            action = ODD_COMMANDS[i // 5] if i in (3, 7) else rng.choice(env.admissible_commands)
            runs[-1].append(_record(env, env.step(action)))
        return {"game": episode_ref, "runs": runs}
    finally:
        env.close()


def main(games: list[str]) -> None:
    for game in games:
        print(json.dumps(play(game)), flush=True)
    print(json.dumps({"speedups": speedups.is_installed()}))


if __name__ == "__main__":
    main(sys.argv[1:])
