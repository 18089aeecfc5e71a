"""A parent that lets hostile node code try everything, with the Python-level layers off.

Run by tests/sandbox/test_kernel_walls.py as root and as an unused uid:
`python hostile_battery.py TARGETS_JSON` prints one JSON object, each attempt's
result ("held" or "ESCAPED: ...") and whether this parent received the signal
the code sent it. It imports only the project's `agent` package and
`pyseccomp`, found beside this file or on the path it is given, so an
unprivileged uid can run it from a copy.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.sandbox.runner import SandboxRunner


def attacks(targets: dict[str, object]) -> dict[str, str]:
    """Node code per attempt: each binds `got` to a description of what it reached."""
    home, shared, port = targets["home"], targets["shared"], targets["port"]
    parent = os.getpid()
    return {
        "read a 0600 file in HOME": f"got = open({home!r} + '/secret600').read()",
        "read a 0644 file in HOME": f"got = open({home!r} + '/secret644').read()",
        "write HOME": f"open({home!r} + '/planted', 'w').write('x')\ngot = 'wrote'",
        "write a world-writable folder": f"open({shared!r} + '/planted', 'w').write('x')\ngot = 'wrote'",
        "list HOME": f"import os\ngot = os.listdir({home!r})",
        "connect to a loopback listener": (
            f"import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=2)\ngot = 'connected'"),
        "start a shell": (f"import subprocess\nsubprocess.run(['/bin/sh', '-c', 'touch {shared}/shell-ran'])\n"
                          "got = 'ran'"),
        "exec a shell": f"import os\nos.execv('/bin/sh', ['sh', '-c', 'touch {shared}/exec-ran'])",
        "signal the parent": f"import os, signal\nos.kill({parent}, signal.SIGUSR1)\ngot = 'sent'",
        "read the parent's environ": f"got = open('/proc/{parent}/environ', 'rb').read().decode('latin-1')",
        "read the parent's memory": f"got = open('/proc/{parent}/mem', 'rb').read(16)",
        "exec the interpreter": f"import os, sys\nos.execv(sys.executable, ['python', '-S', '-c', 'raise SystemExit(42)'])",
        **budget_attacks(),
    }


SHARED_BYTES = 768 * 1024 * 1024  # more shared memory than the worker's whole budget (512 MiB)
CHUNK = 128 * 1024 * 1024  # SysV segments attached one at a time, each under RLIMIT_AS, then detached
LIBC = "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"


def budget_attacks() -> dict[str, str]:
    """Node code that spends memory outside every limit, or the user's shared kernel quotas."""
    return {
        "memfd_create and fallocate": (
            f"import os\nfd = os.memfd_create('hog')\nos.posix_fallocate(fd, 0, {SHARED_BYTES})\ngot = 'memfd'"),
        "SysV shared memory, attached then detached": (
            LIBC + "libc.shmat.restype = ctypes.c_void_p\nsegments = []\n"
            f"for _ in range({SHARED_BYTES // CHUNK}):\n"
            f"    key = libc.shmget(0, ctypes.c_size_t({CHUNK}), 0o1600)\n"
            "    if key < 0:\n        break\n"
            "    address = libc.shmat(key, None, 0)\n"
            f"    ctypes.memset(address, 1, {CHUNK})\n"
            "    libc.shmdt(ctypes.c_void_p(address))\n    segments.append(key)\n"
            "got = len(segments) or None"),
        "a POSIX message queue": (
            LIBC + "q = libc.mq_open(b'/recode-hog', os.O_CREAT | os.O_RDWR, 0o600, None)\n"
            "got = 'queue' if q >= 0 else None"),
        "an inotify instance": LIBC + "fd = libc.inotify_init1(0)\ngot = 'inotify' if fd >= 0 else None",
        "a POSIX timer (a queued-signal slot)": (
            LIBC + "timer = ctypes.c_void_p()\n"
            "got = 'timer' if libc.timer_create(1, None, ctypes.byref(timer)) == 0 else None"),
        "the user's queued signals": (
            "import resource\nsoft, hard = resource.getrlimit(resource.RLIMIT_SIGPENDING)\n"
            "got = None if hard != resource.RLIM_INFINITY and hard <= 64 else hard"),
    }


# What a distribution's /usr holds beside its Python: none of it is the interpreter's.
USR_BEYOND_THE_INTERPRETER = ("/usr/local/etc", "/usr/local/bin", "/usr/local/lib", "/usr/src", "/usr/share",
                              "/usr/include", "/usr/lib/python3/dist-packages", "/usr/bin/sh")


def usr_attack() -> str:
    """Node code that lists which of those the worker sees (run by a distribution's Python)."""
    return f"import os\ngot = [p for p in {USR_BEYOND_THE_INTERPRETER!r} if os.path.exists(p)] or None"


