"""Play one variation of each of ScienceWorld's 30 tasks with the gold-path LLM through ReCode.

    python benchmarks/bench_sciworld_gold.py [--split test] [--tasks boil,melt]

Each episode runs the sandboxed engine (the runner `run`/`eval` use) on the
process's one JVM; the table says, per task, whether it won, the score, steps,
LLM calls and seconds (gold path generation included).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent.engine import Engine  # noqa: E402
from agent.prompt import DEFAULT_PROMPTS, PromptSet  # noqa: E402
from agent.runners import RunnerSettings  # noqa: E402
from envs import registry  # noqa: E402
from envs.sciworld.provider import variation_table  # noqa: E402
from envs.sciworld.tasks import task_names  # noqa: E402
from mockllm.gold import gold_llm  # noqa: E402


async def play(episode: str) -> tuple[bool, int, int, int, float]:
    provider = registry.provider("sciworld")
    began = time.perf_counter()
    runner = RunnerSettings().make_runner()
    engine = Engine(provider.make_env(episode), gold_llm(provider.gold_actions(episode)), runner,
                    prompts=PromptSet(DEFAULT_PROMPTS))
    try:
        finished = await engine.run()
    finally:
        await engine.close()
    return finished.success, engine.env.score, finished.steps, finished.llm_calls, time.perf_counter() - began


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", default="test", choices=("train", "dev", "test"))
    parser.add_argument("--tasks", default="")
    args = parser.parse_args()
    names = args.tasks.split(",") if args.tasks else list(task_names())
    table = variation_table()
    print("| task | episode | won | score | steps | LLM calls | s |\n|---|---|---|---|---|---|---|")
    wins = 0
    for name in names:
        episode = f"{name}/{table[name][args.split][0]}"
        won, score, steps, calls, seconds = await play(episode)
        wins += won
        print(f"| {name} | {episode} | {'yes' if won else 'NO'} | {score} | {steps} | {calls} | {seconds:.1f} |", flush=True)
    print(f"\n{wins}/{len(names)} won")
    return 0 if wins == len(names) else 1


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
