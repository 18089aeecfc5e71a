"""Evaluation throughput: episodes per minute at concurrency 1, 4 and 8.

The LLM is the local OpenAI-compatible server (`mockllm.openai_server`)
answering from the bundled demo script, with 200 ms of latency injected into
every call, reached through the real `openai` client (profile `local`). The
environments run in worker processes (`recode_tui.setup.env_workers.EnvPool`), C at a time.
The same games (spread over the six task types) are played at every level;
the workers are started and warm before the clock starts, so the numbers are
steady-state throughput (the one-off worker start is printed separately).

48 games by default: at c=8 that is 6 episodes per lane. With fewer, the last
wave dominates: lanes sit idle while the slowest final episode finishes (at
24 games, 3 per lane, that tail costs c=8 about a sixth of its throughput).

User path: `recode-tui eval --llm profile:NAME -c N` against a served model (ALFWorld).

Targets (the README promises no figure): every episode won (the demo script wins
them); the speed-up over c=1 at least 1.5x at c=4 and 1.8x at c=8. Measured here
2.01x and 2.54x under a load of ~12.6 on 2 cores (where the workers' CPU, not the
LLM's latency, bounds it: c=1 spends ~35 % of its time waiting on the model), so
~1.35x margins; on an idle machine the lanes overlap the latency and do better.
A level not listed has no speed-up target.

Run: .venv/bin/python benchmarks/bench_eval.py [--games 48] [--levels 1,4,8] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.eval.batch import Evaluation  # noqa: E402
from agent.eval.results import EvalPlan  # noqa: E402
from agent.eval.report import EvalReport  # noqa: E402
from agent.run.spec import ModelChoice, RunSpec  # noqa: E402
from agent.eval.executor import LocalExecutor  # noqa: E402
from benchmarks.targets import Target, Verdicts  # noqa: E402

SPEEDUPS = {
    4: Target("c=4: speed-up vs c=1", 1.5, "x", "measured 2.01x here (load 12.6, 2 cores), ~1.35x margin", at_least=True),
    8: Target("c=8: speed-up vs c=1", 1.8, "x", "measured 2.54x here (load 12.6, 2 cores), ~1.4x margin", at_least=True),
}
from recode_tui.setup.env_workers import EnvPool  # noqa: E402
from mockllm.openai_server import OpenAICompatibleServer, script_responder, write_profiles  # noqa: E402
from recode_tui.setup.eval_plan import llm_factory, select_games  # noqa: E402
from recode_tui.setup.build import DEMO_SCRIPT  # noqa: E402


async def one_level(concurrency: int, games: list, profiles: Path, folder: Path) -> dict:
    plan = EvalPlan(games=games, run=RunSpec(model=ModelChoice("profile:local"), max_steps=80), concurrency=concurrency)
    report = EvalReport(plan)
    llm_for, _ = llm_factory(plan.run.model.llm, str(profiles), games)
    pool = EnvPool(concurrency)
    started = time.monotonic()
    await pool.ready()
    warm = time.monotonic() - started
    cpu_before = os.times()
    began = time.monotonic()
    await Evaluation(report, folder, LocalExecutor(report, llm_for, lambda size: pool, abort_on_llm_error=True)).run()
    wall = time.monotonic() - began
    cpu = os.times()
    main_cpu = (cpu.user - cpu_before.user) + (cpu.system - cpu_before.system)
    workers_cpu = (cpu.children_user - cpu_before.children_user) + (cpu.children_system - cpu_before.children_system)
    wins = sum(e.success for e in report.episodes)
    calls = sum(e.llm_calls for e in report.episodes)
    return {"c": concurrency, "episodes": len(report.episodes), "wins": wins, "wall": wall, "warm": warm,
            "per_min": len(report.episodes) / wall * 60, "calls": calls, "main_cpu": main_cpu, "workers_cpu": workers_cpu}


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=48)
    parser.add_argument("--levels", default="1,4,8")
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    games = select_games(None, str(args.games), None)
    levels = [int(x) for x in args.levels.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp, OpenAICompatibleServer(
        script_responder(str(DEMO_SCRIPT)), latency=args.latency
    ) as server:
        profiles = write_profiles(Path(tmp) / "profiles.yaml", server.base_url)
        os.environ.pop("OPENAI_API_KEY", None)
        for level in levels:
            rows.append(await one_level(level, games, profiles, Path(tmp) / f"c{level}"))
            row = rows[-1]
            print(f"c={level}: {row['per_min']:.1f} episodes/min", file=sys.stderr, flush=True)
    verdicts = Verdicts("bench_eval")
    base = rows[0]["per_min"]
    print(f"{args.games} episodes (demo script, all six task types) per level; {args.latency * 1000:.0f} ms "
          f"latency per LLM call; {os.cpu_count()} CPUs; load average before: {os.getloadavg()[0]:.1f}\n")
    print("| c | episodes won | wall s | episodes/min | speed-up vs c=1 | LLM calls | main CPU s | worker CPU s "
          "| worker start s | vs target |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        won = Target(f"c={r['c']}: episodes won", r["episodes"], "", "the demo script wins them", at_least=True)
        verdict = f"{verdicts.check(won, r['wins'])} all won"
        if r is not rows[0] and rows[0]["c"] == 1 and r["c"] in SPEEDUPS:
            speed = SPEEDUPS[r["c"]]
            verdict += f"; {verdicts.check(speed, r['per_min'] / base)} {speed.describe()}"
        print(f"| {r['c']} | {r['wins']}/{r['episodes']} | {r['wall']:.1f} | {r['per_min']:.1f} | "
              f"{r['per_min'] / base:.2f}x | {r['calls']} | {r['main_cpu']:.1f} | {r['workers_cpu']:.1f} | {r['warm']:.1f} "
              f"| {verdict} |")
    return verdicts.finish()


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
