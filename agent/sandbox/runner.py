"""`SandboxRunner`: the `CodeRunner` that executes node code in a worker process.

The engine process keeps the environment, the LLM and every key; the worker
(`agent.sandbox.worker`) owns the namespace. A `run(action)` in node code is a
request from the worker that `next_message` hands to the engine as an
`ActionRequest`; the code stays blocked until `answer`.

Time: each node gets `node_timeout` seconds of worker time; the clock stops
while the engine holds a request (stepping the environment, sitting at a
breakpoint, serving a helper). On a timeout, a crash (memory, CPU, a signal)
or an interrupt that does not stop the code, the worker's process group is
killed, a fresh worker starts and gets the namespace back from the last
snapshot: pickled bytes made by the old worker, which the engine stores (at
most `MAX_SNAPSHOT_BYTES`) and forwards but never unpickles; the new worker
opens them as plain data only.

A frame from the worker of the wrong shape, or of the wrong type for the
request, is a broken worker: it is killed and replaced, and the node (or the
request) fails with the reason; the runner itself never raises on it.
"""

from __future__ import annotations

import asyncio
import base64
import inspect
import json
import os
import shutil
import signal
import sys
import time
import weakref
from pathlib import Path
from typing import Any, Callable

from agent.runtime.events import VariableChange
from agent.runtime.runner import OUTCOME_STATUSES, ActionRequest, NodeOutcome, RunnerMessage
from agent.runtime.tempdirs import owned_tempdir
from agent.runtime.varlist import VariableSummary
from agent.sandbox.checks import check_code
from agent.sandbox.isolation import engine_guard, worker_ids
from agent.sandbox.protocol import HEADER, MAX_FRAME, MAX_SNAPSHOT_BYTES, decode_reply, encode_request

_ROOT = str(Path(__file__).resolve().parents[2])
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from agent.sandbox.worker import main; main(sys.argv[2])"
)
_IDLE, _RUNNING, _WAITING = "idle", "running", "waiting"
# How long the worker may take to keep and snapshot a node's variables once its
# code ended; not counted in the node's time limit (a large namespace takes a while).
SAVE_TIMEOUT = 60.0


class SandboxError(RuntimeError):
    """A request to the worker failed (a bad condition or binding, a timeout, a crash)."""


