"""Play games on the real engine and print everything it said, one JSON line per game.

Run in its own process (the engine speedups patch modules process-wide), e.g.

    RECODE_ALFWORLD_SPEEDUPS=0 python tests/envs/engine_transcript.py put-01 valid_seen/3
    python tests/envs/engine_transcript.py --random-steps 6 put-01   # a shorter second episode

Per game: a first episode playing the walkthrough (when the game has one), then
a reset and a second episode of seeded random admissible commands with an
unparseable and an inapplicable command mixed in. Every observation, the
admissible commands after each step, and won/done are recorded, so two
transcripts are equal only if the engine behaved identically. A last line says
whether the speedups were installed, what the logic cache read or parsed, and
holds TextWorld's built-in logic (its rules, types and text) as the process loaded it (`engine_state`).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from envs.alfworld import logic_cache, speedups  # noqa: E402
from envs.registry import make_env  # noqa: E402

RANDOM_STEPS = 10  # the sweep's (benchmarks/check_speedups.py); the test's sample plays fewer
ODD_COMMANDS = ("jump over the moon", "take nothing from nowhere")


def _record(env, observation: str) -> dict:
    return {"obs": observation, "admissible": env.admissible_commands, "won": env.won, "done": env.done}


def play(episode_ref: str, random_steps: int = RANDOM_STEPS) -> dict:
    """The game's two episodes; the odd commands come at 3/10 and 7/10 of the random one (steps 3 and 7 of 10)."""
    env = make_env(episode_ref)
    odd = {random_steps * 3 // 10: ODD_COMMANDS[0], random_steps * 7 // 10: ODD_COMMANDS[1]}
    try:
        first = env.reset()
        runs = [[{"obs": first.raw, "admissible": env.admissible_commands}]]
        for action in env.walkthrough or []:
            runs[-1].append(_record(env, env.step(action)))
        second = env.reset()
        runs.append([{"obs": second.raw, "admissible": env.admissible_commands}])
        rng = random.Random(episode_ref)
        for i in range(random_steps):
            action = odd[i] if i in odd else rng.choice(env.admissible_commands)
            runs[-1].append(_record(env, env.step(action)))
        return {"game": episode_ref, "runs": runs}
    finally:
        env.close()


def engine_state() -> dict[str, Any]:
    """Whether the speedups are on, the logic cache's reads and parses, and the built-in logic TextWorld holds:
    with RECODE_ALFWORLD_SPEEDUPS=0 the cache must be left alone, and the logic must be the one it would read."""
    import textworld.generator.data as data

    logic = data.KB.logic
    return {"speedups": speedups.is_installed(), "logic": logic_cache.counts, "grammar": logic_cache.grammar_counts,
            "translations": logic_cache.translation_counts, "rules": sorted(logic.rules),
            "types": sorted(t.name for t in logic.types), "document": logic.serialize()}


def main(args: list[str]) -> None:
    steps = RANDOM_STEPS
    if args[:1] == ["--random-steps"]:
        steps, args = int(args[1]), args[2:]
    for game in args:
        print(json.dumps(play(game, steps)), flush=True)
    print(json.dumps(engine_state()))


if __name__ == "__main__":
    main(sys.argv[1:])
