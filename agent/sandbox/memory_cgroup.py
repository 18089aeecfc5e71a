"""The worker's memory under a cgroup v2 `memory.max` where this machine allows it, chosen at run time.

`RLIMIT_AS` counts what a process maps, not the shared memory it leaves
behind (tmpfs pages, memfd, SysV segments once detached); a cgroup counts
every page charged to its processes, shared memory included. It holds where
this process's cgroup (cgroup v2) has the memory controller and can hand it
to children: the root cgroup, or a cgroup delegated to the user (for
example `systemd-run --user --scope -p Delegate=yes recode-tui ...`), where
this process first moves itself into a leaf of its own, as delegation
requires. Each worker then starts in a child cgroup of its own, made before
it runs and removed after. Where none of that is possible (cgroup v1, no
delegation, other processes in the same cgroup), the seccomp filter's
refusals and the resource limits are the budget; `memory_budget()` says which
holds and why, in one line, for `recode-tui sandbox`.
"""

from __future__ import annotations

import functools
import itertools
import os
from dataclasses import dataclass

WORKER_PREFIX = "recode-worker-"  # + this process's pid + a count
PARENT_LEAF = "recode-tui"  # where this process moves itself inside a delegated cgroup
_count = itertools.count(1)
_leftover: set[str] = set()  # worker cgroups whose removal found processes still in them


@dataclass(frozen=True)
class MemoryBudget:
    """Which budget keeps the worker's memory on this machine."""

    home: str  # the cgroup folder worker cgroups are made in ('' when no cgroup holds)
    why_not: str  # why no cgroup holds ('' when one does)

    @property
    def cgroup(self) -> bool:
        return bool(self.home)

    def describe(self) -> str:
        """The one line `recode-tui sandbox` prints: which budget holds."""
        if self.cgroup:
            return "memory budget: a cgroup v2 memory.max a worker, shared memory counted"
        return "memory budget: RLIMIT_AS and RLIMIT_FSIZE; memfd, SysV shm, mqueues refused"


def _cgroup2_mount() -> str:
    try:
        with open("/proc/self/mountinfo") as mounts:
            for line in mounts:
                left, _, right = line.partition(" - ")
                if right.split()[:1] == ["cgroup2"]:
                    return left.split()[4]
    except OSError:
        pass
    return ""


def _own_cgroup(mount: str) -> str:
    try:
        with open("/proc/self/cgroup") as groups:
            for line in groups:
                if line.startswith("0::"):
                    return os.path.join(mount, line[3:].strip().lstrip("/"))
    except OSError:
        pass
    return ""


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _delegate_memory(own: str) -> str:
    """Give `own`'s children the memory controller; '' when done, else why not (nothing is left changed)."""
    if "memory" in _read(os.path.join(own, "cgroup.subtree_control")).split():
        return ""
    try:
        _write(os.path.join(own, "cgroup.subtree_control"), "+memory")
        return ""
    except OSError:
        pass  # processes in `own` itself: a cgroup with processes cannot have controlled children
    others = [pid for pid in _read(os.path.join(own, "cgroup.procs")).split() if pid != str(os.getpid())]
    if others:
        return f"other processes share this process's cgroup {own}"
    leaf = os.path.join(own, PARENT_LEAF)
    try:
        os.makedirs(leaf, exist_ok=True)
        _write(os.path.join(leaf, "cgroup.procs"), str(os.getpid()))
    except OSError as exc:
        return f"cgroup {own} is not delegated to this user: {exc.strerror}"
    try:
        _write(os.path.join(own, "cgroup.subtree_control"), "+memory")
        return ""
    except OSError as exc:
        try:
            _write(os.path.join(own, "cgroup.procs"), str(os.getpid()))
            os.rmdir(leaf)
        except OSError:
            pass
        return f"cgroup {own} cannot hand the memory controller to children: {exc.strerror}"


@functools.lru_cache(maxsize=1)
def memory_budget() -> MemoryBudget:
    """Find out, once, whether workers can get a cgroup of their own with `memory.max`."""
    mount = _cgroup2_mount()
    if not mount:
        return MemoryBudget("", "no cgroup v2 hierarchy is mounted")
    own = _own_cgroup(mount)
    if not own or not os.path.isdir(own):
        return MemoryBudget("", "this process's cgroup v2 is not visible")
    if "memory" not in _read(os.path.join(own, "cgroup.controllers")).split():
        return MemoryBudget("", "cgroup v2 has no memory controller here: cgroup v1 holds it, or it is not delegated")
    why = _delegate_memory(own)
    return MemoryBudget("" if why else own, why)


def make_worker_cgroup(limit_bytes: int) -> str:
    """A fresh cgroup for one worker with `memory.max` set (swap off); '' where no cgroup holds or it fails."""
    budget = memory_budget()
    if not budget.cgroup:
        return ""
    sweep()
    path = os.path.join(budget.home, f"{WORKER_PREFIX}{os.getpid()}-{next(_count)}")
    try:
        os.mkdir(path)
        _write(os.path.join(path, "memory.max"), str(limit_bytes))
        for name, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
            if os.path.exists(os.path.join(path, name)):
                _write(os.path.join(path, name), value)
    except OSError:
        remove_worker_cgroup(path)
        return ""
    return path


def enter_command(cgroup: str, argv: list[str]) -> list[str]:
    """`argv` started inside `cgroup`: a shell writes its own pid there, then becomes `argv` (same pid)."""
    return ["/bin/sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup, *argv]


def remove_worker_cgroup(path: str) -> None:
    """Remove a worker's cgroup once its processes are gone (one still busy is removed by a later sweep)."""
    if not path:
        return
    try:
        os.rmdir(path)
        _leftover.discard(path)
    except FileNotFoundError:
        _leftover.discard(path)
    except OSError:
        _leftover.add(path)


def sweep() -> None:
    """Remove the worker cgroups left busy when their worker ended (its last processes were still going)."""
    for path in list(_leftover):
        remove_worker_cgroup(path)
