#!/usr/bin/env python3
"""A hostile sandbox worker for the parent's tests: it speaks the framing protocol and misbehaves.

Started in place of the Python interpreter (`SandboxRunner(python=<this file>)`),
so it gets the interpreter's arguments and ignores all but the last (the
worker's configuration). It answers like an honest worker, except for a node
whose code is one of the commands in `MISCHIEF`: what it sends then is the
misbehaviour a test checks the parent against. Node code `ok` runs honestly.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import signal
import struct
import sys
import time

HEADER = struct.Struct("!I")
MIB = 1024 * 1024


def send(message: dict) -> None:
    payload = json.dumps(message).encode("ascii")
    send_raw(HEADER.pack(len(payload)) + payload)


def send_raw(data: bytes) -> None:
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(1, view):]
    except OSError:  # the parent killed us or closed the pipe
        os._exit(0)


def read_exact(size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = os.read(0, size - len(data))
        if not chunk:
            os._exit(0)
        data += chunk
    return data


def recv() -> dict:
    (size,) = HEADER.unpack(read_exact(HEADER.size))
    return pickle.loads(read_exact(size))


def sleep_forever() -> None:
    while True:
        time.sleep(60)


def flood_out(megabytes: int) -> None:
    """Printed output far beyond any cap, one 1 MiB frame at a time."""
    chunk = "x" * MIB
    for _ in range(megabytes):
        send({"t": "out", "out": chunk})
    send({"t": "ran", "out": ""})
    send({"t": "outcome", "status": "completed"})


def one_huge_out(megabytes: int) -> None:
    """One `out` frame of this many MiB (under the parent's frame limit for snapshots)."""
    send({"t": "out", "out": "y" * (megabytes * MIB)})
    sleep_forever()


def ran_then_drip() -> None:
    """The code 'ended'; then a little output every 0.2 s, never the outcome."""
    send({"t": "ran", "out": ""})
    while True:
        time.sleep(0.2)
        send({"t": "out", "out": "."})


def ran_then_silence() -> None:
    send({"t": "ran", "out": ""})
    sleep_forever()


def two_ran() -> None:
    send({"t": "ran", "out": ""})
    send({"t": "ran", "out": ""})
    send({"t": "outcome", "status": "completed"})


def action_without_action() -> None:
    send({"t": "action", "line": 1, "out": ""})
    if recv().get("op") == "answer":
        send({"t": "ran", "out": ""})
        send({"t": "outcome", "status": "completed"})
    sleep_forever()


def huge_summaries(namespace: dict) -> None:
    """An outcome whose new variable has a 24 MiB type and summary and whose error is 24 MiB: each node anew."""
    name = f"v{len(namespace)}"
    namespace[name] = 1
    send({"t": "ran", "out": ""})
    send({"t": "outcome", "status": "error", "error": "e" * (24 * MIB), "stub_name": "s" * MIB,
          "changes": [[name, "t" * (24 * MIB), "s" * (24 * MIB), "new"]], "snapshot": snapshot(namespace)})


def many_variables(namespace: dict) -> None:
    """An outcome that reports 20,001 variables."""
    for i in range(20_001):
        namespace[f"w{i}"] = i
    send({"t": "ran", "out": ""})
    send({"t": "outcome", "status": "completed", "snapshot": snapshot(namespace),
          "changes": [[name, "int", "1", "new"] for name in namespace]})


def huge_action() -> None:
    """A `run()` of an 8 MiB action, then an honest end."""
    send({"t": "action", "action": "go to " + "x" * (8 * MIB), "line": 1, "out": ""})
    recv()
    send({"t": "ran", "out": ""})
    send({"t": "outcome", "status": "completed"})


def call_flood() -> None:
    """Helper calls of 15 MiB each, 40 of them: 600 MiB for one node, each frame under the running limit."""
    for _ in range(40):
        send({"t": "call", "name": "nothing", "args": ["c" * (15 * MIB)], "out": ""})
        recv()
    send({"t": "ran", "out": ""})
    send({"t": "outcome", "status": "completed"})


def hang_then_fail_restore(workdir: str) -> None:
    """Hang until the parent kills this worker; the next one dies when asked to restore the variables."""
    with open(os.path.join(workdir, "fail-restore"), "w") as marker:
        marker.write("yes")
    sleep_forever()


MISCHIEF = {
    "flood out 300": lambda workdir: flood_out(300),
    "one huge out 150": lambda workdir: one_huge_out(150),
    "ran then drip": lambda workdir: ran_then_drip(),
    "ran then silence": lambda workdir: ran_then_silence(),
    "two ran": lambda workdir: two_ran(),
    "action without action": lambda workdir: action_without_action(),
    "hang then fail restore": hang_then_fail_restore,
    "call flood": lambda workdir: call_flood(),
    "huge action": lambda workdir: huge_action(),
}
# Mischief that changes the namespace this worker reports.
NAMESPACE_MISCHIEF = {"huge summaries": huge_summaries, "many variables": many_variables}
FORGED_LINE = "- x (str): " + "z" * MIB  # what this worker answers to a `lines` request, 16 times


def snapshot(values: dict) -> dict:
    blobs = {name: base64.b64encode(pickle.dumps(value)).decode("ascii") for name, value in values.items()}
    return {"order": list(values), "blobs": blobs, "unsaved": [], "imports": []}


def main() -> None:
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)  # the parent's "send what you printed": ignored
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    config = json.loads(sys.argv[-1])
    workdir = str(config.get("workdir") or ".")
    send({"t": "ready", "pid": os.getpid(), "isolation": []})
    namespace: dict = {}
    while True:
        request = recv()
        op = request.get("op")
        if op == "shutdown":
            return
        if op == "exec":
            if request["code"].strip() in NAMESPACE_MISCHIEF:
                NAMESPACE_MISCHIEF[request["code"].strip()](namespace)
                continue
            mischief = MISCHIEF.get(request["code"].strip())
            if mischief is not None:
                mischief(workdir)
                continue
            send({"t": "ran", "out": ""})
            send({"t": "outcome", "status": "completed", "changes": [], "snapshot": snapshot(namespace)})
        elif op == "set":
            namespace.update(request["values"])
            changes = [[name, "str", repr(value), "new"] for name, value in request["values"].items()]
            send({"t": "done", "changes": changes, "snapshot": snapshot(namespace)})
        elif op == "restore":
            if os.path.exists(os.path.join(workdir, "fail-restore")):
                os._exit(3)
            items = [[name, "str", repr(pickle.loads(blob))] for name, blob in request["items"]]
            send({"t": "restored", "items": items, "lost": []})
        elif op == "lines":
            send({"t": "lines", "lines": [FORGED_LINE] * 16})
        elif op in ("answer", "reply", "interrupt"):
            continue
        else:
            send({"t": "fail", "error": f"the forged worker does not serve {op!r}"})


if __name__ == "__main__":
    main()
