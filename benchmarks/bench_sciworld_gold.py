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

User path: `recode-tui eval --env sciworld --llm gold -c 2` (default) or `recode-tui run
--env sciworld --llm gold` per task (`--run`): as a user types them.

Targets: every task won (the gold path is the simulator's own; a loss is a bug), the
eval's exit status 0, and the default eval's wall time (all 30 tasks) at most 250 s
(the README promises none; measured 166 s under a load of ~11 on 2 cores, 1.5x that). `--lengths` holds no target.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.targets import Target, Verdicts  # noqa: E402

WALL = Target("eval wall time, 30 tasks at -c 2", 250, "s", "measured 166 s here (load ~11, 2 cores), 1.5x margin")
EXIT = Target("eval's exit status", 0, "", "a clean eval exits 0")


def won_all(n: int) -> Target:
    return Target("tasks won by the gold path", n, "", "the gold path wins every task", at_least=True)


def eval_table(split: str, concurrency: int, tasks: str, verdicts: Verdicts) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "recode_tui", "eval", "--env", "sciworld", "--split", split, "--per-task", "1",
                   "--llm", "gold", "-c", str(concurrency), "--no-progress", "-o", str(Path(tmp) / "eval")]
        if tasks:
            command += ["--task-types", tasks]
        print("$ recode-tui " + " ".join(command[3:-2]), flush=True)
        began = time.monotonic()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, COLUMNS="180"))
        wall = time.monotonic() - began
        try:
            episodes = json.loads((Path(tmp) / "eval" / "report.json").read_text())["episodes"]
        except (OSError, ValueError, KeyError):
            episodes = []
    lines = done.stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if "episodes" in line and ":" in line and "gold" in line), 0)
    print("\n".join(lines[start:]))
    if done.returncode:
        print(done.stderr, file=sys.stderr)
    won = sum(bool(e.get("success")) for e in episodes)
    print(f"\n{won}/{len(episodes)} won {verdicts.check(won_all(len(episodes) or 1), won)} (all)")
    print(f"wall time {wall:.0f} s (gold paths computed in the parent, workers' JVM start included)"
          + ("" if tasks else f" {verdicts.check(WALL, wall)} {WALL.describe()}"))
    print(f"exit {done.returncode} {verdicts.check(EXIT, done.returncode)} (0)")
    return 0


def run_table(split: str, tasks: str, verdicts: Verdicts) -> int:
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
    print(f"\n{wins}/{len(names)} won {verdicts.check(won_all(len(names)), wins)} (all)")
    return 0


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
    verdicts = Verdicts("bench_sciworld_gold")
    if args.run:
        run_table(args.split, args.tasks, verdicts)
    else:
        eval_table(args.split, args.concurrency, args.tasks, verdicts)
    return verdicts.finish()


if __name__ == "__main__":
    raise SystemExit(main())
