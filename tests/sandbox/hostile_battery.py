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
    }


async def run_battery(targets: dict[str, object]) -> dict[str, object]:
    from agent.runtime.runner import NodeOutcome
    from agent.sandbox import SandboxRunner

    signalled: list[int] = []
    signal.signal(signal.SIGUSR1, lambda signum, frame: signalled.append(signum))
    runner = SandboxRunner(node_timeout=5.0, memory_mb=512)
    results: dict[str, object] = {}
    try:
        for name, code in attacks(targets).items():
            body = "".join(f"    {line}\n" for line in code.splitlines())
            await runner.start(f"got = None\ntry:\n{body}except BaseException as exc:\n"
                               "    got = None\n    why = type(exc).__name__")
            while not isinstance(outcome := await runner.next_message(), NodeOutcome):
                runner.answer("")
            values = {v.name: v.summary for v in await runner.variables()}
            got = values.get("got", "None")
            results[name] = "held" if got == "None" and outcome.status == "completed" else \
                f"ESCAPED: {got[:80]} ({outcome.status} {outcome.error})"
        results["walls"] = list(runner.isolation)
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
