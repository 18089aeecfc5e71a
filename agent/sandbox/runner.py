"""`SandboxRunner`: the `CodeRunner` that executes node code in a worker process.

The parent keeps the environment, the LLM and every key; the worker (`agent.sandbox.worker`,
behind the kernel's walls of `agent.sandbox.walls`) owns the namespace. A `run(action)` in node
code is a request that `next_message` hands to the parent as an `ActionRequest`, blocked until `answer`.

Time: each node gets `node_timeout` seconds of worker time; the clock stops
while the parent holds a request (stepping the environment, sitting at a
breakpoint, serving a helper). Whenever the parent has the turn (between nodes,
at a `run()`) the worker is stopped (SIGSTOP) and continued with the next
request, so code that keeps running after it reported its end (a signal
handler, a forged outcome) gets no CPU outside a node's limit. Everything the
worker says is clipped to the `budgets` before the parent keeps it. On a
timeout, a crash (memory, CPU, a signal) or an interrupt that does not stop
the code, the worker's process group is killed, a fresh worker starts and gets the namespace back from the last snapshot: the old
worker's pickled bytes, which the parent stores (at most `MAX_SNAPSHOT_BYTES`) and forwards
but never unpickles; the new worker opens them as plain data only.

The worker is treated as hostile: a frame of the wrong shape, size or type
for the node's phase (`node_frames`), or far more output than the cap, is a
broken worker: it is killed and replaced, and the node (or the request) fails
with the reason; the runner never raises on it. A node has one deadline: its
own time up to `ran`, then a save deadline fixed when `ran` came. Each node's
`random` is seeded from the runner's `seed` (`seeds.node_seed`).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from typing import Any, Callable

from agent.runtime.events import VariableChange
from agent.runtime.runner import OUTCOME_STATUSES, ActionRequest, NodeOutcome, RunnerMessage
from agent.runtime.varlist import VariableSummary
from agent.sandbox import process
from agent.sandbox.budgets import (ACTION_CHARS, ERROR_CHARS, NAME_CHARS, PROMPT_LINE_CHARS, TEXT_CHARS, TYPE_CHARS,
                                   cgroup_bytes, clip)
from agent.sandbox.checks import check_code
from agent.sandbox.clock import NodeClock
from agent.sandbox.isolation import parent_guard
from agent.sandbox.kept import KeptNamespace, changes_of, diff, summaries_of
from agent.sandbox.ipc_limits import close_shared_memory
from agent.sandbox.memory_cgroup import make_worker_cgroup, remove_worker_cgroup
from agent.sandbox.node_frames import NodeWatch
from agent.sandbox.process import WorkerGone, killpg
from agent.sandbox.protocol import MAX_FRAME, helper_reply, reply_mismatch
from agent.sandbox.seeds import new_run_seed, node_seed
from agent.sandbox.walls import SandboxPolicy, WallsMissing, start_config

__all__ = ["SandboxRunner", "SandboxError", "SAVE_TIMEOUT"]

_IDLE, _RUNNING, _WAITING = "idle", "running", "waiting"
Changes = tuple[VariableChange, ...]
# How long the worker may take to keep and snapshot a node's variables once its
# code ended; not counted in the node's time limit (a large namespace takes a while).
SAVE_TIMEOUT = 60.0


class SandboxError(RuntimeError):
    """A request to the worker failed (a bad condition or binding, a timeout, a crash)."""


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
        policy: SandboxPolicy | None = None,
        save_timeout: float = SAVE_TIMEOUT,
        seed: int | None = None,
    ) -> None:
        """`seed`: the run's seed for node code's `random` (None: a random one; `seed` says which)."""
        self.trusted = trusted
        # Which layers and walls node code gets: the edge's policy (RunnerSettings.sandbox), else the strictest.
        self.policy = policy if policy is not None else SandboxPolicy()
        self.node_timeout = float(node_timeout)
        self.save_timeout = float(save_timeout)
        self.seed = new_run_seed() if seed is None else int(seed)
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
        }
        self._workdir = process.PrivateFolder()  # the worker's working directory outside namespaces
        self.isolation: tuple[str, ...] = ()  # what the worker's platform let it apply (layer 4)
        self._proc: asyncio.subprocess.Process | None = None
        self._closes = 0  # how many times `close` ran: a worker started across one is stopped, not kept
        self._signal_pid = 0  # where the worker's signals go (under bwrap: the worker, not bwrap)
        self._held = False  # the worker is stopped while the parent has the turn
        self._cgroup = ""  # the worker's own cgroup (its memory budget) where this machine allows one
        self._lock = asyncio.Lock()
        self._state = _IDLE
        self._kept = KeptNamespace()  # the namespace's summaries and last snapshot
        self._queued: NodeOutcome | None = None
        self._pending_output = ""
        self._clock = NodeClock()  # the running node's own time so far
        self._node = self._watch()  # the running node's phase, deadline and output
        self._restore_seconds = 0.0
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
        return self._kept.imported_names

    @property
    def workdir(self) -> str | None:
        """The worker's private folder outside namespaces (made at its first start, removed at close)."""
        return self._workdir.path

    @property
    def worker_pid(self) -> int | None:
        """The worker's own process (inside namespaces: the interpreter under bwrap)."""
        return self._signal_pid if self._proc is not None and self._proc.returncode is None else None

    def check(self, code: str) -> str | None:
        """The static checks' refusal reason for `code` (None when trusted, or with the Python layers off:
        `RECODE_SANDBOX_LAYERS=os` leaves node code to the kernel's walls alone, the parent's check included)."""
        if self.trusted or not self.policy.python_layers:
            return None
        imported = self.imported_names
        return check_code(code, frozenset(self._kept.summaries) | imported, self.helper_names, imported_names=imported)

    async def ensure_started(self) -> None:
        """Start the worker now instead of at the first request."""
        async with self._lock:
            await self._ensure_worker()
            self._hold()

    def interrupt(self) -> None:
        """Stop the running node: SIGINT first, kill and restore after a grace period.

        While node code waits in `run()` for the parent, the wait itself is
        ended: the node finishes as "interrupted" and a pending answer is dropped.
        """
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return
        if self._state == _WAITING:
            self._write({"op": "interrupt"})
            self._state = _RUNNING
            self._clock.resume()
            return
        if self._state != _RUNNING:
            return
        try:
            os.kill(self._signal_pid, signal.SIGINT)
        except ProcessLookupError:
            return
        serial = self._node_serial
        loop = asyncio.get_running_loop()
        if self._interrupt_timer is not None:
            self._interrupt_timer.cancel()
        self._interrupt_timer = loop.call_later(self.interrupt_grace, self._escalate, serial)

    def _cancel_escalation(self) -> None:
        if self._interrupt_timer is not None:
            self._interrupt_timer.cancel()
            self._interrupt_timer = None

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
        return process.send_signal(self._proc, signum, self._signal_pid)

    async def _flush_output(self) -> None:
        """Ask the running worker for its printed output before it is killed, so it is not lost."""
        if not self._signal(signal.SIGUSR1):
            return
        try:
            message = await self._read(timeout=self._flush_grace, max_size=self._node.max_frame)
        except (asyncio.TimeoutError, WorkerGone):
            return
        if message["t"] == "out":
            self._node.output.take(str(message.get("out", "")))
            self._pending_output = ""

    # -- CodeExecution ---------------------------------------------------------

    async def start(self, code: str) -> None:
        if self._state != _IDLE:
            raise SandboxError("a node is already running")
        async with self._lock:
            restarts = self.restarts
            await self._ensure_worker()
            # A worker that died between nodes is brought back first: not the node's time.
            self._restore_seconds = self.last_restart_seconds if self.restarts != restarts else 0.0
            self._node_serial += 1
            self._pending_output = ""
            self._clock.reset()
            self._node = self._watch()
            self._kill_reason = ""
            self._queued = None
            self._state = _RUNNING
            self._write({"op": "exec", "code": code, "seed": node_seed(self.seed, self._node_serial)})
            self._clock.resume()

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
                saving = self._node.saving
                try:
                    message = await self._read(timeout=self._node.remaining(), max_size=self._node.max_frame)
                except asyncio.TimeoutError:
                    if saving:
                        self._kill(f"timed out saving the variables after {self.save_timeout:.0f} s")
                        return await self._fail_node("timed out saving the variables")
                    self._clock.pause()  # the node's time is its limit; the flush below is not its time
                    await self._flush_output()
                    return await self._fail_node(f"timed out after {self.node_timeout:.1f} s")
                except WorkerGone as gone:
                    return await self._fail_node(gone.reason)
                refusal = self._node.judge(message)  # ends the node's own time at `ran`, counts the output
                if refusal:
                    self._kill(refusal)
                    return await self._fail_node(refusal)
                self._pending_output = ""
                kind = message["t"]
                if kind == "action":
                    self._state = _WAITING
                    self._hold()
                    action = str(message["action"])  # the parent keeps its start, and says how long it was
                    return ActionRequest(clip(action, ACTION_CHARS), int(message.get("line", 0) or 0), len(action))
                if kind == "call":
                    await self._serve_helper(message)
                elif kind == "outcome":
                    try:
                        return self._finish_node(message)
                    except (ValueError, TypeError, KeyError) as exc:  # e.g. a blob that is not base64
                        self._kill(f"worker sent a malformed outcome ({exc})")
                        return await self._fail_node("worker sent a malformed outcome")

    def _watch(self) -> NodeWatch:
        return NodeWatch(self.max_output_chars, self.node_timeout, self.save_timeout, self._clock)

    def answer(self, observation: str, stop: bool = False) -> None:
        if self._state != _WAITING:
            return  # the node already ended (interrupted); nothing is waiting
        self._write({"op": "answer", "obs": str(observation), "stop": bool(stop)})
        if not stop:  # printed by the worker; kept here too in case the worker dies before reporting it
            self._pending_output = str(observation) + "\n"
        self._state = _RUNNING
        self._clock.resume()

    async def set_variables(self, values: dict[str, Any]) -> tuple[VariableChange, ...]:
        return (await self._request({"op": "set", "values": dict(values)}, timeout=30.0))[1]

    async def bind_expressions(self, bindings: dict[str, str]) -> tuple[VariableChange, ...]:
        reply, changes = await self._request({"op": "bind", "bindings": dict(bindings)}, self.node_timeout)
        if reply.get("error"):
            raise SandboxError(clip(str(reply["error"]), ERROR_CHARS))
        return changes

    # -- CodeInspection --------------------------------------------------------

    async def variables(self) -> list[VariableSummary]:
        if self._state == _WAITING:
            reply, _ = await self._request({"op": "vars"}, timeout=self.node_timeout)
            try:
                return summaries_of(reply["items"])
            except ValueError as exc:
                raise SandboxError(f"worker sent a malformed message ({exc})") from None
        return list(self._kept.summaries.values())

    async def full_value(self, name: str) -> str:
        if self._state == _RUNNING:
            return f"<{name}: the node is running>"
        reply, _ = await self._request({"op": "full", "name": name}, timeout=self.node_timeout)
        return clip(str(reply.get("text", "")), TEXT_CHARS)

    async def prompt_lines(self, names: list[str]) -> list[str]:
        """One line a name asked for, at most, each clipped: what the worker says goes into prompts and the journal."""
        reply, _ = await self._request({"op": "lines", "names": list(names)}, timeout=self.node_timeout)
        return [clip(str(line), PROMPT_LINE_CHARS) for line in reply["lines"][:len(names)]]

    async def names(self) -> frozenset[str]:
        return frozenset(self._kept.summaries) | self.helper_names | self.imported_names

    async def evaluate_condition(self, expression: str) -> bool:
        reply, _ = await self._request({"op": "cond", "expr": expression}, timeout=self.node_timeout)
        return bool(reply["value"])

    async def evaluate(self, expression: str) -> tuple[str, str]:
        reply, _ = await self._request({"op": "eval", "expr": expression}, timeout=self.node_timeout)
        return clip(str(reply["type"]), TYPE_CHARS), clip(str(reply["summary"]), TEXT_CHARS)

    async def execute(self, code: str) -> tuple[str, tuple[VariableChange, ...]]:
        reply, changes = await self._request({"op": "stmt", "code": code}, self.node_timeout)
        return clip(str(reply.get("value", "")), TEXT_CHARS), changes

    async def close(self) -> None:
        self._cancel_escalation()
        self._closes += 1  # a worker still starting is stopped when it comes up (`_spawn`)
        proc, self._proc = self._proc, None
        self._state = _IDLE
        if proc is None:
            return
        held = self._held
        self._release()
        await process.shut_down(proc, ask=not held)
        remove_worker_cgroup(self._cgroup)
        self._cgroup = ""
        self._workdir.remove()

    # -- the worker process ------------------------------------------------------

    async def _spawn(self) -> asyncio.subprocess.Process:
        if not self.trusted:
            parent_guard()
        closes = self._closes
        try:  # a wall this machine cannot raise refuses the worker unless the policy says weak
            config, namespaces = start_config(self._config, self.policy, self.trusted, self._python,
                                              self._workdir.make)
            self._cgroup = make_worker_cgroup(cgroup_bytes(self.memory_mb)) if self.memory_mb else ""
            started = await process.start(self._python, config, namespaces, self._debug_stderr,
                                          lambda: self._kill_reason, self._cgroup)
        except (WorkerGone, WallsMissing) as exc:
            remove_worker_cgroup(self._cgroup)
            self._cgroup = ""
            raise SandboxError(str(exc)) from None
        if self._closes != closes:  # closed while it started: nobody would ever stop it
            await process.shut_down(started.proc, ask=False)
            remove_worker_cgroup(self._cgroup)
            self._cgroup = ""
            self._workdir.remove()
            raise SandboxError("the runner was closed while its worker started")
        if namespaces and not self.trusted:
            closed = await close_shared_memory(started.signal_pid)
            started.isolation += (closed,) if closed else ()
        self._proc, self._signal_pid, self.isolation = started.proc, started.signal_pid, started.isolation
        self._held = False
        return started.proc

    async def _ensure_worker(self) -> None:
        if self._proc is not None and self._proc.returncode is None:
            return
        if self._proc is not None or not self._kept.empty:
            await self._restart()
        else:
            await self._spawn()

    async def _restart(self) -> list[str]:
        """Kill whatever is left of the worker, start a fresh one, restore the snapshot.

        Returns the names that could not be restored (values that never pickled).
        """
        began = time.perf_counter()
        old, self._proc = self._proc, None
        old_cgroup, self._cgroup = self._cgroup, ""
        if old is not None:
            killpg(old.pid)
        spawn = asyncio.ensure_future(self._spawn())
        if old is not None:
            try:
                await asyncio.wait_for(old.wait(), timeout=5.0)
            except asyncio.TimeoutError:
                pass
        remove_worker_cgroup(old_cgroup)
        await spawn
        request, lost = self._kept.restore_request()
        self._write(request)
        await self._drain()
        try:
            reply = await self._read(timeout=30.0)
        except (asyncio.TimeoutError, WorkerGone) as exc:
            self._kill("restore failed")
            raise SandboxError(f"the new worker did not restore the variables: {_reason(exc, 30.0)}") from None
        if reply["t"] != "restored":
            self._kill("restore failed")
            raise SandboxError(f"the new worker answered {reply['t']!r} to a restore")
        try:
            lost = self._kept.restored(reply, lost)
        except ValueError as exc:
            self._kill("restore failed")
            raise SandboxError(f"the new worker sent a malformed restore ({exc})") from None
        self.restarts += 1
        self.last_restart_seconds = time.perf_counter() - began
        return lost

    def _kill(self, reason: str) -> None:
        self._kill_reason = self._kill_reason or reason
        if self._proc is not None and self._proc.returncode is None:
            killpg(self._proc.pid)

    async def _fail_node(self, reason: str) -> NodeOutcome:
        """End the running node as an error and bring back a worker with the last snapshot."""
        reason = self._kill_reason or reason
        self._clock.pause()
        self._state = _IDLE
        self._node.output.keep(self._pending_output)
        self._pending_output = ""
        self._cancel_escalation()
        before = dict(self._kept.summaries)
        try:
            lost = await self._restart()
        except SandboxError as exc:
            return NodeOutcome("error", self._node.output.text(), f"{reason}; {exc}", seconds=self._clock.busy)
        finally:
            self._kill_reason = ""
        self._hold()
        if lost:
            reason += f" (not restored: {', '.join(lost)})"
        return NodeOutcome("error", self._node.output.text(), reason, changes=diff(before, self._kept.summaries),
                           seconds=self._clock.busy, restore_seconds=self._restore_seconds + self.last_restart_seconds)

    def _finish_node(self, message: dict[str, Any]) -> NodeOutcome:
        self._state = _IDLE
        self._hold()
        self._cancel_escalation()
        changes = self._kept.apply(message)
        status = OUTCOME_STATUSES.get(str(message.get("status", "error")), "error")
        return NodeOutcome(status, self._node.output.text(), clip(str(message.get("error", "")), ERROR_CHARS),
                           clip(str(message.get("stub_name", "")), NAME_CHARS), changes, seconds=self._clock.busy,
                           restore_seconds=self._restore_seconds)

    async def _serve_helper(self, message: dict[str, Any]) -> None:
        self._write(await helper_reply(self._extra_helpers, message))
        self._clock.resume()

    # -- framing -------------------------------------------------------------------

    def _write(self, message: dict[str, Any]) -> None:
        self._release()
        process.write(self._proc, message)

    def _hold(self) -> None:
        """The parent has the turn: stop the worker until the next request."""
        if self._proc is not None and self._proc.returncode is None and not self._held:
            process.hold(self._signal_pid, True)
            self._held = True

    def _release(self) -> None:
        if self._held and self._proc is not None:
            process.hold(self._signal_pid, False)
        self._held = False

    async def _drain(self) -> None:
        await process.drain(self._proc)

    async def _read(self, timeout: float, max_size: int = MAX_FRAME) -> dict[str, Any]:
        return await process.read(self._proc, timeout, lambda: self._kill_reason, max_size)

    async def _request(self, message: dict[str, Any], timeout: float) -> tuple[dict[str, Any], Changes]:
        """One request/reply with an idle worker, or with one waiting in run(): the reply and its changes.

        The changes of a reply that changes the namespace (set, bind, a statement) are
        taken in: into the kept namespace when idle; a waiting node's come at its end.
        """
        if self._state == _RUNNING:
            raise SandboxError("the node is running; try again when it waits or ends")
        async with self._lock:
            if self._state == _IDLE:
                await self._ensure_worker()
            self._write(message)
            await self._drain()
            try:
                reply = await self._read(timeout=timeout)
                mismatch = reply_mismatch(message["op"], reply)
                if mismatch:
                    raise WorkerGone(mismatch)
                changes = self._take_changes(reply) if message["op"] in ("set", "bind", "stmt") else ()
                self._hold()
            except (asyncio.TimeoutError, WorkerGone) as exc:
                reason = _reason(exc, timeout)
                waiting = self._state == _WAITING
                self._kill(reason)
                if waiting:  # the node dies with the worker; its outcome is waiting for next_message
                    self._queued = await self._fail_node(reason)
                else:
                    await self._recover()
                raise SandboxError(reason) from None
        if reply.get("t") == "fail":
            raise SandboxError(clip(str(reply.get("error", "failed")), ERROR_CHARS))
        return reply, changes

    def _take_changes(self, reply: dict[str, Any]) -> Changes:
        if reply["t"] == "fail":
            return ()
        try:
            return changes_of(reply) if self._state == _WAITING else self._kept.apply(reply)
        except (ValueError, TypeError, KeyError) as exc:  # e.g. a blob that is not base64
            raise WorkerGone(f"worker sent a malformed snapshot ({exc})") from None

    async def _recover(self) -> None:
        self._kill("restart")
        try:
            await self._restart()
        except SandboxError:
            pass
        self._kill_reason = ""


def _reason(exc: BaseException, timeout: float) -> str:
    """Why a read from the worker gave nothing: its `WorkerGone` reason, or the time waited."""
    return exc.reason if isinstance(exc, WorkerGone) else f"timed out after {timeout:.1f} s"
