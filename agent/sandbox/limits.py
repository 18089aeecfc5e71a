"""The resource limits the sandbox worker sets on itself: its memory and kernel budgets (once, at start) and a CPU backstop (before each piece of user code).

Kept apart from the request loop: these are the only `setrlimit` calls the
worker makes, and the CPU one is made while node code may already hold the
worker's attention, so it passes the audit hook as the worker's own call.
"""

from __future__ import annotations

import resource
from typing import Any

from agent.sandbox.audit import HookState
from agent.sandbox.budgets import FILE_BYTES, SIGNALS_QUEUED


def set_memory_limit(config: dict[str, Any]) -> None:
    """RLIMIT_AS from the runner's `memory_mb` (none when it is not set)."""
    memory_mb = config.get("memory_mb")
    if memory_mb:
        limit = int(memory_mb) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def set_kernel_budgets() -> list[str]:
    """The files the worker writes and the signals queued to it, bounded (an isolated worker's, not trusted code's).

    Returns what was applied, for the parent's report.
    """
    applied: list[str] = []
    for limit, value, what in ((resource.RLIMIT_FSIZE, FILE_BYTES, f"files {FILE_BYTES // 2**20} MiB"),
                               (resource.RLIMIT_SIGPENDING, SIGNALS_QUEUED, f"queued signals {SIGNALS_QUEUED}")):
        try:
            _, hard = resource.getrlimit(limit)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(limit, (value, value))
            applied.append(what)
        except (ValueError, OSError):
            pass
    return applied


def cpu_backstop(state: HookState, cpu_seconds: float) -> None:
    """Let the process use `cpu_seconds` more CPU time, then SIGXCPU: a backstop for the parent's wall clock."""
    try:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        soft = int(usage.ru_utime + usage.ru_stime + cpu_seconds) + 1
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        state.own(resource.setrlimit, resource.RLIMIT_CPU, (soft, hard))
    except (ValueError, OSError):
        pass
