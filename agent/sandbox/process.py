"""The sandbox worker as a process seen from the parent: start it, frame messages to and from it, signal it, kill it.

Kept apart from `SandboxRunner`, which decides what to ask and when (node
time, interrupts, restarts); this module knows only pipes, process groups
and frames. A frame of the wrong size or shape, or a dead process, is
`WorkerGone` with the reason, never another exception in the parent.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
import weakref
from pathlib import Path
from typing import Any, Callable

from agent.runtime.tempdirs import owned_tempdir
from agent.sandbox import bwrap
from agent.sandbox.isolation import worker_ids
from agent.sandbox.memory_cgroup import enter_command
from agent.sandbox.protocol import FRAME_BYTES, HEADER, MAX_FRAME, MAX_READY_FRAME, decode_reply, encode_request
from agent.sandbox.seeds import WORKER_HASH_SEED

_ROOT = str(Path(__file__).resolve().parents[2])
# `-c` puts the current folder first on the path; the worker imports only from the project and the standard library.
_BOOT = (
    "import sys; sys.path[:] = [sys.argv[1]] + [p for p in sys.path if p]; "
    "from agent.sandbox.boot import main; main(sys.argv[2])"
)
# Not `-I`: it implies `-E`, which would ignore the fixed PYTHONHASHSEED below. The environment is the
# parent's choice alone (`worker_environment`), so no PYTHON* variable of the user's reaches the worker.
INTERPRETER_FLAGS = ("-s", "-S")

_PASSED_ENVIRONMENT = ("PATH", "HOME", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR")
WORKDIR_PREFIX = "recode-worker-"  # + the parent's pid: a killed parent's folder is removed by the next
START_TIMEOUT = 15.0

KillReason = Callable[[], str]  # why the parent killed the worker ('' when it did not), asked when it died


def _NO_REASON() -> str:
    return ""


class WorkerGone(Exception):
    """The worker died, stopped answering or sent a frame that is not a message."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def worker_environment() -> dict[str, str]:
    """The worker's environment: a few harmless variables and a fixed hash seed; API keys and the like stay in the parent.

    PYTHONSAFEPATH (3.11+) keeps the current folder off the path, as `-I` did.
    """
    environment = {k: os.environ[k] for k in _PASSED_ENVIRONMENT if k in os.environ}
    environment.update(PYTHONHASHSEED=WORKER_HASH_SEED, PYTHONSAFEPATH="1")
    return environment


def make_workdir() -> str:
    """A private, empty working directory for the worker, owned by the user it runs as."""
    workdir = owned_tempdir(WORKDIR_PREFIX)
    ids = worker_ids()
    if ids is not None:
        os.chown(workdir, *ids)
    return workdir


def remove_workdir(workdir: str) -> None:
    shutil.rmtree(workdir, ignore_errors=True)


class PrivateFolder:
    """A worker's working directory outside namespaces: made at its first start, removed with its runner."""

    def __init__(self) -> None:
        self.path: str | None = None

    def make(self) -> str:
        if self.path is None or not os.path.isdir(self.path):
            self.path = make_workdir()
            # Removed by remove(); this covers a runner dropped without closing, at collection or exit.
            weakref.finalize(self, remove_workdir, self.path)
        return self.path

    def remove(self) -> None:
        if self.path is not None:
            remove_workdir(self.path)
            self.path = None


