"""The worker's namespaces: the bubblewrap command line that starts it in a world of its own.

The worker gets new user, mount, pid, network, IPC and UTS namespaces and a
root file system that holds only what it needs, read-only: the interpreter and
its standard library (installed packages hidden), the system's shared libraries
(`agent.sandbox.interpreter_files`: never all of a distribution's `/usr`) and
the few project modules the worker imports, at `/recode`. Its working
directory `/work` is a private tmpfs of bounded size; `/proc` is its own pid
namespace's; `/dev` holds null, zero, random and the like. It runs as uid 65534
inside; outside, the namespace maps it to the user who started recode-tui, with
no capabilities. bubblewrap is Debian's and unprivileged: it needs user
namespaces, which most distributions allow.
"""

from __future__ import annotations

import functools
import os
import subprocess
from pathlib import Path

from agent.sandbox.budgets import WORKDIR_BYTES
from agent.sandbox.interpreter_files import LIBRARY_LINKS, interpreter_files

SANDBOX_ROOT = "/recode"  # where the worker's project modules appear inside
SANDBOX_WORKDIR = "/work"
SANDBOX_UID = 65534
_PROJECT = Path(__file__).resolve().parents[2]
# The project files the worker imports (agent.sandbox.boot and what it needs); a test checks the list.
WORKER_SOURCES = (
    "agent/__init__.py",
    "agent/__pycache__",
    "agent/runtime/__init__.py",
    "agent/runtime/code.py",
    "agent/runtime/imports.py",
    "agent/runtime/varlist.py",
    "agent/runtime/__pycache__",
    "agent/sandbox",
)
DEVICES_READ = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")


def project_root() -> Path:
    """The checkout the parent runs from (its `agent` package is what the worker imports)."""
    return _PROJECT


def read_paths(python: str) -> list[str]:
    """What the worker may read inside its namespaces (also its Landlock read list there)."""
    return [*interpreter_files(python).bound, SANDBOX_ROOT, *DEVICES_READ]


def binds(python: str) -> list[tuple[str, str]]:
    """Each (outside, inside) pair bound read-only into the worker's root, in mount order."""
    pairs = [(path, path) for path in interpreter_files(python).bound]
    pairs += [(str(_PROJECT / relative), f"{SANDBOX_ROOT}/{relative}") for relative in WORKER_SOURCES
              if (_PROJECT / relative).exists()]
    return pairs


def command(python: str, worker_args: list[str], info_fd: int) -> list[str]:
    """The bwrap command line that runs `python worker_args...` inside the worker's namespaces."""
    python = os.path.realpath(python)
    args = [
        "bwrap",
        "--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
        "--unshare-cgroup-try",
        *(["--disable-userns"] if _supports("--disable-userns") else []),
        "--die-with-parent", "--cap-drop", "ALL",
        "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--hostname", "sandbox",
    ]
    for folder in LIBRARY_LINKS:
        if os.path.islink(folder):  # merged /usr: /lib is a link to usr/lib
            args += ["--symlink", os.readlink(folder), folder]
    for outside, inside in binds(python):
        args += ["--ro-bind", outside, inside]
    for folder in interpreter_files(python).hidden:
        args += ["--tmpfs", folder]  # installed packages (keys in configs, tokens) stay out
    args += [
        "--proc", "/proc", "--dev", "/dev",
        "--size", str(WORKDIR_BYTES), "--perms", "0700", "--tmpfs", SANDBOX_WORKDIR,
        "--chdir", SANDBOX_WORKDIR,
        "--setenv", "HOME", SANDBOX_WORKDIR, "--setenv", "TMPDIR", SANDBOX_WORKDIR,
        "--info-fd", str(info_fd),
        "--", python, *worker_args,
    ]
    return args


@functools.lru_cache(maxsize=None)
def _supports(flag: str) -> bool:
    try:
        text = subprocess.run(["bwrap", "--help"], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return flag in text


def worker_pid(sandbox_init_pid: int) -> int | None:
    """The worker's pid as the parent sees it: the one child of the sandbox's init (bwrap's pid 1)."""
    try:
        children = Path(f"/proc/{sandbox_init_pid}/task/{sandbox_init_pid}/children").read_text().split()
        if children:
            return int(children[0])
    except (OSError, ValueError):
        pass
    for entry in Path("/proc").iterdir():  # kernels without the children file
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 1 and fields[1] == str(sandbox_init_pid):
            return int(entry.name)
    return None
