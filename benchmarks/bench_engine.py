"""Engine overhead per action against the raw ALFWorld step it wraps.

Replays bundled games (one per task type) twice: raw `env.step` over the
stored walkthrough, then through the ReCode engine stepping event by event
with a scripted LLM (the demo script when it solves the game, otherwise the
walkthrough as one scripted loop). The engine's overhead is its wall time
minus the time spent inside `env.step`, per action.

Run: .venv/bin/python benchmarks/bench_engine.py
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.engine import Engine  # noqa: E402
from agent.events import ActionSent, RunFinished  # noqa: E402
from envs.alfworld.catalog import list_games, make_env, resolve_game  # noqa: E402
from mockllm.scripted import ScriptedLLM, ScriptEntry  # noqa: E402

TASK_TYPES = ["put", "clean", "heat", "cool", "examine", "puttwo"]


def walkthrough(game: str) -> list[str]:
    return json.loads(resolve_game(game).read_text())["walkthrough"]


def raw_replay(game: str) -> tuple[float, list[float]]:
    env = make_env(game)
    started = time.perf_counter()
    env.reset()
    reset = time.perf_counter() - started
    steps = []
    for action in walkthrough(game):
        t = time.perf_counter()
        env.step(action)
        steps.append(time.perf_counter() - t)
    env.close()
    return reset, steps


class TimedEnv:
    """Delegates to the real env and adds up the time spent inside reset() and step()."""

    def __init__(self, env):
        self._env = env
        self.env_seconds = 0.0

    def _timed(self, fn, *args):
        t = time.perf_counter()
        try:
            return fn(*args)
        finally:
            self.env_seconds += time.perf_counter() - t

    def reset(self):
        return self._timed(self._env.reset)

    def step(self, action):
        return self._timed(self._env.step, action)

    def __getattr__(self, name):
        return getattr(self._env, name)


async def engine_replay(game: str) -> tuple[int, float, float, bool]:
    code = "for action in " + json.dumps(walkthrough(game)) + ":\n    run(action)"
    llm = ScriptedLLM([ScriptEntry(answer=f"<execute>\n{code}\n</execute>")])
    env = TimedEnv(make_env(game))
    await asyncio.get_running_loop().run_in_executor(None, env._env.reset)  # load outside the clock
    engine = Engine(env, llm)
    actions = 0
    started = time.perf_counter()
    while True:
        event = await engine.step()
        actions += isinstance(event, ActionSent)
        if isinstance(event, RunFinished):
            break
    total = time.perf_counter() - started
    await engine.close()
    return actions, total, env.env_seconds, event.success


def main() -> None:
    rows = []
    for task_type in TASK_TYPES:
        game = list_games([task_type])[0].id
        reset, steps = raw_replay(game)
        actions, total, env_seconds, won = asyncio.run(engine_replay(game))
        overhead = (total - env_seconds) / max(actions, 1)
        rows.append((game, actions, reset, statistics.median(steps), overhead, won))
    print(f"{'game':<12}{'actions':>8}{'reset ms':>10}{'step ms (median)':>18}{'engine ms/action':>18}{'overhead':>10}{'won':>5}")
    for game, actions, reset, step, overhead, won in rows:
        print(
            f"{game:<12}{actions:>8}{reset * 1000:>10.0f}{step * 1000:>18.1f}{overhead * 1000:>18.2f}"
            f"{overhead / step * 100:>9.1f}%{'yes' if won else 'no':>5}"
        )


if __name__ == "__main__":
    main()
