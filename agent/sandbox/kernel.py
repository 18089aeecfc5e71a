"""The two kernel walls the worker raises on itself once booted: Landlock and a seccomp filter.

Both are applied after the worker has imported everything it needs and before
it reads its first request, so node code only ever runs behind them; both are
inherited by anything the worker could start and can never be lifted. The
seccomp program arrives compiled (the parent builds it with libseccomp,
`agent.sandbox.seccomp_policy`): the worker only hands its bytes to the
kernel, so it needs no library. Landlock is three system calls; no maintained
binding covers its network rules and signal scoping, so they are called here
through ctypes, each checked.
"""

from __future__ import annotations

import ctypes
import os
import sys

_SYS_LANDLOCK_CREATE_RULESET = 444  # the same number on every architecture Linux has
_SYS_LANDLOCK_ADD_RULE = 445
_SYS_LANDLOCK_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

# File-system rights by the ABI that introduced them.
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_V1 = (1 << 13) - 1  # execute ... make_sym
_FS_REFER, _FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_FILE_ONLY = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1


class WallError(OSError):
    """A kernel wall could not be raised; the worker refuses to run node code without it."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 where Landlock is missing or disabled."""
    if not sys.platform.startswith("linux"):
        return 0
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(version), 0)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _handled_fs(abi: int) -> int:
    rights = _FS_V1
    if abi >= 2:
        rights |= _FS_REFER
    if abi >= 3:
        rights |= _FS_TRUNCATE
    if abi >= 5:
        rights |= _FS_IOCTL_DEV
    return rights


def _check(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise WallError(errno, f"landlock: {what}: {os.strerror(errno)}")
    return result


def restrict_files(read: list[str], write: list[str]) -> str:
    """Allow reading only under `read`, reading and writing only under `write`; no exec, no TCP, no signals out.

    Returns what was applied ("landlock ABI 7: files, tcp, signals"). Paths that do not
    exist are skipped (a library folder one system has and another not).
    """
    abi = landlock_abi()
    if abi < 1:
        raise WallError(0, "landlock: not available in this kernel")
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    handled = _handled_fs(abi)
    attr = _RulesetAttr(handled_access_fs=handled)
    size = 8
    covered = ["files"]
    if abi >= 4:
        attr.handled_access_net = _NET_BIND_TCP | _NET_CONNECT_TCP
        size, covered = 16, covered + ["tcp"]
    if abi >= 6:
        attr.scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL
        size, covered = 24, covered + ["signals"]
    ruleset = _check(libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                                  ctypes.c_uint32(0)), "create a ruleset")
    try:
        # No execute right anywhere: the worker runs no program, its own interpreter included
        # (mapping the shared libraries it loads is not execve and needs no right).
        reading = _FS_READ_FILE | _FS_READ_DIR
        for paths, rights in ((read, reading), (write, handled & ~_FS_EXECUTE)):
            for path in paths:
                _allow(libc, ruleset, path, rights & handled)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise WallError(ctypes.get_errno(), "no_new_privs could not be set")
        _check(libc.syscall(_SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)),
               "restrict the worker")
    finally:
        os.close(ruleset)
    return f"landlock ABI {abi}: {', '.join(covered)}"


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            rights &= _FILE_ONLY
        rule = _PathBeneath(allowed_access=rights, parent_fd=fd)
        _check(libc.syscall(_SYS_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH),
                            ctypes.byref(rule), ctypes.c_uint32(0)), f"allow {path}")
    finally:
        os.close(fd)


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def load_seccomp(program: bytes) -> str:
    """Install a compiled seccomp-BPF program on this process (no_new_privs first, as the kernel requires)."""
    if not program or len(program) % ctypes.sizeof(_SockFilter):
        raise WallError(0, "seccomp: the filter program is malformed")
    count = len(program) // ctypes.sizeof(_SockFilter)
    instructions = (_SockFilter * count).from_buffer_copy(program)
    fprog = _SockFprog(len=count, filter=ctypes.cast(instructions, ctypes.POINTER(_SockFilter)))
    libc = _libc()
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise WallError(ctypes.get_errno(), "seccomp: no_new_privs could not be set")
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        errno = ctypes.get_errno()
        raise WallError(errno, f"seccomp: the filter was refused: {os.strerror(errno)}")
    return "seccomp"
