"""One test variation of each of ScienceWorld's 30 tasks, won by the gold-path LLM through the real commands.

    .venv/bin/python benchmarks/bench_sciworld_gold.py            # `recode-tui eval ... --llm gold -c 2`: its table
    .venv/bin/python benchmarks/bench_sciworld_gold.py --run      # `recode-tui run --llm gold` per task: a table
    .venv/bin/python benchmarks/bench_sciworld_gold.py --run --tasks boil,melt --split dev
    .venv/bin/python benchmarks/bench_sciworld_gold.py --lengths  # first variations; limits: python -m envs.sciworld.derive_limits

Default: runs `recode-tui eval --env sciworld --split test --per-task 1
--llm gold -c 2` as a user would (a subprocess, its own workers and JVMs) and
prints its table: a row per task, a row per topic group, overall. `--run`
plays each task's first variation of the split with `recode-tui run --llm
gold` in this process (one JVM shared by all), one row per task. Both take a
few minutes: the two genetics tasks need ~10-20 s each to compute a gold path.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def eval_table(split: str, concurrency: int, tasks: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "recode_tui", "eval", "--env", "sciworld", "--split", split, "--per-task", "1",
                   "--llm", "gold", "-c", str(concurrency), "--no-progress", "-o", str(Path(tmp) / "eval")]
        if tasks:
            command += ["--task-types", tasks]
        print("$ recode-tui " + " ".join(command[3:-2]), flush=True)
        began = time.monotonic()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, COLUMNS="180"))
        wall = time.monotonic() - began
    lines = done.stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if "episodes" in line and ":" in line and "gold" in line), 0)
    print("\n".join(lines[start:]))
    if done.returncode:
        print(done.stderr, file=sys.stderr)
    print(f"\nwall time {wall:.0f} s (gold paths computed in the parent, workers' JVM start included); exit {done.returncode}")
    return done.returncode


def run_table(split: str, tasks: str) -> int:
    from envs.sciworld.tasks import task_names
    from envs.sciworld.variations import variation_table
    from recode_tui.commands.cli import main

    names = tasks.split(",") if tasks else list(task_names())
    table = variation_table()
    print("| task | episode | result line of `recode-tui run --llm gold --quiet` | s |\n|---|---|---|---|")
    wins = 0
    with tempfile.TemporaryDirectory() as sessions:
        for name in names:
            episode = f"{name}/{table[name][split][0]}"
            out = io.StringIO()
            began = time.monotonic()
            with contextlib.redirect_stdout(out):
                code = main(["run", "--env", "sciworld", "--game", episode, "--llm", "gold", "--quiet",
                             "--sessions", sessions])
            wins += code == 0
            line = out.getvalue().strip().splitlines()[-1] if out.getvalue().strip() else f"exit {code}"
            print(f"| {name} | {episode} | {line.split(' | ')[0]} | {time.monotonic() - began:.1f} |", flush=True)
    print(f"\n{wins}/{len(names)} won")
    return 0 if wins == len(names) else 1


def lengths_table(split: str, tasks: str) -> int:
    """The gold path length of each task's first variation, easy and full, and the step limit rule's result."""
    from envs import registry
    from envs.sciworld.provider import STEP_LIMITS
    from envs.sciworld.tasks import task_names
    from envs.sciworld.variations import variation_table

    def limit(length: int) -> int:
        return max(50, -(-int(length * 1.5) // 10) * 10)

    table = variation_table()
    print("| task | episode | gold easy | limit easy (STEP_LIMITS) | gold full | limit full |\n|---|---|---|---|---|---|")
    for name in tasks.split(",") if tasks else task_names():
        episode = f"{name}/{table[name][split][0]}"
        easy, full = (len(registry.provider(env).gold_actions(episode)) for env in ("sciworld", "sciworld-full"))
        print(f"| {name} | {episode} | {easy} | {limit(easy)} ({STEP_LIMITS.get(name)}) | {full} | {limit(full)} |",
              flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="play each task with `recode-tui run` instead of one eval")
    parser.add_argument("--lengths", action="store_true", help="gold path lengths and step limits, easy and full")
    parser.add_argument("--split", default="test", choices=("train", "dev", "test"))
    parser.add_argument("--tasks", default="", help="comma-separated task names (default: all 30)")
    parser.add_argument("-c", "--concurrency", type=int, default=2, help="eval's workers (default 2)")
    args = parser.parse_args()
    if args.lengths:
        return lengths_table(args.split, args.tasks)
    return run_table(args.split, args.tasks) if args.run else eval_table(args.split, args.concurrency, args.tasks)


if __name__ == "__main__":
    raise SystemExit(main())
