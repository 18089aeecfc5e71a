"""What a `changes EXPR` breakpoint costs: a bundled game played to its end by the debugger.

    .venv/bin/python benchmarks/bench_watchpoint.py

The demo script plays put-01 through the sandboxed runner, with `continue`
repeated until the run ends, first with no breakpoint, then with change
watches that never hold (so the whole run is checked, never stopped). Each
check is one evaluation in the sandbox worker after every event that follows
code (an action, a variables change, a node error). The table gives the
median wall time per run and the added cost per check.

User path: `b changes EXPR` in the console (or `--break`), then `c`: every check runs while the user waits.

Target (the README promises no figure): at most 0.5 ms per check; measured about 0.2 ms
when the benchmark was written (297c039), 2.5x margin for a loaded machine.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.runtime import events as ev  # noqa: E402
from agent.runtime.breakpoints import parse_breakpoint  # noqa: E402
from agent.runtime.debugger import Debugger  # noqa: E402
from benchmarks.targets import Target, Verdicts  # noqa: E402
from mockllm.scripted import ScriptedLLM  # noqa: E402
from recode_tui.setup.build import DEMO_SCRIPT, make_agent  # noqa: E402
from tests.settings import episode_named, run_settings

GAME = "put-01"
RUNS = 7
# values that stay the same all run long: checked at every event, never a stop
TARGET = Target("ms per `changes` check", 0.5, "ms", "measured ~0.2 ms (297c039), 2.5x margin")
WATCHES = ["len(instruction)", "instruction.upper()", "sorted(set(instruction.split()))"]


async def play(watches: list[str]) -> tuple[float, int]:
    """Seconds from the first node to the end, and how many checks that took."""
    agent = make_agent(run_settings(), episode_named(GAME), ScriptedLLM.from_file(DEMO_SCRIPT))
    debugger = Debugger(agent, breakpoints=[parse_breakpoint(f"changes {w}") for w in watches])
    checks = 0

    def count(event: ev.Event) -> None:
        nonlocal checks
        if isinstance(event, (ev.ActionSent, ev.VariablesChanged, ev.NodeError)):
            checks += len(watches)

    await debugger.step("next")  # the game is loaded and reset before the clock starts
    debugger.on_event = count
    began = time.perf_counter()
    while not debugger.done:
        await debugger.step("continue")
    elapsed = time.perf_counter() - began
    assert isinstance(debugger.last_event, ev.RunFinished) and debugger.last_event.success
    await agent.close()
    return elapsed, checks


async def main() -> int:
    verdicts = Verdicts("bench_watchpoint")
    rows = []
    base = None
    for count in (0, 1, 3):
        runs = [await play(WATCHES[:count]) for _ in range(RUNS)]
        median = statistics.median(r[0] for r in runs) * 1000
        checks = runs[0][1]
        base = median if base is None else base
        per_check = (median - base) / checks if checks else 0.0
        rows.append((count, median, checks, per_check))
    print(f"{'changes breakpoints':>20} | {'run ms (median)':>15} | {'checks':>6} | {'ms per check':>12} | vs target")
    print("-" * 21 + "|" + "-" * 17 + "|" + "-" * 8 + "|" + "-" * 14 + "|" + "-" * 16)
    for count, median, checks, per_check in rows:
        verdict = ""
        if count:
            target = Target(f"{TARGET.figure}, {count} watches", TARGET.limit, TARGET.unit, TARGET.source)
            verdict = f"{verdicts.check(target, per_check)} {target.describe()}"
        print(f"{count:>20} | {median:>15.1f} | {checks:>6} | {per_check:>12.3f} | {verdict}")
    print(f"\n{GAME}, demo script, sandboxed runner, {RUNS} runs each")
    return verdicts.finish()


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
