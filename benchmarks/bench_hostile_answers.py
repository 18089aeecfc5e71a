"""Answers built to stall a parser: how long parsing takes, and whether an episode's wall clock holds.

The hostile answer is many unclosed ```py lines and no <execute> (issue 45): a regex that looked
for each fence's close took the square of its length (20,000 lines, 120 KB: 30 s) while holding
the interpreter, so an episode overran `--episode-timeout` and froze every other episode.

1. `parse_answer` on 20,000 and 180,000 such lines (120 KB, 1.08 MB) and the whole judgement of
   the 120 KB one (under the size limit, so it is parsed), each the best of 3.
2. `eval` with `--episode-timeout 10`, c=2, ALFWorld: one episode's model (the local
   OpenAI-compatible server, through the real `openai` client) answers the 1 MB hostile answer
   every time, the other's answers from the demo script. Figures: how far past its clock the
   hostile episode ended, and the other episode won.

Targets (issue 45): the hostile episode ends within 1 s of its clock. Parsing: at most 0.5 s for
the 1 MB answer (measured 0.08 s here under load, ~6x margin; before: hours).

Run: .venv/bin/python benchmarks/bench_hostile_answers.py [--clock 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.agents.recode.answer_rule import judge_answer  # noqa: E402
from agent.runtime.limits import Limits  # noqa: E402
from agent.eval.batch import Evaluation  # noqa: E402
from agent.eval.results import EvalPlan  # noqa: E402
from agent.eval.report import EvalReport  # noqa: E402
from agent.run.spec import ModelChoice, RunSpec  # noqa: E402
from agent.runtime.code import InvalidAnswer, parse_answer  # noqa: E402
from benchmarks.targets import Target, Verdicts  # noqa: E402
from envs.alfworld.catalog import list_games  # noqa: E402
from mockllm.openai_server import OpenAICompatibleServer, script_responder, write_profiles  # noqa: E402
from recode_tui.setup.eval_plan import llm_factory, select_games  # noqa: E402
from recode_tui.setup.build import DEMO_SCRIPT  # noqa: E402
from recode_tui.setup.env_workers import EnvPool  # noqa: E402

INSTRUCTION = "- instruction (str): "
OVERRUN = Target("hostile episode: seconds past its wall clock", 1.0, "s", "issue 45: within one second")
PARSE = Target("parse_answer, 1.08 MB of unclosed ```py lines", 0.5, "s", "measured 0.08 s here, ~6x margin")
OTHER = Target("the other episode won", 1, "", "the demo script wins it", at_least=True)


def hostile(lines: int) -> str:
    return "```py\n" * lines


def best_of_3(work) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(3):
        began = time.perf_counter()
        work()
        times.append(time.perf_counter() - began)
    return min(times)


def parse(text: str) -> None:
    try:
        parse_answer(text)
    except InvalidAnswer:
        pass


async def hostile_eval(clock: float) -> tuple[float, bool, int]:
    games = select_games(None, "put-01,clean-01", None)
    hostile_task = next(game.task for game in list_games() if game.id == games[0].id)
    demo = script_responder(str(DEMO_SCRIPT))
    answer = hostile(180_000)

    def asks_hostile(prompt: str) -> bool:  # the task at hand, not a few-shot example's
        return prompt[prompt.rfind(INSTRUCTION) + len(INSTRUCTION):].startswith(hostile_task)

    def respond(prompt: str) -> str:
        return answer if asks_hostile(prompt) else demo(prompt)

    with tempfile.TemporaryDirectory() as tmp, OpenAICompatibleServer(respond) as server:
        profiles = write_profiles(Path(tmp) / "profiles.yaml", server.base_url, max_retries=0, timeout=30)
        os.environ.pop("OPENAI_API_KEY", None)
        run = RunSpec(model=ModelChoice("profile:local"), max_steps=80,
                      limits=Limits(max_rewrite=100_000))  # refused until the clock ends it
        plan = EvalPlan(games=games, run=run, concurrency=2, episode_timeout=clock)
        report = EvalReport(plan)
        llm_for, _ = llm_factory(plan.run.model.llm, str(profiles), games)
        pool = EnvPool(2)
        await pool.ready()
        await Evaluation(report, Path(tmp) / "out", llm_for, pool_factory=lambda size: pool).run()
        calls = sum(1 for call in server.calls if asks_hostile(call.prompt))
    by_game = {e.game: e for e in report.episodes}
    stuck, other = by_game[games[0].id], by_game[games[1].id]
    assert stuck.reason == f"episode wall clock {clock:g} s exceeded", stuck.reason
    if not other.success:
        print(f"the other episode: {other.reason}", file=sys.stderr)
    return stuck.seconds - clock, other.success, calls


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clock", type=float, default=10.0)  # an ALFWorld demo episode under load takes ~5 s
    args = parser.parse_args()
    verdicts = Verdicts("bench_hostile_answers")
    small, big = hostile(20_000), hostile(180_000)
    small_parse, big_parse = best_of_3(lambda: parse(small)), best_of_3(lambda: parse(big))
    judged = best_of_3(lambda: judge_answer(small, frozenset({"run"}), typed=False))
    overrun, won, calls = await hostile_eval(args.clock)
    print(f"{os.cpu_count()} CPUs; load average: {os.getloadavg()[0]:.1f}\n")
    print("| figure | value | vs target |")
    print("|---|---|---|")
    print(f"| parse_answer, 20,000 unclosed ```py lines (120 KB) | {small_parse * 1000:.1f} ms | (before: 30 s) |")
    print(f"| parse_answer, 180,000 lines (1.08 MB) | {big_parse * 1000:.1f} ms | "
          f"{verdicts.check(PARSE, big_parse)} {PARSE.describe()} |")
    print(f"| judge_answer, the 120 KB answer | {judged * 1000:.1f} ms | |")
    print(f"| eval, --episode-timeout {args.clock:g}: the hostile episode ended past its clock by | {overrun:.2f} s "
          f"| {verdicts.check(OVERRUN, overrun)} {OVERRUN.describe()} |")
    print(f"| the hostile model was asked (each answer refused on its size) | {calls} times | |")
    print(f"| the other episode | {'won' if won else 'lost'} | {verdicts.check(OTHER, int(won))} {OTHER.describe()} |")
    return verdicts.finish()


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
