"""SysV shared memory and message queues switched off in the worker's own IPC namespace, where the parent may.

The worker's IPC namespace (bubblewrap's) starts with the kernel's defaults:
shared memory segments up to all of memory, which `RLIMIT_AS` stops counting
once detached. The seccomp filter refuses the calls; this is the namespace's
own budget under it, for a worker behind the namespaces alone. Its limits can
be written only by real root (bubblewrap maps no root inside), from inside the
namespace: `nsenter` does that before the worker's first node. For an ordinary
user the filter alone refuses the calls.
"""

from __future__ import annotations

import asyncio
import os
import shutil

# Each file under /proc/sys/kernel and its value inside the worker's IPC namespace: no SysV segment, no queue.
LIMITS = (("shmall", 0), ("shmmni", 0), ("msgmni", 0))
_SCRIPT = " && ".join(f"echo {value} > /proc/sys/kernel/{name}" for name, value in LIMITS)


def _own_namespace(pid: int) -> bool:
    """Whether `pid` is in an IPC namespace other than this process's (never the host's limits)."""
    try:
        return os.readlink(f"/proc/{pid}/ns/ipc") != os.readlink("/proc/self/ns/ipc")
    except OSError:
        return False


async def close_shared_memory(worker_pid: int) -> str:
    """Set `LIMITS` in `worker_pid`'s IPC namespace; what was applied ('' where the parent is not root)."""
    nsenter = shutil.which("nsenter")
    if os.geteuid() != 0 or nsenter is None or worker_pid <= 0 or not _own_namespace(worker_pid):
        return ""
    try:
        proc = await asyncio.create_subprocess_exec(
            nsenter, f"--ipc=/proc/{worker_pid}/ns/ipc", "/bin/sh", "-c", _SCRIPT,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        code = await proc.wait()
    except OSError:
        return ""
    return "ipc namespace: " + ", ".join(f"{name} {value}" for name, value in LIMITS) if code == 0 else ""