class _WorkerGone(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SandboxRunner:
    """A `CodeRunner` executing node code in a separate, limited worker process.

    `trusted=True` skips the static checks, the trimmed builtins and modules and
    the audit hook; the process isolation and the limits stay.
    """

    def __init__(
        self,
        *,
        trusted: bool = False,
        node_timeout: float = 5.0,
        memory_mb: int | None = 1024,
        max_output_chars: int = 100_000,
        extra_helpers: dict[str, Callable[..., Any]] | None = None,
        interrupt_grace: float = 1.0,
        python: str | None = None,
        debug_stderr: bool = False,
        skip_static_checks_for_tests: bool = False,
        skip_audit_hook_for_tests: bool = False,
    ) -> None:
        self.trusted = trusted
        self.node_timeout = float(node_timeout)
        self.memory_mb = memory_mb
        self.max_output_chars = max_output_chars
        self.interrupt_grace = interrupt_grace
        self._extra_helpers = dict(extra_helpers or {})
        self._python = python or sys.executable
        self._debug_stderr = debug_stderr
        self._config: dict[str, Any] = {
            "trusted": trusted,
            "memory_mb": memory_mb,
            "max_output_chars": max_output_chars,
            "cpu_seconds": self.node_timeout + 2.0,
            "helpers": sorted(self._extra_helpers),
            # Tests only: each layer of the sandbox is tested with the others off.
            "skip_static_checks_for_tests": skip_static_checks_for_tests,
            "skip_audit_hook_for_tests": skip_audit_hook_for_tests,
        }
        self._workdir: str | None = None  # the worker's private working directory
        self.isolation: tuple[str, ...] = ()  # what the worker's platform let it apply (layer 4)
        self._proc: asyncio.subprocess.Process | None = None
        self._lock = asyncio.Lock()
        self._state = _IDLE
        # The last snapshot: variable name -> pickle made by a worker (or None
        # when the value could not be pickled), in namespace order.
        self._snapshot: dict[str, bytes | None] = {}
        self._summaries: dict[str, VariableSummary] = {}
        # Imported names kept for later nodes: [name, module, attribute], as the worker said.
        self._imports: list[list[str]] = []
        self._queued: NodeOutcome | None = None
        self._output: list[str] = []
        self._pending_output = ""
        self._busy = 0.0  # the running node's own time so far
        self._ran = False  # the worker said the node's code ended (what follows is saving its variables)
        self._restore_seconds = 0.0
        self._segment_start: float | None = None
        self._node_serial = 0
        self._kill_reason = ""
        self._interrupt_timer: asyncio.TimerHandle | None = None
        self.restarts = 0
        self.last_restart_seconds = 0.0

    # -- public extras -------------------------------------------------------

    @property
    def helper_names(self) -> frozenset[str]:
        return frozenset({"run", "print", "re", *self._extra_helpers})

    @property
    def imported_names(self) -> frozenset[str]:
        """Names bound by imports from the allowed modules, available to every later node."""
        return frozenset(entry[0] for entry in self._imports)

    @property
    def workdir(self) -> str | None:
        """The worker's private working directory (made at its first start, removed at close)."""
        return self._workdir

    @property
    def worker_pid(self) -> int | None:
        return self._proc.pid if self._proc is not None and self._proc.returncode is None else None

    def check(self, code: str) -> str | None:
        """The static checks' refusal reason for `code` (None when trusted)."""
        if self.trusted:
            return None
        imported = self.imported_names
        return check_code(code, frozenset(self._summaries) | imported, self.helper_names, imported_names=imported)

    async def ensure_started(self) -> None:
        """Start the worker now instead of at the first request."""
        async with self._lock:
            await self._ensure_worker()

    def interrupt(self) -> None:
        """Stop the running node: SIGINT first, kill and restore after a grace period.

        While node code waits in `run()` for the engine, the wait itself is
        ended: the node finishes as "interrupted" and a pending answer is dropped.
        """
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return
        if self._state == _WAITING:
            self._write({"op": "interrupt"})
            self._state = _RUNNING
            self._segment_start = time.monotonic()
            return
        if self._state != _RUNNING:
            return
        try:
            os.kill(proc.pid, signal.SIGINT)
        except ProcessLookupError:
            return
        serial = self._node_serial
        loop = asyncio.get_running_loop()
        if self._interrupt_timer is not None:
            self._interrupt_timer.cancel()
        self._interrupt_timer = loop.call_later(self.interrupt_grace, self._escalate, serial)

    def _escalate(self, serial: int) -> None:
        self._interrupt_timer = None
        if serial == self._node_serial and self._state == _RUNNING:
            self._signal(signal.SIGUSR1)  # send what it printed, then die
            self._interrupt_timer = asyncio.get_running_loop().call_later(
                self._flush_grace, self._kill, "interrupted (killed after the code ignored the interrupt)"
            )

    @property
    def _flush_grace(self) -> float:
        """How long a node about to be killed gets to send what it printed (it may be stuck in C code)."""
        return min(0.25, 0.1 * self.node_timeout)

    def _signal(self, signum: int) -> bool:
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return False
        try:
            os.kill(proc.pid, signum)
        except ProcessLookupError:
            return False
        return True

    async def _flush_output(self) -> None:
        """Ask the running worker for its printed output before it is killed, so it is not lost."""
        if not self._signal(signal.SIGUSR1):
            return
        try:
            message = await self._read(timeout=self._flush_grace)
        except (asyncio.TimeoutError, _WorkerGone):
            return
        self._output.append(str(message.get("out", "")))
        self._pending_output = ""

    # -- CodeRunner ------------------------------------------------------------

    async def start(self, code: str) -> None:
        if self._state != _IDLE:
            raise SandboxError("a node is already running")
        async with self._lock:
            restarts = self.restarts
            await self._ensure_worker()
            # A worker that died between nodes is brought back first: not the node's time.
            self._restore_seconds = self.last_restart_seconds if self.restarts != restarts else 0.0
            self._node_serial += 1
            self._output = []
            self._pending_output = ""
            self._busy = 0.0
            self._ran = False
            self._kill_reason = ""
            self._queued = None
            self._state = _RUNNING
            self._write({"op": "exec", "code": code})
            self._segment_start = time.monotonic()

    async def next_message(self) -> RunnerMessage:
        if self._queued is not None:
            outcome, self._queued = self._queued, None
            return outcome
        if self._state == _WAITING:
            raise SandboxError("next_message() before answer() to the pending action")
        if self._state != _RUNNING:
            raise SandboxError("no node is running")
        async with self._lock:
            while True:
                if self._ran:  # the code is done; the worker is keeping and snapshotting its variables
                    remaining = SAVE_TIMEOUT
                else:
                    if self._segment_start is None:
                        self._segment_start = time.monotonic()
                    remaining = self.node_timeout - self._busy - (time.monotonic() - self._segment_start)
                try:
                    message = await self._read(timeout=max(remaining, 0.0))
                except asyncio.TimeoutError:
                    if self._ran:
                        self._kill(f"timed out saving the variables after {SAVE_TIMEOUT:.0f} s")
                        return await self._fail_node("timed out saving the variables")
                    self._end_segment()  # the node's time is its limit; the flush below is not its time
                    await self._flush_output()
                    return await self._fail_node(f"timed out after {self.node_timeout:.1f} s")
                except _WorkerGone as gone:
                    return await self._fail_node(gone.reason)
                self._end_segment()
                self._pending_output = ""
                self._output.append(str(message.get("out", "")))
                kind = message["t"]
                if kind == "action":
                    self._state = _WAITING
                    return ActionRequest(str(message.get("action", "")), int(message.get("line", 0) or 0))
                if kind == "call":
                    await self._serve_helper(message)
                    continue
                if kind == "out":  # printed output sent just before a kill
                    continue
                if kind == "ran":  # the node's own time ends here
                    self._ran = True
                    continue
                if kind == "outcome":
                    try:
                        return self._finish_node(message)
                    except (ValueError, TypeError, KeyError) as exc:  # e.g. a blob that is not base64
                        self._kill(f"worker sent a malformed outcome ({exc})")
                        return await self._fail_node("worker sent a malformed outcome")
                reason = f"worker sent a malformed message (an unexpected {kind!r} while a node runs)"
                self._kill(reason)
                return await self._fail_node(reason)

    def answer(self, observation: str, stop: bool = False) -> None:
        if self._state != _WAITING:
            return  # the node already ended (interrupted); nothing is waiting
        self._write({"op": "answer", "obs": str(observation), "stop": bool(stop)})
        if not stop:  # printed by the worker; kept here too in case the worker dies before reporting it
            self._pending_output = str(observation) + "\n"
        self._state = _RUNNING
        self._segment_start = time.monotonic()

    async def set_variables(self, values: dict[str, Any]) -> tuple[VariableChange, ...]:
        reply = await self._request({"op": "set", "values": dict(values)}, timeout=30.0)
        return self._apply_snapshot(reply)

    async def bind_expressions(self, bindings: dict[str, str]) -> tuple[VariableChange, ...]:
        reply = await self._request({"op": "bind", "bindings": dict(bindings)}, timeout=self.node_timeout)
        changes = self._apply_snapshot(reply)
        if reply.get("error"):
            raise SandboxError(str(reply["error"]))
        return changes

    async def variables(self) -> list[VariableSummary]:
        if self._state == _WAITING:
            reply = await self._request({"op": "vars"}, timeout=self.node_timeout)
            return [VariableSummary(*item) for item in reply["items"]]
        return list(self._summaries.values())

    async def full_value(self, name: str) -> str:
        if self._state == _RUNNING:
            return f"<{name}: the node is running>"
        reply = await self._request({"op": "full", "name": name}, timeout=self.node_timeout)
        return str(reply.get("text", ""))

    async def prompt_lines(self, names: list[str]) -> list[str]:
        reply = await self._request({"op": "lines", "names": list(names)}, timeout=self.node_timeout)
        return [str(line) for line in reply["lines"]]

    async def names(self) -> frozenset[str]:
        return frozenset(self._summaries) | self.helper_names | self.imported_names

    async def evaluate_condition(self, expression: str) -> bool:
        reply = await self._request({"op": "cond", "expr": expression}, timeout=self.node_timeout)
        return bool(reply["value"])

    async def evaluate(self, expression: str) -> tuple[str, str]:
        reply = await self._request({"op": "eval", "expr": expression}, timeout=self.node_timeout)
        return str(reply["type"]), str(reply["summary"])

    async def execute(self, code: str) -> tuple[str, tuple[VariableChange, ...]]:
        reply = await self._request({"op": "stmt", "code": code}, timeout=self.node_timeout)
        if self._state == _WAITING:  # the node's live globals changed; the kept namespace comes at its end
            changes = tuple(VariableChange(str(n), str(t), str(s), str(c)) for n, t, s, c in reply.get("changes", []))
        else:
            changes = self._apply_snapshot(reply)
        return str(reply.get("value", "")), changes

    async def close(self) -> None:
        if self._interrupt_timer is not None:
            self._interrupt_timer.cancel()
        proc, self._proc = self._proc, None
        self._state = _IDLE
        if proc is None:
            return
        if proc.returncode is None:
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
        _killpg(proc.pid)  # and anything it started (trusted code may spawn processes)
        await proc.wait()
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    # -- the worker process ------------------------------------------------------

    def _prepare_workdir(self) -> str:
        """A private, empty working directory for the worker, owned by the user it runs as."""
        if self._workdir is None or not os.path.isdir(self._workdir):
            self._workdir = owned_tempdir(WORKDIR_PREFIX)
            # Removed by close(); this covers a runner dropped without it, at collection or exit.
            weakref.finalize(self, shutil.rmtree, self._workdir, True)
            ids = worker_ids()
            if ids is not None:
                os.chown(self._workdir, *ids)
        return self._workdir

    async def _spawn(self) -> asyncio.subprocess.Process:
        if not self.trusted:
            engine_guard()
        config = dict(self._config, workdir=self._prepare_workdir())
        proc = await asyncio.create_subprocess_exec(
            self._python,
            "-I",
            "-S",
            "-c",
            _BOOT,
            _ROOT,
            json.dumps(config),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=None if self._debug_stderr else asyncio.subprocess.DEVNULL,
            env=_worker_environment(),  # API keys and the like stay in the engine
            start_new_session=True,  # its own process group, killed as a whole
        )
        self._proc = proc
        try:
            ready = await self._read(timeout=15.0)
        except (asyncio.TimeoutError, _WorkerGone) as exc:
            _killpg(proc.pid)
            self._proc = None
            raise SandboxError(f"the sandbox worker did not start: {exc}") from None
        if ready.get("t") != "ready":
            _killpg(proc.pid)
            self._proc = None
            raise SandboxError("the sandbox worker did not start")
        self.isolation = tuple(ready.get("isolation", ()))
        return proc

    async def _ensure_worker(self) -> None:
        if self._proc is not None and self._proc.returncode is None:
            return
        if self._proc is not None or self._snapshot or self._imports:
            await self._restart()
        else:
            await self._spawn()

    async def _restart(self) -> list[str]:
        """Kill whatever is left of the worker, start a fresh one, restore the snapshot.

        Returns the names that could not be restored (values that never pickled).
        """
        began = time.perf_counter()
        old, self._proc = self._proc, None
        if old is not None:
            _killpg(old.pid)
        spawn = asyncio.ensure_future(self._spawn())
        if old is not None:
            try:
                await asyncio.wait_for(old.wait(), timeout=5.0)
            except asyncio.TimeoutError:
                pass
        await spawn
        items = [(name, blob) for name, blob in self._snapshot.items() if blob is not None]
        lost = [name for name, blob in self._snapshot.items() if blob is None]
        self._write({"op": "restore", "items": items, "imports": self._imports})
        await self._drain()
        reply = await self._read(timeout=30.0)
        if reply.get("t") != "restored":
            _killpg(self._proc.pid if self._proc else 0)
            raise SandboxError(f"the new worker answered {reply.get('t')!r} to a restore")
        lost += [str(n) for n in reply.get("lost", [])]
        for name in lost:
            self._snapshot.pop(name, None)
        self._summaries = {str(n): VariableSummary(str(n), str(t), str(s)) for n, t, s in reply["items"]}
        self.restarts += 1
        self.last_restart_seconds = time.perf_counter() - began
        return lost

    def _kill(self, reason: str) -> None:
        self._kill_reason = self._kill_reason or reason
        if self._proc is not None and self._proc.returncode is None:
            _killpg(self._proc.pid)

    async def _fail_node(self, reason: str) -> NodeOutcome:
        """End the running node as an error and bring back a worker with the last snapshot."""
        reason = self._kill_reason or reason
        self._end_segment()
        self._state = _IDLE
        if self._pending_output and sum(map(len, self._output)) < self.max_output_chars:
            self._output.append(self._pending_output)
        self._pending_output = ""
        if self._interrupt_timer is not None:
            self._interrupt_timer.cancel()
            self._interrupt_timer = None
        before = dict(self._summaries)
        try:
            lost = await self._restart()
        except SandboxError as exc:
            return NodeOutcome(
                status="error", output="".join(self._output), error=f"{reason}; {exc}", seconds=self._busy
            )
        finally:
            self._kill_reason = ""
        if lost:
            reason += f" (not restored: {', '.join(lost)})"
        return NodeOutcome(
            status="error",
            output="".join(self._output),
            error=reason,
            changes=_diff(before, self._summaries),
            seconds=self._busy,
            restore_seconds=self._restore_seconds + self.last_restart_seconds,
        )

    def _finish_node(self, message: dict[str, Any]) -> NodeOutcome:
        self._state = _IDLE
        if self._interrupt_timer is not None:
            self._interrupt_timer.cancel()
            self._interrupt_timer = None
        changes = self._apply_snapshot(message)
        status = OUTCOME_STATUSES.get(str(message.get("status", "error")), "error")
        return NodeOutcome(
            status=status,
            output="".join(self._output),
            error=str(message.get("error", "")),
            stub_name=str(message.get("stub_name", "")),
            changes=changes,
            seconds=self._busy,
            restore_seconds=self._restore_seconds,
        )

    def _apply_snapshot(self, message: dict[str, Any]) -> tuple[VariableChange, ...]:
        changes = tuple(
            VariableChange(str(n), str(t), str(s), str(c)) for n, t, s, c in message.get("changes", [])
        )
        for change in changes:
            if change.change == "removed":
                self._summaries.pop(change.name, None)
            else:
                self._summaries[change.name] = VariableSummary(change.name, change.type, change.summary)
        snap = message.get("snapshot")
        if snap:
            blobs = {str(k): base64.b64decode(v, validate=True) for k, v in snap.get("blobs", {}).items()}
            unsaved = {str(n) for n in snap.get("unsaved", [])}
            old = self._snapshot
            fresh: dict[str, bytes | None] = {}
            total = 0
            for name in snap.get("order", []):
                name = str(name)
                blob = None if name in unsaved else blobs.get(name, old.get(name))
                if blob is not None and total + len(blob) > MAX_SNAPSHOT_BYTES:
                    blob = None  # the engine holds at most this much of a run's variables
                total += len(blob) if blob is not None else 0
                fresh[name] = blob
            self._snapshot = fresh
            self._imports = [[str(x) for x in entry][:3] for entry in snap.get("imports", [])]
            # keep the summaries in namespace order
            self._summaries = {n: self._summaries[n] for n in fresh if n in self._summaries}
        return changes

    async def _serve_helper(self, message: dict[str, Any]) -> None:
        name = str(message.get("name", ""))
        fn = self._extra_helpers.get(name)
        try:
            if fn is None:
                raise KeyError(f"no helper {name!r}")
            result = fn(*message.get("args", []), **message.get("kwargs", {}))
            if inspect.isawaitable(result):
                result = await result
            reply = {"op": "reply", "value": result}
            encode_request(reply)  # the result must pickle (plain data)
        except Exception as exc:  # noqa: BLE001 - the failure goes back to the node code
            reply = {"op": "reply", "error": f"{type(exc).__name__}: {exc}"}
        self._write(reply)
        self._segment_start = time.monotonic()

    # -- framing -------------------------------------------------------------------

    def _write(self, message: dict[str, Any]) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None or proc.returncode is not None:
            return  # the reader will notice the dead worker
        try:
            proc.stdin.write(encode_request(message))
        except (ConnectionError, RuntimeError):
            pass

    async def _drain(self) -> None:
        proc = self._proc
        if proc is not None and proc.stdin is not None:
            try:
                await proc.stdin.drain()
            except ConnectionError:
                pass

    async def _read(self, timeout: float) -> dict[str, Any]:
        proc = self._proc
        if proc is None or proc.stdout is None:
            raise _WorkerGone("the worker is not running")
        if sys.version_info >= (3, 11):
            async with asyncio.timeout(timeout):  # no extra task per frame, unlike wait_for: two actions a node
                return await self._read_frame(proc)
        return await asyncio.wait_for(self._read_frame(proc), timeout)  # Python 3.10: no asyncio.timeout

    async def _read_frame(self, proc: asyncio.subprocess.Process) -> dict[str, Any]:
        assert proc.stdout is not None
        try:
            header = await proc.stdout.readexactly(HEADER.size)
            (size,) = HEADER.unpack(header)
            if size > MAX_FRAME:
                raise _WorkerGone("worker sent an oversized message")
            payload = await proc.stdout.readexactly(size)
            return decode_reply(payload)
        except asyncio.IncompleteReadError:
            raise _WorkerGone(await self._death_reason(proc)) from None
        except (ValueError, UnicodeDecodeError):
            raise _WorkerGone("worker sent a malformed message") from None

    async def _death_reason(self, proc: asyncio.subprocess.Process) -> str:
        try:
            code = await asyncio.wait_for(proc.wait(), timeout=2.0)
        except asyncio.TimeoutError:
            return "worker stopped answering"
        if self._kill_reason:
            return self._kill_reason
        if code < 0:
            sig = -code
            if sig == signal.SIGXCPU:
                return "CPU limit"
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            return f"worker crashed ({name})"
        return f"worker exited (status {code})"

    def _end_segment(self) -> None:
        if self._segment_start is not None:
            self._busy += time.monotonic() - self._segment_start
            self._segment_start = None

    async def _request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """One request/reply with an idle worker, or with one waiting in run()."""
        if self._state == _RUNNING:
            raise SandboxError("the node is running; try again when it waits or ends")
        async with self._lock:
            if self._state == _IDLE:
                await self._ensure_worker()
            self._write(message)
            await self._drain()
            try:
                reply = await self._read(timeout=timeout)
                _check_reply_to(message["op"], reply)
            except (asyncio.TimeoutError, _WorkerGone) as exc:
                reason = exc.reason if isinstance(exc, _WorkerGone) else f"timed out after {timeout:.1f} s"
                waiting = self._state == _WAITING
                self._kill(reason)
                if waiting:  # the node dies with the worker; its outcome is waiting for next_message
                    self._queued = await self._fail_node(reason)
                else:
                    await self._recover()
                raise SandboxError(reason) from None
        if reply.get("t") == "fail":
            raise SandboxError(str(reply.get("error", "failed")))
        return reply

    async def _recover(self) -> None:
        self._kill("restart")
        try:
            await self._restart()
        except SandboxError:
            pass
        self._kill_reason = ""


# The reply each request expects (besides "fail"), with the fields it must carry.
_REPLIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "set": ("done", ()),
    "bind": ("done", ()),
    "vars": ("vars", ("items",)),
    "full": ("text", ("text",)),
    "lines": ("lines", ("lines",)),
    "cond": ("bool", ("value",)),
    "eval": ("value", ("type", "summary")),
    "stmt": ("stmt", ()),
}


def _check_reply_to(op: str, reply: dict[str, Any]) -> None:
    """A reply of another type than the request's (or missing its fields) is a broken worker."""
    kind, fields = _REPLIES[op]
    if reply["t"] == "fail" or (reply["t"] == kind and all(f in reply for f in fields)):
        return
    raise _WorkerGone(f"worker sent a malformed message ({reply['t']!r} to a {op!r} request)")


_PASSED_ENVIRONMENT = ("PATH", "HOME", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR")


WORKDIR_PREFIX = "recode-worker-"  # + the engine's pid: a killed engine's folder is removed by the next


def _worker_environment() -> dict[str, str]:
    return {k: os.environ[k] for k in _PASSED_ENVIRONMENT if k in os.environ}


def _killpg(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _diff(before: dict[str, VariableSummary], after: dict[str, VariableSummary]) -> tuple[VariableChange, ...]:
    changes = [
        VariableChange(s.name, s.type, s.summary, "new" if name not in before else "changed")
        for name, s in after.items()
        if before.get(name) != s
    ]
    changes += [VariableChange(s.name, s.type, s.summary, "removed") for name, s in before.items() if name not in after]
    return tuple(changes)