class Started:
    """A worker process just started: the process the parent reads, and the pid its signals go to."""

    def __init__(self, proc: asyncio.subprocess.Process, stderr_fd: int | None, info_fd: int | None) -> None:
        self.proc = proc
        self.signal_pid = proc.pid  # inside namespaces: the worker under bwrap, found at the handshake
        self.isolation: tuple[str, ...] = ()  # what the worker applied, from its `ready`
        self._stderr_fd = stderr_fd
        self._info_fd = info_fd

    def take_signal_pid(self) -> None:
        """Inside namespaces, find the worker's own pid (bwrap's info names the sandbox's init, its parent)."""
        if self._info_fd is None:
            return
        info = _read_available(self._info_fd)
        try:
            init_pid = int(json.loads(info.decode("utf-8", "replace") or "{}").get("child-pid", 0))
        except (ValueError, AttributeError):
            init_pid = 0
        pid = bwrap.worker_pid(init_pid) if init_pid > 0 else None
        if pid is not None:
            self.signal_pid = pid

    def stderr_text(self) -> str:
        """What the worker or bwrap wrote to standard error before the handshake (why it did not start)."""
        if self._stderr_fd is None:
            return ""
        text = _read_available(self._stderr_fd).decode("utf-8", "replace").strip()
        return text.splitlines()[-1][:300] if text else ""

    def close_pipes(self) -> None:
        """After the handshake nothing more is read from these: a worker writing to stderr gets EPIPE."""
        for fd in (self._stderr_fd, self._info_fd):
            if fd is not None:
                os.close(fd)
        self._stderr_fd = self._info_fd = None


def _read_available(fd: int) -> bytes:
    os.set_blocking(fd, False)
    chunks: list[bytes] = []
    try:
        while sum(map(len, chunks)) < 65536:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            chunks.append(chunk)
    except BlockingIOError:
        pass
    return b"".join(chunks)


async def spawn(python: str, config: dict[str, Any], *, debug_stderr: bool, namespaces: bool = False,
                cgroup: str = "") -> Started:
    """Start a worker in its own process group (killed as a whole); inside bwrap's namespaces when asked,
    and inside `cgroup` (its memory budget, `memory_cgroup`) when there is one."""
    worker_args = [*INTERPRETER_FLAGS, "-c", _BOOT, bwrap.SANDBOX_ROOT if namespaces else _ROOT, json.dumps(config)]
    stderr_read, stderr_write = (None, None) if debug_stderr else os.pipe()
    info_read, info_write = os.pipe() if namespaces else (None, None)
    argv = bwrap.command(python, worker_args, info_write) if info_write is not None else [python, *worker_args]
    if cgroup:
        argv = enter_command(cgroup, argv)
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=None if debug_stderr else stderr_write,
            env=worker_environment(),
            start_new_session=True,
            pass_fds=() if info_write is None else (info_write,),
        )
    except BaseException:
        for fd in (stderr_read, info_read):
            if fd is not None:
                os.close(fd)
        raise
    finally:
        for fd in (stderr_write, info_write):
            if fd is not None:
                os.close(fd)
    return Started(proc, stderr_read, info_read)


async def start(python: str, config: dict[str, Any], namespaces: bool, debug_stderr: bool,
                kill_reason: KillReason = _NO_REASON, cgroup: str = "") -> Started:
    """Spawn a worker and wait for its `ready`; WorkerGone with what it (or bwrap) said if it does not come."""
    started = await spawn(python, config, debug_stderr=debug_stderr, namespaces=namespaces, cgroup=cgroup)
    try:
        started.isolation = await handshake(started.proc, kill_reason)
    except WorkerGone as gone:
        said = started.stderr_text()
        raise WorkerGone(f"{gone.reason}: {said}" if said else gone.reason) from None
    finally:
        started.take_signal_pid()
        started.close_pipes()
    return started


async def handshake(proc: asyncio.subprocess.Process, kill_reason: KillReason = _NO_REASON) -> tuple[str, ...]:
    """Wait for a new worker's `ready`: the isolation it applied. Else kill it, WorkerGone with the reason."""
    try:
        ready = await read(proc, START_TIMEOUT, kill_reason, MAX_READY_FRAME)
    except (asyncio.TimeoutError, WorkerGone) as exc:
        killpg(proc.pid)
        raise WorkerGone(f"the sandbox worker did not start: {exc}") from None
    if ready.get("t") != "ready":
        killpg(proc.pid)
        raise WorkerGone("the sandbox worker did not start")
    return tuple(ready.get("isolation", ()))


