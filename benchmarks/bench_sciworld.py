"""Time the ScienceWorld environment against the bare simulator, and its JVM's memory.

    python benchmarks/bench_sciworld.py [--tasks boil,find-plant,chemistry-mix] [--heap 640]

For each task, variation 0's gold path is replayed three ways: the wrapper's
own `step` (which also fetches look, inventory, task description and valid
actions every step), our `SciWorldEnv.step` (observation, score, completion
only), and the bare simulator call (`server.step` alone). Also: JVM start, the
first and later `reset`, and the JVM's resident memory after the episodes
(target: a worker under ~600 MB with the default heap cap).

User path: every ScienceWorld `env.step` / `reset` of `run`, `tui` and `eval --env sciworld`.

Targets: our step at most 1.1x the bare simulator's (issue 24's figure: the env adds
nothing a user would notice); JVM start at most 3 s (docs/environments.md: "about 2 s"; 1.5x margin);
the JVM at most 600 MB resident (docs/environments.md: a worker near 350-500 MB; this file's ~600 MB).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.targets import Target, Verdicts  # noqa: E402
from envs.sciworld.env import SciWorldEnv  # noqa: E402

STEP = Target("SciWorldEnv step / bare simulator step (medians)", 1.1, "x", "issue 24")
START = Target("JVM start", 3.0, "s", "docs/environments.md: about 2 s; 1.5x margin")
MEMORY = Target("JVM resident memory after the episodes", 600, "MB", "docs/environments.md: 350-500 MB; this file's ~600 MB")
from envs.sciworld.simulator import Simulator  # noqa: E402
from envs.sciworld.tasks import find_task, simplifications_for  # noqa: E402


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000 if values else 0.0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", default="boil,find-plant,chemistry-mix,use-thermometer")
    parser.add_argument("--heap", type=int, default=640, help="JVM heap cap in MB")
    args = parser.parse_args()

    simulator = Simulator(heap_mb=args.heap)
    began = time.perf_counter()
    simulator.env()
    start = time.perf_counter() - began
    resets, ours, wrapper, bare = [], [], [], []
    for name in args.tasks.split(","):
        task = find_task(name)
        simulator.load(task.name, 0, simplifications_for(task, "easy"), gold=True)
        gold = simulator.gold_actions()
        env = SciWorldEnv(f"{task.name}/0", max_steps=len(gold) + 10, simulator=simulator)
        began = time.perf_counter()
        env.reset()
        resets.append(time.perf_counter() - began)
        for action in gold:
            began = time.perf_counter()
            env.step(action)
            ours.append(time.perf_counter() - began)
            if env.done:
                break
        wrapped = simulator.env()
        wrapped.load(task.name, 0, simplifications_for(task, "easy"))
        wrapped.reset()
        for action in gold:
            began = time.perf_counter()
            wrapped.step(action)
            wrapper.append(time.perf_counter() - began)
        wrapped.reset()
        for action in gold:
            began = time.perf_counter()
            wrapped.server.step(action)
            bare.append(time.perf_counter() - began)
        simulator.loaded = None
    jvm = simulator.env()._gateway.java_process.pid
    memory = rss_mb(jvm)
    simulator.close()

    verdicts = Verdicts("bench_sciworld")
    ratio = median_ms(ours) / max(median_ms(bare), 1e-9)
    print("| what | value | vs target |\n|---|---|---|")
    print(f"| JVM start | {start:.2f} s | {verdicts.check(START, start)} {START.describe()} |")
    print(f"| reset, first / later (median) | {resets[0]:.2f} s / {statistics.median(resets[1:] or resets):.2f} s | |")
    print(f"| step, bare simulator (median of {len(bare)}) | {median_ms(bare):.1f} ms | |")
    print(f"| step, SciWorldEnv | {median_ms(ours):.1f} ms ({ratio:.2f}x bare) | {verdicts.check(STEP, ratio)} "
          f"{STEP.describe()} |")
    print(f"| step, the wrapper's own step | {median_ms(wrapper):.1f} ms | |")
    print(f"| JVM resident memory after {len(args.tasks.split(','))} episodes, heap cap {args.heap} MB | {memory:.0f} MB "
          f"| {verdicts.check(MEMORY, memory)} {MEMORY.describe()} |")
    return verdicts.finish()


if __name__ == "__main__":
    raise SystemExit(main())
