"""Engine overhead per action as `run` and `eval` run it: the sandboxed, checked runner.

Plays bundled games (one per task type) twice: raw `env.step` over the same
actions, then through the ReCode engine stepping event by event, with node
code in the sandbox worker process that `agent.sandbox.settings` builds for every user
path (the in-process thread runner is for the engine's tests only), and the
journal writer every user path has (`start_session`). Episodes
are long on purpose: the scripted answer first visits every receptacle the
room lists and examines it (one node per action), then plays the stored walkthrough in one
loop, 30-50 actions in all, so a row is not noise from a handful of steps.

Columns, each labelled for what it includes:
- `worker start ms`: the sandbox worker's start-up, measured on its own
  before the episode (a user pays it once per run or episode);
- `reset ms`: `env.reset()` of that game in a warm process (another game was
  reset before it); the cold first reset of the process is printed apart;
- `step ms`: median raw `env.step` (with the engine speedups); `stock step ms`
  the same with them off (own process, they patch process-wide);
- `engine ms/action`: episode wall time minus time inside the env, per action:
  the engine, the sandbox round trips, the per-node variable snapshots, the journal.

User path: `recode-tui run --game ID` (and each `eval` episode) with ReCode on ALFWorld.

Targets, per game, each a ratio of two figures measured in the same run (so the
machine's load cancels out in part; bench_env holds the step's milliseconds):
the speedups make the step at least 5x faster than stock (docs/environments.md: "a step costs
about 3 ms instead of 40", ~13x; wide margin); the engine's own work per action,
journal included, at most 30 % of the stock step (the docs promise no figure:
measured 3-20 % here under a load of ~9 on 2 cores, 1.5x the worst).

Run: .venv/bin/python benchmarks/bench_engine.py
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.agents.recode.engine import Engine  # noqa: E402
from agent.runtime.events import ActionSent, NodeStarted, RunFinished  # noqa: E402
from agent.sandbox.settings import RunnerSettings  # noqa: E402
from agent.sessions.session import start_session  # noqa: E402
from benchmarks.targets import Target, Verdicts  # noqa: E402
from envs.alfworld.catalog import list_games, resolve_game  # noqa: E402
from envs.registry import make_env  # noqa: E402
from mockllm.scripted import ScriptedLLM, ScriptEntry  # noqa: E402
from envs.registry import EpisodeRef  # noqa: E402

TASK_TYPES = ["put", "clean", "heat", "cool", "examine", "puttwo"]
MAX_STEPS = 150
SPEEDUP = Target("stock step / step with the speedups (medians)", 5, "x", "README: 40 ms vs 3 ms (~13x); wide margin",
                 at_least=True)
OWN_WORK = Target("engine's own work per action, journal included, / stock step", 30, "%",
                  "measured 3-20 % here (load 9), 1.5x the worst")


def walkthrough(episode_ref: str) -> list[str]:
    return json.loads(resolve_game(episode_ref).read_text())["walkthrough"]


def visits(observation: str) -> list[str]:
    import re

    places = re.findall(r"\b([a-z]+ \d+)", observation)
    return [action for place in places for action in ("go to " + place, "examine " + place)]


def raw_replay(episode_ref: str) -> tuple[float, list[float]]:
    """The reset (warm process) and every raw step of the episode's actions: visits, then the walkthrough."""
    env = make_env(episode_ref, max_steps=MAX_STEPS)
    started = time.perf_counter()
    observation = env.reset().observation
    reset = time.perf_counter() - started
    steps = []
    for action in visits(observation) + walkthrough(episode_ref):
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


def answer(episode_ref: str, observation: str) -> str:
    """One node per visit (as an agent exploring), then the walkthrough as one loop node."""
    lines = [f"run({action!r})" for action in visits(observation)]
    lines.append("for action in " + json.dumps(walkthrough(episode_ref)) + ":\n    run(action)")
    return "<execute>\n" + "\n".join(lines) + "\n</execute>"


