"""Turning a fresh process into the sandbox worker: private descriptors, signals, limits, isolation, then the guards.

Kept apart from the worker's request loop because the order matters and is
the security property: everything node code may use is imported and the
shared classes are frozen before the audit hook is installed, and the hook
is installed before the first request is read. `SandboxRunner` starts the
worker with `python -I -S -c "from agent.sandbox.boot import main; ..."`.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from typing import Any

from agent.sandbox.audit import audit_hook, freeze_shared_classes, remove_unaudited_calls, shared_objects
from agent.sandbox.isolation import die_with_parent, isolate
from agent.sandbox.kernel import WallError, load_seccomp, restrict_files
from agent.sandbox.limits import set_kernel_budgets, set_memory_limit
from agent.sandbox.worker import Worker


class _Null:
    """`sys.stdout` of the worker: stray writes go nowhere (descriptor 1 is /dev/null too)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def raise_walls(config: dict[str, Any]) -> list[str]:
    """Landlock, then the seccomp filter (last: it refuses calls the steps before it make)."""
    applied: list[str] = []
    landlock = config.get("landlock")
    if landlock:
        applied.append(restrict_files(list(landlock["read"]), list(landlock["write"])))
    program = config.get("seccomp")
    if program:
        applied.append(load_seccomp(bytes.fromhex(program)))
    return applied


def main(config_text: str = "{}") -> None:
    config = json.loads(config_text)
    die_with_parent()
    # The protocol moves to private descriptors; 0 and 1 become /dev/null so
    # stray writes from node code can never corrupt a frame.
    rfd, wfd = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)

    sys.stdout = _Null()
    sys.stdin = None  # node code reads nothing
    sys.setrecursionlimit(int(config.get("recursion_limit", 1000)))

    worker = Worker(config, rfd, wfd)
    state = worker.state

    def on_sigint(signum: int, frame: Any) -> None:
        if state.in_node:
            state.interrupt_requested = True
        if state.in_user:
            raise KeyboardInterrupt("interrupted")

    signal.signal(signal.SIGINT, on_sigint)
    signal.signal(signal.SIGUSR1, lambda signum, frame: worker.flush_output())
    set_memory_limit(config)
    # Trusted code (`--trusted`) keeps the user's rights: it may write files, start processes.
    # With the Python-level layers off (RECODE_SANDBOX_LAYERS=os) the worker is isolated all the same.
    isolation: list[str] = []
    if config.get("isolate", not worker.trusted):
        isolation = isolate(config.get("workdir"), own_namespaces=bool(config.get("namespaces")),
                            fallback=bool(config.get("fallback_isolation", True)))
        isolation += set_kernel_budgets()
        try:
            isolation += raise_walls(config)
        except WallError as exc:  # never run node code behind fewer walls than the parent asked for
            os.write(2, f"{exc.strerror or exc}\n".encode())
            os._exit(3)
    if not worker.trusted:
        freeze_shared_classes(worker.modules.values())
        if worker.audit_hook:
            remove_unaudited_calls()
            shared, keep = shared_objects(worker.modules.values())
            worker.shared_objects = keep  # alive as long as the hook compares their ids
            sys.addaudithook(audit_hook(state, shared))
    worker.loop(isolation)
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "{}")
