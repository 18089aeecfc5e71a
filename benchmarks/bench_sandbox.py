"""Cost of the sandboxed worker (per-node overhead, restart-and-restore time) and the budgets it is held to.

    .venv/bin/python benchmarks/bench_sandbox.py [--nodes 2000] [--restarts 30] [--only budgets]

Targets (issue 6; the README promises no figure): under 1 ms of overhead per node
against plain exec, under 150 ms per restart-and-restore. Every per-node figure is
a median of individually timed nodes, so the columns compare like with like
(plain exec, the in-process ThreadRunner, the sandbox).

Budgets (issue 45; docs/sandbox.md states each): hostile code with the Python layers
off tries to spend what no limit counted, and a forged worker sends the parent what
an honest one never would; each figure is what it got.

User path: every node's code in `run`, `tui` and `eval` runs in this sandbox worker
(`agent.sandbox.settings`); a node that times out or breaks a limit costs a restart.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.runtime.runner import NodeOutcome  # noqa: E402
from agent.runtime.thread_runner import ThreadRunner  # noqa: E402
from agent.sandbox import budgets  # noqa: E402
from agent.sandbox.runner import SandboxRunner  # noqa: E402
from agent.sandbox.walls import SandboxPolicy  # noqa: E402
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

MIB = 1024 * 1024
FORGED = Path(__file__).resolve().parents[1] / "tests" / "sandbox" / "forged_worker.py"
WORKER_MB = 512  # the hostile nodes' worker: RLIMIT_AS 512 MiB
SHARED_MARGIN = Target("host shared memory grown by a node asking 1.5 GiB of memfd and SysV shm", 128, "MiB",
                       "issue 45: the worker's budget plus its 64 MiB tmpfs and 64 MiB for the machine's others")
SIGNALS_TARGET = Target("queued signals a worker may hold (RLIMIT_SIGPENDING)", budgets.SIGNALS_QUEUED, "",
                        "issue 45: the user has 96,367 for every process of theirs")
WATCHES_TARGET = Target("inotify instances and POSIX timers a worker gets", 0, "", "issue 45: none is needed")
FILE_TARGET = Target("largest file a worker writes outside its namespaces (RLIMIT_FSIZE)",
                     budgets.FILE_BYTES / MIB, "MiB", "issue 45: its namespaces' tmpfs")
PARENT_TARGET = Target("parent memory grown over 21 nodes of a worker sending 72 MiB of summaries each", 100,
                       "MiB", "issue 45: 2.44 GB before; the kept summaries are at most ~18 MiB a run")
LINES_TARGET = Target("prompt characters from a worker's forged `lines` reply, one name asked",
                      budgets.PROMPT_LINE_CHARS + len(budgets.CUT), "", "issue 45: 42 MB a prompt before")
IDLE_CPU_TARGET = Target("worker CPU in 1 s between nodes, its code left a busy signal handler", 0.05, "s",
                         "issue 45: the parent stops the worker while it has the turn")
SHARED_CODE = (
    "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.shmat.restype = ctypes.c_void_p\n"
    "try:\n    fd = os.memfd_create('hog')\n    os.posix_fallocate(fd, 0, 768 * 2**20)\nexcept OSError:\n    pass\n"
    "for _ in range(6):\n    key = libc.shmget(0, ctypes.c_size_t(128 * 2**20), 0o1600)\n    if key < 0:\n"
    "        break\n    address = libc.shmat(key, None, 0)\n    ctypes.memset(address, 1, 128 * 2**20)\n"
    "    libc.shmdt(ctypes.c_void_p(address))\n"
)
QUOTA_CODE = (
    "import ctypes, resource\nlibc = ctypes.CDLL(None, use_errno=True)\n"
    "signals = resource.getrlimit(resource.RLIMIT_SIGPENDING)[1]\n"
    "timer = ctypes.c_void_p()\n"
    "got = sum(libc.inotify_init1(0) >= 0 for _ in range(8)) + "
    "sum(libc.timer_create(1, None, ctypes.byref(timer)) == 0 for _ in range(8))\n"
)
FILE_CODE = (
    "written = 0\ntry:\n    with open('big', 'wb') as f:\n        for _ in range(256):\n"
    "            f.write(bytes(2**20))\n            f.flush()\n            written += 2**20\nexcept OSError:\n    pass\n"
)


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


def shared_memory() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("Shmem:"):
            return int(line.split()[1]) * 1024
    return 0


def own_memory() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def cpu_seconds(pid: int) -> float:
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rfind(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def values(runner: SandboxRunner, code: str) -> dict[str, str]:
    outcome = await drive(runner, code)
    assert outcome.status == "completed", outcome
    return {v.name: v.summary for v in await runner.variables()}


async def kernel_budgets(verdicts: Verdicts) -> None:
    """What hostile code with the Python layers off gets of memory, quotas, files and CPU."""
    print("budgets the kernel keeps (hostile code, Python layers off)")
    runner = SandboxRunner(memory_mb=WORKER_MB, policy=SandboxPolicy(python_layers=False))
    try:
        before = shared_memory()
        await values(runner, SHARED_CODE)
        grown = (shared_memory() - before) / MIB  # the worker is alive: whatever it allocated is held
        print(f"  host shared memory grew {grown:.1f} MiB  {verdicts.check(SHARED_MARGIN, grown)} "
              f"{SHARED_MARGIN.describe()}")
        got = await values(runner, QUOTA_CODE)
        signals = float(got["signals"]) if got["signals"].isdigit() else float("inf")
        print(f"  queued signals {got['signals']}  {verdicts.check(SIGNALS_TARGET, signals)} "
              f"{SIGNALS_TARGET.describe()}")
        print(f"  inotify instances and timers {got['got']}  {verdicts.check(WATCHES_TARGET, float(got['got']))} "
              f"{WATCHES_TARGET.describe()}")
        await values(runner, "import signal\nsignal.signal(signal.SIGALRM, lambda *a: [0 for _ in iter(int, 1)])\n"
                             "signal.setitimer(signal.ITIMER_REAL, 0.2)")  # after the node has ended
        pid = runner.worker_pid or 0
        began = cpu_seconds(pid)
        await asyncio.sleep(1.0)
        idle = cpu_seconds(pid) - began
        print(f"  worker CPU between nodes {idle:.2f} s  {verdicts.check(IDLE_CPU_TARGET, idle)} "
              f"{IDLE_CPU_TARGET.describe()}")
    finally:
        await runner.close()
    outside = SandboxRunner(memory_mb=WORKER_MB, policy=SandboxPolicy(python_layers=False,
                                                                     walls=frozenset({"landlock", "seccomp"})))
    try:
        written = int((await values(outside, FILE_CODE))["written"]) / MIB
        print(f"  largest file {written:.0f} MiB  {verdicts.check(FILE_TARGET, written)} {FILE_TARGET.describe()}")
    finally:
        await outside.close()


async def parent_budgets(verdicts: Verdicts) -> None:
    """What the parent keeps of a forged worker's replies (tests/sandbox/forged_worker.py)."""
    print("budgets the parent keeps (a forged worker)")
    runner = SandboxRunner(python=str(FORGED), memory_mb=None, node_timeout=30.0,
                           policy=SandboxPolicy(walls=frozenset(), weak_ok=True))
    try:
        await runner.ensure_started()
        before = own_memory()
        for _ in range(21):
            await drive(runner, "huge summaries")
        grown = (own_memory() - before) / MIB
        print(f"  parent grew {grown:.0f} MiB over 21 nodes  {verdicts.check(PARENT_TARGET, grown)} "
              f"{PARENT_TARGET.describe()}")
        await runner.set_variables({"x": "honest"})
        chars = sum(map(len, await runner.prompt_lines(["x"])))
        print(f"  forged prompt lines {chars} chars  {verdicts.check(LINES_TARGET, chars)} {LINES_TARGET.describe()}")
    finally:
        await runner.close()


async def main() -> int:
    verdicts = Verdicts("bench_sandbox")
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--restarts", type=int, default=30)
    parser.add_argument("--only", choices=("budgets",), help="measure only the budgets (issue 45)")
    args = parser.parse_args()
    await kernel_budgets(verdicts)
    await parent_budgets(verdicts)
    print()
    if args.only == "budgets":
        return verdicts.finish()

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
