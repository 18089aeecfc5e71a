"""`recode-tui sandbox`: which walls this machine gives model code, each shown by a real attempt.

For each kernel wall alone, and for all of them together, a worker is started
with the Python-level layers off (what the walls must stop on their own) and
tries what an escape would: read and write a file of the user's outside its
folder, connect to a listener on loopback, start a shell, signal the parent and
read the parent's environment. A wall is reported by what happened, not by
what was configured. A last line says which budget keeps the worker's memory
here (a cgroup, or the limits and refusals where none can be had).
"""

from __future__ import annotations

import asyncio
import os
import socket
import tempfile
import textwrap
from dataclasses import dataclass

from agent.runtime.runner import NodeOutcome
from agent.sandbox.memory_cgroup import memory_budget
from agent.sandbox.walls import WALLS, SandboxPolicy, missing_walls

ATTEMPTS = ("read", "write", "connect", "exec", "signal", "environ")
EXEC_PROBE = ["python", "-S", "-c", "raise SystemExit(42)"]
EXEC_STATUS = "exited (status 42)"  # how the parent reports a worker replaced by EXEC_PROBE


@dataclass(frozen=True)
class WallReport:
    """One row: a set of walls, whether this machine can raise them, and each attempt's result."""

    walls: str
    available: str  # "yes", or why not
    results: dict[str, str]  # attempt -> "held" | "ESCAPED" | "-" (not tried: the wall is missing)


def _attack(secret: str, folder: str, port: int, parent: int) -> dict[str, str]:
    """Node code for each attempt; each sets `got` to True only when the attempt succeeded."""
    return {
        "read": f"got = bool(open({secret!r}).read())",
        "write": f"open({folder!r} + '/planted', 'w').write('x')\ngot = True",
        "connect": f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=1)\ngot = True",
        # A shell where there is one; else the one program every wall lets the worker see, its interpreter
        # (exit 42 is a worker that ran a program in its own place).
        "exec": ("import os, subprocess, sys\ntry:\n    got = subprocess.run(['/bin/sh', '-c', 'exit 7']).returncode == 7\n"
                 f"except OSError:\n    got = False\nif not got:\n    os.execv(sys.executable, {EXEC_PROBE!r})"),
        "signal": f"import os\nos.kill({parent}, 0)\ngot = True",
        "environ": f"got = bool(open('/proc/{parent}/environ', 'rb').read())",
    }


async def _try(policy: SandboxPolicy, attacks: dict[str, str]) -> dict[str, str]:
    from agent.sandbox.runner import SandboxRunner

    runner = SandboxRunner(node_timeout=5.0, memory_mb=512, policy=policy)
    results: dict[str, str] = {}
    try:
        for name, code in attacks.items():
            await runner.start("got = False\ntry:\n" + "".join(f"    {line}\n" for line in code.splitlines())
                               + "except BaseException:\n    got = False")
            while not isinstance(message := await runner.next_message(), NodeOutcome):
                runner.answer("")
            values = {v.name: v.summary for v in await runner.variables()}
            ran = values.get("got") == "True" or EXEC_STATUS in message.error
            results[name] = "ESCAPED" if ran else "held"
    finally:
        await runner.close()
    return results


async def probe_walls() -> list[WallReport]:
    """Every wall alone, then all together, attacked with the Python-level layers off."""
    missing = missing_walls()
    with tempfile.TemporaryDirectory(prefix="recode-probe-") as folder, socket.socket() as listener:
        secret = os.path.join(folder, "secret")
        with open(secret, "w") as f:
            f.write("secret")
        os.chmod(secret, 0o600)
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        attacks = _attack(secret, folder, listener.getsockname()[1], os.getpid())
        rows = [(wall, frozenset({wall})) for wall in WALLS] + [("all walls", frozenset(WALLS))]
        reports: list[WallReport] = []
        for name, walls in rows:
            absent = [missing[w] for w in walls if w in missing]
            if absent:
                reports.append(WallReport(name, absent[0], {a: "-" for a in ATTEMPTS}))
                continue
            policy = SandboxPolicy(python_layers=False, walls=walls, weak_ok=True)
            reports.append(WallReport(name, "yes", await _try(policy, attacks)))
    return reports


def render(reports: list[WallReport]) -> str:
    """The report as a small table, one wall a row."""
    width = max(len(r.walls) for r in reports)
    intro = ("Each kernel wall alone, then all of them, against model code with the Python-level layers "
             "off: a file of yours read and written, a loopback connect, a shell, a signal to this process "
             "and its environment. One wall alone lets through what it does not cover; model code runs "
             "behind all of them (the last row).")
    lines = [*textwrap.wrap(intro, 78), f"{'walls':<{width}}  available  " + "  ".join(f"{a:<7}" for a in ATTEMPTS).rstrip()]
    for report in reports:
        cells = "  ".join(f"{report.results.get(a, ''):<{max(len(a), 7)}}" for a in ATTEMPTS)
        available = "yes" if report.available == "yes" else "no"
        lines.append(f"{report.walls:<{width}}  {available:<9}  {cells}".rstrip())
    for report in reports:
        if report.available != "yes":
            lines.append(f"{report.walls}: {report.available}")
    budget = memory_budget()
    lines.append(budget.describe())
    lines += textwrap.wrap(f"(no cgroup: {budget.why_not})" if budget.why_not else f"(in {budget.home})", 78,
                           initial_indent="  ", subsequent_indent="  ")
    return "\n".join(lines)


def run_probe() -> str:
    return render(asyncio.run(probe_walls()))
