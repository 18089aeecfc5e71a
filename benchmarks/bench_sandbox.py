"""Cost of the sandboxed worker: per-node overhead and restart-and-restore time.

    .venv/bin/python benchmarks/bench_sandbox.py [--nodes 2000] [--restarts 30]

Targets (issue 6; the README promises no figure): under 1 ms of overhead per node
against plain exec, under 150 ms per restart-and-restore. Every per-node figure is
a median of individually timed nodes, so the columns compare like with like
(plain exec, the in-process ThreadRunner, the sandbox).

User path: every node's code in `run`, `tui` and `eval` runs in this sandbox worker
(`agent.sandbox.settings`); a node that times out or breaks a limit costs a restart.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.runtime.runner import NodeOutcome  # noqa: E402
from agent.runtime.thread_runner import ThreadRunner  # noqa: E402
from agent.sandbox import SandboxRunner  # noqa: E402
from benchmarks.targets import Target, Verdicts  # noqa: E402

NODE_TARGET = Target("sandbox overhead per node vs plain exec (median)", 1, "ms", "issue 6")
RESTART_TARGET = Target("restart-and-restore after a timeout (median)", 150, "ms", "issue 6")

NODES = {
    "assign": "x = 1",
    "regex": "objs = re.findall(r'a ([a-z]+ \\d+)', observation)",
    "one run()": "obs = run('look')",
    "loop 5 run()": "for i in range(5):\n    obs = run('look')",
}
OBSERVATION = "You see a cabinet 1, a desk 1, a drawer 3, a mug 2 and a sinkbasin 1."


async def drive(runner, code: str) -> NodeOutcome:
    await runner.start(code)
    while True:
        message = await runner.next_message()
        if isinstance(message, NodeOutcome):
            return message
        runner.answer("Nothing happens.")


def plain_exec(code: str, namespace: dict) -> float:
    """The floor: exec in this process, no runner at all (run() answers at once)."""
    scope = dict(namespace, run=lambda a: "Nothing happens.", re=re)
    began = time.perf_counter()
    exec(compile(code, "<node>", "exec"), scope)
    return time.perf_counter() - began


async def per_node(runner, code: str, n: int) -> list[float]:
    """Each of `n` nodes timed on its own, start to outcome (after 20 warm-up nodes)."""
    await runner.set_variables({"observation": OBSERVATION})
    for _ in range(20):  # warm up
        await drive(runner, code)
    times = []
    for _ in range(n):
        began = time.perf_counter()
        outcome = await drive(runner, code)
        times.append(time.perf_counter() - began)
        assert outcome.status == "completed", outcome
    return times


def p90(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[max(0, int(len(ordered) * 0.9) - 1)]


async def restarts(runner: SandboxRunner, setup: str, n: int) -> list[float]:
    outcome = await drive(runner, setup)
    assert outcome.status == "completed", outcome
    times = []
    for _ in range(n):
        outcome = await drive(runner, "while True:\n    pass")
        assert outcome.error.startswith("timed out"), outcome
        times.append(runner.last_restart_seconds)
    return times


async def main() -> int:
    verdicts = Verdicts("bench_sandbox")
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--restarts", type=int, default=30)
    args = parser.parse_args()

    print(f"per-node time over {args.nodes} nodes, median (p90) in ms")
    print(
        f"{'node':<14}{'plain exec':>18}{'thread':>18}{'sandbox':>18}"
        f"{'sandbox - exec':>16}{'sandbox - thread':>18}  vs target"
    )
    worst = worst_thread = float("-inf")
    for label, code in NODES.items():
        floor = [plain_exec(code, {"observation": OBSERVATION}) for _ in range(args.nodes)]
        thread = ThreadRunner()
        t_thread = await per_node(thread, code, args.nodes)
        await thread.close()
        sandbox = SandboxRunner()
        t_sandbox = await per_node(sandbox, code, args.nodes)
        await sandbox.close()
        m_floor, m_thread, m_sandbox = (statistics.median(t) for t in (floor, t_thread, t_sandbox))
        worst = max(worst, m_sandbox - m_floor)
        worst_thread = max(worst_thread, m_sandbox - m_thread)
        cells = "".join(
            f"{f'{statistics.median(t) * 1e3:.3f} ({p90(t) * 1e3:.3f})':>18}" for t in (floor, t_thread, t_sandbox)
        )
        verdict = verdicts.check(
            Target(f"{NODE_TARGET.figure}: {label}", NODE_TARGET.limit, "ms", NODE_TARGET.source),
            (m_sandbox - m_floor) * 1e3)
        print(f"{label:<14}{cells}{(m_sandbox - m_floor) * 1e3:>16.3f}{(m_sandbox - m_thread) * 1e3:>18.3f}  "
              f"{verdict} {NODE_TARGET.describe()}")

    print()
    began = time.perf_counter()
    cold = SandboxRunner()
    await cold.ensure_started()
    print(f"cold worker start: {(time.perf_counter() - began) * 1e3:.1f} ms")
    await cold.close()

    print(f"restart-and-restore after a timeout, {args.restarts} each (ms)")
    print(f"{'namespace':<34}{'median':>8}{'p90':>8}{'max':>8}  vs target")
    cases = {
        "2 small variables": "a = 1\nb = 'two'",
        "200 variables": "\n".join(f"v{i} = [{i}, '{i}']" for i in range(200)),
        "one 100k-item list (~1 MB)": "big = [str(i) for i in range(100000)]",
    }
    worst_restart = 0.0
    for label, setup in cases.items():
        runner = SandboxRunner(node_timeout=0.2)
        times = sorted(await restarts(runner, setup, args.restarts))
        await runner.close()
        worst_restart = max(worst_restart, statistics.median(times))
        verdict = verdicts.check(
            Target(f"{RESTART_TARGET.figure}: {label}", RESTART_TARGET.limit, "ms", RESTART_TARGET.source),
            statistics.median(times) * 1e3)
        print(f"{label:<34}{statistics.median(times) * 1e3:>8.1f}{p90(times) * 1e3:>8.1f}{times[-1] * 1e3:>8.1f}  "
              f"{verdict} {RESTART_TARGET.describe()}")

    print()
    print(f"worst per-node overhead vs plain exec (medians): {worst * 1e3:.3f} ms")
    print(f"worst per-node overhead vs the in-process ThreadRunner (medians): {worst_thread * 1e3:+.3f} ms")
    print(f"worst median restart: {worst_restart * 1e3:.1f} ms")
    return verdicts.finish()


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
