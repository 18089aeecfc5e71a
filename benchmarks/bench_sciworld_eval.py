"""ScienceWorld eval throughput at -c 1 and -c 2 (episodes/minute) and each worker's memory.

    .venv/bin/python benchmarks/bench_sciworld_eval.py [--tasks a,b,...] [--levels 1,2] [--heap 640]

The same test episodes (the first test variation of each task) are played at
every level by `agent.eval.batch.Evaluation` on an `EnvPool` of worker
processes, each with its own JVM, the way `recode-tui eval --env sciworld -c N`
runs them. The LLM plays the gold path (instant answers), so the numbers are
the machinery's: worker, JVM, engine and sandbox. The gold paths are computed
in this process before the clock (`eval --llm gold` computes each one in the
parent while the workers play). Workers start and warm their JVM before the
clock too; their start is printed apart.

Memory per worker: the worker's Python process plus its JVM, resident at the
end (`VmRSS`) and at peak (`VmHWM`), with the JVM heap capped at `--heap` MB.

User path: `recode-tui eval --env sciworld -c N` (the gold LLM, so the machinery's cost).

Targets: each worker's peak at most 600 MB (README: a worker near 350-500 MB; this
file's "under about 600 MB"; measured 407 MB); every episode won; -c 2 at least 0.5x the
throughput of -c 1: a floor against contention collapse, not a scaling claim (the gold
LLM answers at once, so the episodes are CPU-bound: measured 0.74x under a load of 12
on 2 cores, where two JVM workers cannot overlap; on an idle machine expect more).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent import agents  # noqa: E402
from agent.eval.batch import Evaluation  # noqa: E402
from agent.eval.results import EvalPlan  # noqa: E402
from agent.eval.report import EvalReport  # noqa: E402
from agent.eval.results import EpisodeSpec  # noqa: E402
from agent.run.spec import EnvChoice, ModelChoice, RunSpec  # noqa: E402
from agent.eval.executor import LocalExecutor  # noqa: E402
from benchmarks.targets import Target, Verdicts  # noqa: E402
from envs import registry  # noqa: E402
from recode_tui.setup.env_workers import EnvPool  # noqa: E402
from envs.sciworld.variations import variation_table  # noqa: E402
from envs.sciworld.simulator import shared_simulator  # noqa: E402
from mockllm.gold import gold_llm  # noqa: E402

PEAK = Target("worker peak resident memory (max over workers)", 600, "MB", "README 350-500 MB; this file's ~600 MB")
SPEEDUP = Target("speed-up vs c=1", 0.5, "x", "measured 0.74x (load 12, 2 cores): a floor, ~1.5x margin",
                 at_least=True)

# One or two tasks of each topic group, short and long gold paths; the mendelian ones (9-20 s to load) left out.
TASKS = ("boil,melt,use-thermometer,measure-melting-point-known-substance,power-component,test-conductivity,"
         "find-living-thing,find-animal,grow-plant,chemistry-mix,chemistry-mix-paint-secondary-color,"
         "lifespan-longest-lived,identify-life-stages-1,inclined-plane-determine-angle")


def status_kb(pid: int, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def worker_memory(pid: int) -> tuple[float, float, float]:
    """(Python MB, JVM MB, peak of both MB) of one worker, resident."""
    jvms = children(pid)
    python_mb = status_kb(pid, "VmRSS") / 1024
    jvm_mb = sum(status_kb(j, "VmRSS") for j in jvms) / 1024
    peak_mb = (status_kb(pid, "VmHWM") + sum(status_kb(j, "VmHWM") for j in jvms)) / 1024
    return python_mb, jvm_mb, peak_mb


async def one_level(concurrency: int, games: list[EpisodeSpec], gold: dict[str, list[str]], folder: Path) -> dict:
    plan = EvalPlan(games=games, run=RunSpec(model=ModelChoice("gold"), env=EnvChoice("sciworld")), concurrency=concurrency)
    report = EvalReport(plan)
    pool = EnvPool(concurrency, warm_env="sciworld")
    began = time.monotonic()
    await pool.ready()  # each worker has started its JVM
    warm = time.monotonic() - began
    samples: dict[int, tuple[float, float, float]] = {}

    def sample(_result) -> None:  # after each episode, while the workers are alive (the run closes the pool)
        for worker in pool.workers:
            samples[worker.pid] = worker_memory(worker.pid)

    began = time.monotonic()
    await Evaluation(report, folder, LocalExecutor(report, lambda game, agent: gold_llm(agents.agent_class(agent), gold[game.id]), lambda size: pool),
                     on_result=sample).run()
    wall = time.monotonic() - began
    memory = list(samples.values())
    await pool.close()
    return {
        "c": concurrency, "episodes": len(report.episodes), "won": sum(e.success for e in report.episodes),
        "steps": sum(e.steps for e in report.episodes), "wall": wall, "warm": warm,
        "per_min": len(report.episodes) / wall * 60, "memory": memory,
    }


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default=TASKS)
    parser.add_argument("--levels", default="1,2")
    parser.add_argument("--heap", type=int, default=None, help="JVM heap cap in MB (default: the simulator's)")
    args = parser.parse_args()
    if args.heap:
        os.environ["JAVA_TOOL_OPTIONS"] = f"-Xmx{args.heap}m"  # the workers inherit it
    table = variation_table()
    provider = registry.provider("sciworld")
    games = [EpisodeSpec(f"{t}/{table[t]['test'][0]}", t) for t in args.tasks.split(",")]
    began = time.monotonic()
    gold = {g.id: provider.gold_actions(g.id) for g in games}
    print(f"gold paths of {len(games)} episodes computed in {time.monotonic() - began:.0f} s (outside the clock)",
          file=sys.stderr, flush=True)
    shared_simulator().close()  # this process's JVM is not a worker's: free its memory before measuring
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for level in (int(x) for x in args.levels.split(",")):
            rows.append(await one_level(level, games, gold, Path(tmp) / f"c{level}"))
            print(f"c={level}: {rows[-1]['per_min']:.1f} episodes/min", file=sys.stderr, flush=True)
    verdicts = Verdicts("bench_sciworld_eval")
    base = rows[0]["per_min"]
    print(f"{len(games)} ScienceWorld test episodes (one per task, gold-path LLM) per level; {os.cpu_count()} CPUs; "
          f"load average now {os.getloadavg()[0]:.1f}\n")
    print("| c | won | actions | wall s | episodes/min | speed-up | worker start s | per worker: Python MB + JVM MB "
          "(peak both) | vs target |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        memory = "; ".join(f"{p:.0f} + {j:.0f} ({peak:.0f})" for p, j, peak in r["memory"])
        won = Target(f"c={r['c']}: episodes won", r["episodes"], "", "the gold path wins", at_least=True)
        verdict = f"{verdicts.check(won, r['won'])} all won"
        if r is not rows[0]:
            speed = Target(f"c={r['c']}: speed-up vs c={rows[0]['c']}", SPEEDUP.limit, "x", SPEEDUP.source,
                           at_least=True)
            verdict += f"; {verdicts.check(speed, r['per_min'] / base)} {speed.describe()}"
        print(f"| {r['c']} | {r['won']}/{r['episodes']} | {r['steps']} | {r['wall']:.1f} | {r['per_min']:.1f} | "
              f"{r['per_min'] / base:.2f}x | {r['warm']:.1f} | {memory} | {verdict} |")
    peaks = [peak for r in rows for _, _, peak in r["memory"]]
    print(f"\nworker peak resident memory: median {statistics.median(peaks):.0f} MB, max {max(peaks):.0f} MB "
          f"{verdicts.check(PEAK, max(peaks))} {PEAK.describe()}")
    return verdicts.finish()


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
