"""Give the worker less than the parent (layer 4), before any node code runs.

What each platform gets (docs/sandbox.md says the same):
- always: an environment without the parent's variables (the runner passes
  only PATH, HOME, LANG, ...), a private temporary working directory,
  `PR_SET_NO_NEW_PRIVS` (Linux), `RLIMIT_NPROC` 0 so the worker cannot start a
  process or a thread, and no core dumps;
- started as root: a new network namespace (no network at all) and the
  worker drops to the unprivileged user `nobody` (no supplementary groups), so
  an escape can read neither the parent's files nor `/proc/<parent>/environ`;
- not root: a new user and network namespace where the kernel allows
  unprivileged ones; the parent makes itself non-dumpable (`parent_guard`), so
  a worker of the same user cannot read its memory or `/proc/<parent>/environ`
  (ssh-agent does the same for its keys). Signals to the parent's processes stay
  possible for the same user; only the audit hook and the static checks stop them.
"""

from __future__ import annotations

import os
import resource
import signal
import sys

_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_PR_SET_DUMPABLE = 4
_PR_GET_DUMPABLE = 3
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_PDEATHSIG = 1
UNPRIVILEGED_USER = "nobody"


def worker_ids() -> tuple[int, int] | None:
    """The (uid, gid) a worker started by root runs as; None when the parent is not root."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:  # dynamic: os has no geteuid off POSIX
        return None
    try:
        import pwd

        entry = pwd.getpwnam(UNPRIVILEGED_USER)
        return entry.pw_uid, entry.pw_gid
    except (ImportError, KeyError):
        return 65534, 65534


def _libc():
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def die_with_parent() -> None:
    """Be killed when the parent dies, as bwrap's `--die-with-parent` does inside namespaces.

    The parent stops its worker while it has the turn: a worker outside namespaces whose
    parent crashed then would otherwise stay, stopped, forever.
    """
    libc = _libc()
    if libc is None:
        return
    parent = os.getppid()
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the request took hold
        os._exit(1)


def parent_guard() -> bool:
    """Make the parent non-dumpable (Linux): a same-user process cannot read its memory or environ."""
    if os.environ.get("RECODE_TUI_DUMPABLE") == "1":  # a developer attaching a debugger to the parent
        return False
    libc = _libc()
    if libc is None:
        return False
    return libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0


def parent_is_dumpable() -> bool | None:
    libc = _libc()
    return None if libc is None else bool(libc.prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0))


def isolate(workdir: str | None, *, own_namespaces: bool = False, fallback: bool = True) -> list[str]:
    """Apply every restriction this platform allows; returns their names for the parent to report.

    `own_namespaces`: the worker already runs in bwrap's namespaces (as uid 65534),
    so it neither unshares nor changes user here. `fallback`: without them, unshare
    the network (and the user where unprivileged) and, started by root, become `nobody`.
    """
    applied: list[str] = []
    libc = _libc()
    ids = worker_ids() if fallback and not own_namespaces else None
    if own_namespaces:
        applied.append("namespaces: user, mount, pid, network, ipc, uts")
    elif libc is not None and fallback:
        flags = _CLONE_NEWNET if ids is not None else _CLONE_NEWUSER | _CLONE_NEWNET
        if libc.unshare(flags) == 0:
            applied.append("network namespace")
    if workdir:
        os.chdir(workdir)
        applied.append("private working directory")
    if ids is not None:
        uid, gid = ids
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        applied.append(f"user {uid}")
    if libc is not None and libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0:
        applied.append("no new privileges")
    try:
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
        applied.append("no new processes")
    except (ValueError, OSError, AttributeError):
        pass
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return applied
