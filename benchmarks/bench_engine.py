"""Engine overhead per action against the raw ALFWorld step it wraps.

Replays bundled games (one per task type) twice: raw `env.step` over the
stored walkthrough, then through the ReCode engine stepping event by event
with a scripted LLM (the demo script when it solves the game, otherwise the
walkthrough as one scripted loop). The engine's overhead is its wall time
minus the time spent inside `env.step`, per action.

The overhead is shown against two steps: the step as the project runs it
(with the engine speedups of `envs/alfworld/speedups.py`, ~3 ms) and the stock
TextWorld step (speedups off, measured in a second process, ~40 ms). The
engine's own cost per action is the same either way; only the step it is
compared with got cheaper.

Run: .venv/bin/python benchmarks/bench_engine.py
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
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


def games() -> list[str]:
    return [list_games([task_type])[0].id for task_type in TASK_TYPES]


def stock_step_medians() -> dict[str, float]:
    """Median raw step per game with the engine speedups off (they patch process-wide: own process)."""
    env = dict(os.environ, RECODE_ALFWORLD_SPEEDUPS="0")
    out = subprocess.run([sys.executable, __file__, "--stock-steps"], env=env, capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    if "--stock-steps" in sys.argv:
        print(json.dumps({game: statistics.median(raw_replay(game)[1]) for game in games()}))
        return
    stock = stock_step_medians()
    rows = []
    for game in games():
        reset, steps = raw_replay(game)
        actions, total, env_seconds, won = asyncio.run(engine_replay(game))
        overhead = (total - env_seconds) / max(actions, 1)
        rows.append((game, actions, reset, statistics.median(steps), stock[game], overhead, won))
    print(f"{'game':<12}{'actions':>8}{'reset ms':>10}{'step ms':>9}{'engine ms/action':>18}{'overhead':>10}"
          f"{'stock step ms':>15}{'vs stock':>10}{'won':>5}")
    for game, actions, reset, step, stock_step, overhead, won in rows:
        print(
            f"{game:<12}{actions:>8}{reset * 1000:>10.0f}{step * 1000:>9.1f}{overhead * 1000:>18.2f}"
            f"{overhead / step * 100:>9.1f}%{stock_step * 1000:>15.1f}{overhead / stock_step * 100:>9.1f}%"
            f"{'yes' if won else 'no':>5}"
        )
    print("(step = median raw env.step with the engine speedups; stock = TextWorld unpatched)")


if __name__ == "__main__":
    main()