def killpg(pid: int) -> None:
    """Kill the worker and anything it started (trusted code may spawn processes)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def hold(pid: int, held: bool) -> None:
    """Stop (`held`) or continue the worker: a stopped worker uses no CPU, whatever its code left running.

    The worker alone (under bwrap: not bwrap, which must still see it die and exit).
    """
    try:
        os.kill(pid, signal.SIGSTOP if held else signal.SIGCONT)
    except (ProcessLookupError, PermissionError):
        pass


def send_signal(proc: asyncio.subprocess.Process | None, signum: int, pid: int = 0) -> bool:
    """Signal a live worker (at `pid` when it is not the process started: under bwrap); False when there is none."""
    if proc is None or proc.returncode is not None:
        return False
    try:
        os.kill(pid or proc.pid, signum)
    except ProcessLookupError:
        return False
    return True


def write(proc: asyncio.subprocess.Process | None, message: dict[str, Any]) -> None:
    """Queue a request; a dead worker is noticed by the next read."""
    if proc is None or proc.stdin is None or proc.returncode is not None:
        return
    try:
        proc.stdin.write(encode_request(message))
    except (ConnectionError, RuntimeError):
        pass


async def drain(proc: asyncio.subprocess.Process | None) -> None:
    if proc is not None and proc.stdin is not None:
        try:
            await proc.stdin.drain()
        except ConnectionError:
            pass


async def read(
    proc: asyncio.subprocess.Process | None,
    timeout: float,
    kill_reason: KillReason = _NO_REASON,
    max_size: int = MAX_FRAME,
) -> dict[str, Any]:
    """The worker's next message; asyncio.TimeoutError after `timeout`, WorkerGone if it cannot come.

    `max_size`: the largest frame the caller expects now (a running node's frames
    carry no snapshot); a larger one is refused from its header, before its bytes
    are read, so the parent never holds more than that of one frame.
    `kill_reason()` says why the parent killed the worker, if it did (asked once
    the worker is dead, so a kill while reading counts): the reason a frame cut
    short then gives.
    """
    if proc is None or proc.stdout is None:
        raise WorkerGone("the worker is not running")
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(timeout):  # no extra task per frame, unlike wait_for: two actions a node
            return await _read_frame(proc, kill_reason, max_size)
    return await asyncio.wait_for(_read_frame(proc, kill_reason, max_size), timeout)  # 3.10: no asyncio.timeout


async def _read_frame(proc: asyncio.subprocess.Process, kill_reason: KillReason, max_size: int) -> dict[str, Any]:
    assert proc.stdout is not None
    try:
        header = await proc.stdout.readexactly(HEADER.size)
        (size,) = HEADER.unpack(header)
        if size > min(max_size, MAX_FRAME):
            raise WorkerGone(f"worker sent an oversized message ({size} bytes where at most "
                             f"{min(max_size, MAX_FRAME)} may come)")
        payload = await proc.stdout.readexactly(size)
        message = decode_reply(payload)
        message[FRAME_BYTES] = size  # counted against the node's total (`node_frames`)
        return message
    except asyncio.IncompleteReadError:
        raise WorkerGone(await death_reason(proc, kill_reason)) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise WorkerGone(f"worker sent a malformed message ({_short(exc)})") from None


def _short(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:200]


async def death_reason(proc: asyncio.subprocess.Process, kill_reason: KillReason = _NO_REASON) -> str:
    try:
        code = await asyncio.wait_for(proc.wait(), timeout=2.0)
    except asyncio.TimeoutError:
        return "worker stopped answering"
    if kill_reason():
        return kill_reason()
    if code < 0:
        sig = -code
        if sig == signal.SIGXCPU:
            return "CPU limit"
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        return f"worker crashed ({name})"
    return f"worker exited (status {code})"


async def shut_down(proc: asyncio.subprocess.Process, ask: bool = True) -> None:
    """Ask the worker to exit (`ask`), give it a moment, then kill its process group.

    A worker that was stopped between nodes is killed without asking: it runs no node, its namespace
    is thrown away, and once stopped and continued under bubblewrap it took the whole moment to exit."""
    if ask and proc.returncode is None:
        try:
            assert proc.stdin is not None
            proc.stdin.write(encode_request({"op": "shutdown"}))
            proc.stdin.close()
        except (ConnectionError, RuntimeError):
            pass
        try:
            await asyncio.wait_for(proc.wait(), timeout=0.5)
        except asyncio.TimeoutError:
            pass
    killpg(proc.pid)
    await proc.wait()