# Node code that takes its worker over (the layers are off: gc finds it) and makes it lie to the parent from
# then on: every outcome with a 4 MiB error and 4 MiB types and summaries, every prompt line reply 16 MiB.
FORGE = (
    "import gc\nfrom agent.sandbox.worker import Worker\n"
    "worker = next(o for o in gc.get_objects() if type(o) is Worker)\nhonest = worker.send\n"
    "def forge(message):\n"
    "    if message.get('t') == 'lines':\n"
    "        message = dict(message, lines=['- got (str): ' + 'z' * 2**20] * 16)\n"
    "    if message.get('t') == 'outcome':\n"
    "        message = dict(message, error='e' * 2**22, stub_name='s' * 2**22, changes=[\n"
    "            [n, 't' * 2**22, 's' * 2**22, c] for n, t, s, c in message.get('changes', [])])\n"
    "    honest(message)\n"
    "worker.send = forge\n"
)


async def forged_replies(runner: "SandboxRunner") -> str:
    """What the parent keeps of a taken-over worker's lies: "held" when every one was clipped."""
    from agent.runtime.runner import NodeOutcome
    from agent.sandbox import budgets

    await runner.start(FORGE)
    while not isinstance(outcome := await runner.next_message(), NodeOutcome):
        runner.answer("")
    sizes = {"error": len(outcome.error) - budgets.ERROR_CHARS, "stub": len(outcome.stub_name) - budgets.NAME_CHARS}
    for summary in await runner.variables():
        sizes[f"{summary.name} type"] = len(summary.type) - budgets.TYPE_CHARS
        sizes[f"{summary.name} summary"] = len(summary.summary) - budgets.SUMMARY_CHARS
    lines = await runner.prompt_lines(["got"])
    sizes["prompt lines"] = sum(map(len, lines)) - budgets.PROMPT_LINE_CHARS
    over = {what: excess for what, excess in sizes.items() if excess > len(budgets.CUT)}
    return "held" if not over else f"ESCAPED: characters beyond the caps {over}"


def shared_memory_bytes() -> int:
    """The host's shared memory in use (tmpfs, memfd and SysV shm pages): what no RLIMIT_AS counts."""
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("Shmem:"):
                return int(line.split()[1]) * 1024
    return 0


async def attempt(runner: "SandboxRunner", code: str) -> str:
    """Run one attempt as node code: "held", or "ESCAPED: " and what it reached."""
    from agent.runtime.runner import NodeOutcome

    body = "".join(f"    {line}\n" for line in code.splitlines())
    await runner.start(f"got = None\ntry:\n{body}except BaseException as exc:\n"
                       "    got = None\n    why = type(exc).__name__")
    while not isinstance(outcome := await runner.next_message(), NodeOutcome):
        runner.answer("")
    values = {v.name: v.summary for v in await runner.variables()}
    got = values.get("got", "None")
    return "held" if got == "None" and outcome.status == "completed" else \
        f"ESCAPED: {got[:200]} ({outcome.status} {outcome.error})"


async def run_battery(targets: dict[str, object]) -> dict[str, object]:
    from agent.sandbox.runner import SandboxRunner
    from agent.sandbox.walls import SandboxPolicy

    signalled: list[int] = []
    signal.signal(signal.SIGUSR1, lambda signum, frame: signalled.append(signum))
    policy = SandboxPolicy.from_environment(os.environ)  # this script is its own edge (RECODE_SANDBOX_LAYERS=os)
    runner = SandboxRunner(node_timeout=5.0, memory_mb=512, policy=policy)
    results: dict[str, object] = {}
    shared_before = shared_memory_bytes()
    try:
        for name, code in attacks(targets).items():
            results[name] = await attempt(runner, code)
        results["walls"] = list(runner.isolation)
        # measured while the worker lives: what it allocated would still be held
        results["host shared memory grew (MiB)"] = (shared_memory_bytes() - shared_before) / 2**20
        results["the parent's check refuses import os"] = runner.check("import os\nos.listdir('.')")
        results["a taken-over worker's outcome and prompt lines"] = await forged_replies(runner)
    finally:
        await runner.close()
    distribution = str(targets.get("distribution_python") or "")
    if distribution:  # the worker's root holds what that interpreter needs, not all of /usr
        runner = SandboxRunner(node_timeout=5.0, memory_mb=512, python=distribution, policy=policy)
        try:
            results["a distribution Python's /usr"] = await attempt(runner, usr_attack())
        finally:
            await runner.close()
    await asyncio.sleep(0.2)  # a signal sent by node code would have arrived by now
    results["parent signalled"] = bool(signalled)
    results["uid"] = os.getuid()
    return results


if __name__ == "__main__":
    arguments = json.loads(sys.argv[1])
    if arguments.get("path"):
        sys.path[:0] = list(arguments["path"])
    print(json.dumps(asyncio.run(run_battery(arguments))))