async def engine_replay(episode_ref: str) -> tuple[int, int, float, float, float, bool]:
    """Actions, nodes, worker start-up, episode wall time, time inside the env, won."""
    probe = make_env(episode_ref, max_steps=MAX_STEPS)
    observation = probe.reset().observation
    probe.close()
    llm = ScriptedLLM([ScriptEntry(answer=answer(episode_ref, observation))])
    env = TimedEnv(make_env(episode_ref, max_steps=MAX_STEPS))
    await asyncio.get_running_loop().run_in_executor(None, env._env.reset)  # load outside the clock
    runner = RunnerSettings().make_runner()  # what run and eval build: sandboxed, with the checks
    began = time.perf_counter()
    await runner.ensure_started()  # the worker's start-up, outside the episode's clock
    worker_start = time.perf_counter() - began
    agent = Engine(env, llm, runner)
    sessions = tempfile.TemporaryDirectory()
    session = start_session(agent, Path(sessions.name), EpisodeRef.parse(episode_ref), "bench")  # the journal every user path writes
    actions = nodes = 0
    env.env_seconds = 0.0
    started = time.perf_counter()
    while True:
        event = await agent.step()
        actions += isinstance(event, ActionSent)
        nodes += isinstance(event, NodeStarted)
        if isinstance(event, RunFinished):
            break
    total = time.perf_counter() - started
    await agent.close()
    session.writer.close()
    sessions.cleanup()
    return actions, nodes, worker_start, total, env.env_seconds, event.success


def games() -> list[str]:
    return [list_games([task_type])[0].id for task_type in TASK_TYPES]


def stock_step_medians() -> dict[str, float]:
    """Median raw step per game with the engine speedups off (they patch process-wide: own process)."""
    env = dict(os.environ, RECODE_ALFWORLD_SPEEDUPS="0")
    out = subprocess.run([sys.executable, __file__, "--stock-steps"], env=env, capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    if "--stock-steps" in sys.argv:
        print(json.dumps({episode_ref: statistics.median(raw_replay(episode_ref)[1]) for episode_ref in games()}))  # same actions
        return 0
    verdicts = Verdicts("bench_engine")
    chosen = games()
    cold_game = list_games(["put"])[1].id  # not one of the rows: its reset is this process's first
    began = time.perf_counter()
    make_env(cold_game, max_steps=MAX_STEPS).reset()
    cold_reset = time.perf_counter() - began
    stock = stock_step_medians()
    rows = []
    for episode_ref in chosen:
        reset, steps = raw_replay(episode_ref)
        actions, nodes, worker_start, total, env_seconds, won = asyncio.run(engine_replay(episode_ref))
        overhead = (total - env_seconds) / max(actions, 1)
        rows.append((episode_ref, actions, nodes, worker_start, reset, statistics.median(steps), stock[episode_ref], overhead, won))
    print(f"cold first reset of this process ({cold_game}): {cold_reset * 1000:.0f} ms")
    print(f"{'game':<12}{'actions':>8}{'nodes':>6}{'worker start ms':>16}{'reset ms (warm)':>16}{'step ms':>9}"
          f"{'engine ms/action':>18}{'overhead':>10}{'stock step ms':>15}{'vs stock':>10}{'won':>5}  speed-up; own work vs stock")
    for episode_ref, actions, nodes, worker_start, reset, step, stock_step, overhead, won in rows:
        speed_target = Target(f"{episode_ref}: {SPEEDUP.figure}", SPEEDUP.limit, SPEEDUP.unit, SPEEDUP.source, at_least=True)
        own_target = Target(f"{episode_ref}: {OWN_WORK.figure}", OWN_WORK.limit, OWN_WORK.unit, OWN_WORK.source)
        verdict = (f"  {stock_step / step:.1f}x {verdicts.check(speed_target, stock_step / step)} "
                   f"{speed_target.describe()}; "
                   f"{verdicts.check(own_target, overhead / stock_step * 100)} {own_target.describe()}")
        print(
            f"{episode_ref:<12}{actions:>8}{nodes:>6}{worker_start * 1000:>16.0f}{reset * 1000:>16.0f}{step * 1000:>9.1f}"
            f"{overhead * 1000:>18.2f}{overhead / step * 100:>9.1f}%{stock_step * 1000:>15.1f}"
            f"{overhead / stock_step * 100:>9.1f}%{'yes' if won else 'no':>5}{verdict}"
        )
    print("(sandboxed runner with the checks, as run/eval, and the journal; worker start-up outside the episode "
          "clock; step = median raw env.step with the engine speedups; stock = TextWorld unpatched)")
    return verdicts.finish()


if __name__ == "__main__":
    raise SystemExit(main())
