"""The sandbox worker: a separate process that owns the namespace and runs node code.

Started by `agent.sandbox.runner.SandboxRunner`, one per run (and a fresh one
after a timeout or a crash), through `agent.sandbox.boot`, which sets up the
process and installs the guards. This module is the request loop: it reads
requests from the parent, executes code, serves inspections and answers with
plain JSON. What node code can reach is built in `agent.sandbox.reachable`,
what a reply says about it in `agent.sandbox.capture`, and the namespace's
snapshots in `agent.sandbox.snapshots`. `run(action)` inside node code is a request back
to the parent; the worker never sees the environment, the LLM or any key.

Limits (`agent.sandbox.limits`): RLIMIT_AS (memory), RLIMIT_CPU (a backstop for the
parent's wall clock), captured output size. In untrusted mode each layer
would stop an escape on its own:

1. the static checks of `agent.sandbox.checks` run before every block, and
   the classes node code reaches through the allowed modules are immutable;
   the worker's replies use an encoder node code cannot reach;
2. a snapshot handed back after a restart is opened as plain data only
   (`protocol.load_plain`), never with `pickle.loads`;
3. an audit hook allows only the events node code needs (`agent.sandbox.audit`);
4. the worker has less than the parent: no network, no new processes, no
   privileges, and as root another user (`agent.sandbox.isolation`).
"""

from __future__ import annotations

import builtins
import os
import pickle
import random
import re
import sys
from typing import Any

from agent.runtime.code import ALLOWED_MODULES, NODE_FILENAME, calls_name, node_line
from agent.runtime.imports import ImportIndex, Origin
from agent.runtime.varlist import FULL_VALUE_LIMIT, bounded_repr, is_kept, prompt_line, shell_value
from agent.sandbox.audit import HookState
from agent.sandbox.capture import Output, describe, summarise, summary_changes, summary_of
from agent.sandbox.checks import FORBIDDEN_BUILTINS, check_code
from agent.sandbox.helpers import channel, make_helper, make_import, make_print, make_run
from agent.sandbox.limits import cpu_backstop
from agent.sandbox.protocol import HEADER, encode_reply, load_plain, read_exact, write_all
from agent.sandbox.reachable import give_back_exit, plain, restricted_builtins, trimmed_module
from agent.sandbox.snapshots import Snapshots


class EpisodeOver(BaseException):
    """Raised inside node code when the parent answers with stop=True."""


class Refused(Exception):
    pass


class _State(HookState):
    in_user = False  # node code (or a user expression) is executing right now
    in_node = False  # a node is running (possibly blocked in run())
    interrupt_requested = False
    stopped = False


class Worker:
    def __init__(self, config: dict[str, Any], rfd: int, wfd: int) -> None:
        self.rfd, self.wfd = rfd, wfd
        self.sending = False  # a frame is being written: a signal handler must not start another
        self.trusted = bool(config.get("trusted", False))
        # Off only in the sandbox's own layer tests (tests/sandbox/layers_off.py: each layer must hold
        # alone); SandboxRunner never sends these keys.
        self.static_checks = not self.trusted and not config.get("skip_static_checks_for_tests", False)
        self.audit_hook = not self.trusted and not config.get("skip_audit_hook_for_tests", False)
        self.output = Output(int(config.get("max_output_chars", 100_000)))
        self.cpu_seconds = float(config.get("cpu_seconds", 10.0))
        self.extra_helpers = list(config.get("helpers", []))
        self.helper_names = frozenset({"run", "print", "re", *self.extra_helpers})
        self.state = _State()
        self.namespace: dict[str, Any] = {}
        self.summaries: dict[str, tuple[str, str]] = {}
        self.snapshots = Snapshots()  # the last pickles the parent holds
        self.scope: dict[str, Any] | None = None  # the live globals of the running node
        self.modules = {name: trimmed_module(name) for name in ALLOWED_MODULES}
        # What `import` gives node code: the trimmed copies, or the real modules when trusted.
        self.import_index = ImportIndex(
            {name: sys.modules[name] for name in ALLOWED_MODULES} if self.trusted else self.modules
        )
        self.imports: dict[str, Origin] = {}  # imported names kept for later nodes
        self.shared_objects: list[Any] = []  # what the audit hook protects, kept alive
        # Plain functions that lead to nothing of the worker (agent.sandbox.helpers), never its methods.
        self.helpers: dict[str, Any] = {
            "run": make_run(channel(self._run)),
            "print": make_print(channel(self._print)),
            "re": re if self.trusted else self.modules["re"],
        }
        for name in self.extra_helpers:
            self.helpers[name] = self._make_helper(name)
        if self.trusted:
            give_back_exit()
            self.builtins: Any = builtins
        else:
            self.builtins = restricted_builtins(self.helpers["print"], make_import(self.modules))

    # -- I/O -----------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        self.sending = True
        try:
            write_all(self.wfd, encode_reply(message))
        finally:
            self.sending = False

    def flush_output(self) -> None:
        """Send what the running node printed so far (SIGUSR1: the parent is about to kill it)."""
        if self.state.in_user and not self.sending:
            text = self.output.delta()
            if text:
                self.send({"t": "out", "out": text})

    def recv(self) -> dict[str, Any]:
        header = read_exact(self.rfd, HEADER.size)
        if header is None:
            os._exit(0)  # the parent went away
        (size,) = HEADER.unpack(header)
        payload = read_exact(self.rfd, size)
        if payload is None:
            os._exit(0)
        return pickle.loads(payload)  # the parent's own requests, on the pipe only it holds: nothing else writes there

    # -- helpers seen by node code --------------------------------------------

    def _print(self, text: Any) -> bool:
        """`print`'s end in the worker: None asks whether the output is full, a str is written."""
        if self.output.length > self.output.limit:
            return True
        if text is not None:
            if type(text) is not str:
                raise TypeError("print() writes text only")
            self.output.write(text)
        return False

    def _run(self, action: Any) -> str:
        if self.state.stopped:
            raise EpisodeOver()
        if not self.state.in_node:
            raise RuntimeError("run() can only be called from node code")
        if type(action) is not str:
            raise TypeError("run() takes the action as text")
        line = self.state.own(node_line)  # node_line reads frames, which the audit hook refuses node code
        reply = self._ask({"t": "action", "action": action, "line": line}, "answer")
        if reply.get("stop"):
            self.state.stopped = True
            raise EpisodeOver()
        observation = str(reply.get("obs", ""))
        self._print(observation + "\n")
        return observation

    def _make_helper(self, name: str) -> Any:
        def call(request: Any) -> Any:
            if self.state.stopped:
                raise EpisodeOver()
            if not self.state.in_node:
                raise RuntimeError(f"{name}() can only be called from node code")
            try:
                args, kwargs = request
                plain_args, plain_kwargs = plain(list(args)), plain(dict(kwargs))
            except (TypeError, ValueError, RecursionError) as exc:
                raise TypeError(f"{name}() takes plain data only ({exc})") from None
            reply = self._ask({"t": "call", "name": name, "args": plain_args, "kwargs": plain_kwargs}, "reply")
            if "error" in reply:
                raise RuntimeError(f"{name}() failed: {reply['error']}")
            return reply.get("value")

        return make_helper(name, channel(call))

    def _ask(self, message: dict[str, Any], wanted: str) -> dict[str, Any]:
        """Send a request to the parent and serve inspections until it answers."""
        was_user = self.state.in_user
        self.state.in_user = False  # a SIGINT now only sets the flag
        try:
            message["out"] = self.output.delta()
            self.send(message)
            while True:
                request = self.recv()
                op = request.get("op")
                if op == wanted:
                    break
                if op == "interrupt":
                    self.state.interrupt_requested = True
                    raise KeyboardInterrupt("interrupted")
                if op == "shutdown":
                    os._exit(0)
                self.serve_inspection(request, self.scope)
        finally:
            self.state.in_user = was_user
        if self.state.interrupt_requested:
            raise KeyboardInterrupt("interrupted")
        return request

    # -- the main loop --------------------------------------------------------

    def loop(self, isolation: list[str]) -> None:
        self.send({"t": "ready", "pid": os.getpid(), "isolation": isolation})
        while True:
            request = self.recv()
            op = str(request.get("op", ""))
            if op == "shutdown":
                return
            if op in ("answer", "reply", "interrupt"):
                continue  # late reply to a node that already ended
            try:
                reply = self.handle(op, request)
            except BaseException as exc:  # noqa: BLE001 - e.g. MemoryError while summarising
                self.state.in_node = self.state.in_user = False
                self.scope = None
                reply = {"t": "outcome" if op == "exec" else "fail", "status": "error", "error": describe(exc)}
            if reply is not None:
                self.send(reply)

    def handle(self, op: str, request: dict[str, Any]) -> dict[str, Any] | None:
        if op == "exec":
            return self.exec_node(request["code"], request.get("seed"))
        if op == "set":
            return self.set_values(request["values"])
        if op == "bind":
            return self.bind(request["bindings"])
        if op == "restore":
            return self.restore(request["items"], request.get("imports", []))
        self.serve_inspection(request, None)
        return None

    def make_scope(self) -> dict[str, Any]:
        scope = dict(self.namespace)
        for name, origin in self.imports.items():
            scope[name] = self.import_index.resolve(origin)
        scope.update(self.helpers)
        scope["__builtins__"] = self.builtins
        return scope

    def _cpu_backstop(self) -> None:
        cpu_backstop(self.state, self.cpu_seconds)

    def _refusal(self, code: str, known: frozenset[str], mode: str = "exec") -> str | None:
        """Why the static checks refuse `code` (None: they pass), given the names bound so far."""
        imported = frozenset(self.imports)
        return check_code(code, known | imported, self.helper_names, mode=mode, imported_names=imported)

    def exec_node(self, code: str, seed: int | None = None) -> dict[str, Any]:
        state = self.state
        self.output.reset()
        if seed is not None:
            # The instance behind `random.choice` & co. (the trimmed module's functions are its bound
            # methods): the parent's per-node seed, so a replay of the node draws the same numbers.
            random.seed(seed)
        state.stopped = state.interrupt_requested = False
        self._cpu_backstop()
        scope = self.scope = self.make_scope()
        status, error, stub_name = "completed", "", ""
        state.in_node = True
        try:
            if self.static_checks:
                reason = self._refusal(code, frozenset(self.namespace))
                if reason:
                    raise Refused(reason)
            compiled = compile(code, NODE_FILENAME, "exec")
            state.in_user = True
            try:
                exec(compiled, scope)
            finally:
                state.in_user = False
        except EpisodeOver:
            status = "aborted"
        except Refused as exc:
            status, error = "error", str(exc)
        except NameError as exc:
            name = exc.name or ""
            if name and not self.trusted and name in FORBIDDEN_BUILTINS and name not in self.namespace:
                status, error = "error", f"forbidden: {name}"
            elif name and calls_name(code, name):
                status, stub_name = "stub", name
            else:
                status, error = "error", describe(exc)
        except KeyboardInterrupt as exc:
            status = "error"
            error = "interrupted" if state.interrupt_requested else describe(exc)
        except BaseException as exc:  # noqa: BLE001 - node code may raise anything
            status, error = "error", describe(exc)
        finally:
            state.in_node = False
            self.scope = None
        # The node's own time ends here; keeping and snapshotting its variables is not its time.
        self.send({"t": "ran", "out": self.output.delta()})
        if state.stopped:
            status, error = "aborted", ""
        if error == "memory limit":
            # Keeping what filled the memory would leave every later node at the limit.
            scope.clear()
            changes = []
        else:
            changes = self._keep(scope)
        del scope
        return {
            "t": "outcome",
            "status": status,
            "error": error,
            "stub_name": stub_name,
            "out": self.output.delta(),
            "changes": changes,
            "snapshot": self.snapshot(),
        }

    def _keep(self, scope: dict[str, Any]) -> list[list[str]]:
        kept = {k: v for k, v in scope.items() if is_kept(k, v, self.helper_names)}
        self.imports = self.import_index.kept_imports(
            scope, lambda name, value: name in kept or name in self.helper_names
        )
        for name in [n for n in self.namespace if n not in kept]:
            del self.namespace[name]
        self.namespace.update(kept)
        return self._changes()

    def _changes(self) -> list[list[str]]:
        """New, changed and removed variables since the last summaries."""
        before, self.summaries = self.summaries, summarise(self.namespace)
        return summary_changes(before, self.summaries)

    def snapshot(self) -> dict[str, Any]:
        """The pickles that changed since the last snapshot, for the parent to keep."""
        return self.snapshots.take(self.namespace, self.imports)

    def set_values(self, values: dict[str, Any]) -> dict[str, Any]:
        self.namespace.update(values)
        return {"t": "done", "changes": self._changes(), "snapshot": self.snapshot()}

    def bind(self, bindings: dict[str, str]) -> dict[str, Any]:
        scope = self.make_scope()
        error = ""
        self._cpu_backstop()
        try:
            for name, source in bindings.items():
                if self.static_checks:
                    if not name.isidentifier() or name.startswith("_") or name in self.helper_names:
                        raise Refused(f"forbidden: binding the name `{name}`")
                    reason = self._refusal(source, frozenset(self.namespace), "eval")
                    if reason:
                        raise Refused(reason)
                compiled = compile(source, "<binding>", "eval")
                self.state.in_user = True
                try:
                    value = eval(compiled, scope)
                finally:
                    self.state.in_user = False
                self.namespace[name] = value
        except BaseException as exc:  # noqa: BLE001
            error = str(exc) if isinstance(exc, Refused) else describe(exc)
        reply = {"t": "done", "changes": self._changes(), "snapshot": self.snapshot()}
        if error:
            reply["error"] = error
        return reply

    def restore(self, items: list[tuple[str, bytes]], imports: list[Any]) -> dict[str, Any]:
        self.imports = {
            name: origin for name, origin in self.import_index.restore(imports).items()
            if name not in self.helper_names
        }
        lost: list[str] = []
        for name, blob in items:
            try:
                value = load_plain(blob)  # never pickle.loads: the bytes came from a worker
            except BaseException:  # noqa: BLE001
                lost.append(name)
                continue
            self.namespace[name] = value
            self.snapshots.remember(name, blob, value)
        self.summaries = summarise(self.namespace)
        items_out = [[n, t, s] for n, (t, s) in self.summaries.items()]
        return {"t": "restored", "items": items_out, "lost": lost}

    # -- inspection (idle, or while node code waits in run()) ------------------

    def _visible(self, scope: dict[str, Any] | None) -> dict[str, Any]:
        if scope is None:
            return self.namespace
        return {k: v for k, v in scope.items() if is_kept(k, v, self.helper_names)}

    def serve_inspection(self, request: dict[str, Any], scope: dict[str, Any] | None) -> None:
        op = request.get("op")
        values = self._visible(scope)
        try:
            if op == "vars":
                if scope is None:
                    items = [[n, t, s] for n, (t, s) in self.summaries.items()]
                else:
                    items = [[n, *summary_of(n, v)] for n, v in values.items()]
                self.send({"t": "vars", "items": items})
            elif op == "full":
                name = request["name"]
                text = bounded_repr(values[name], FULL_VALUE_LIMIT) if name in values else f"<{name} is not bound>"
                self.send({"t": "text", "text": text})
            elif op == "lines":
                lines = [prompt_line(n, values[n]) for n in request["names"] if n in values]
                self.send({"t": "lines", "lines": lines})
            elif op == "cond":
                self.send(self.condition(request["expr"], scope))
            elif op == "eval":
                self.send(self.watch(request["expr"], scope))
            elif op == "stmt":
                self.send(self.statement(request["code"], scope))
            elif op == "ping":
                self.send({"t": "pong"})
            else:
                self.send({"t": "fail", "error": f"unknown request {op!r}"})
        except BaseException as exc:  # noqa: BLE001
            self.send({"t": "fail", "error": describe(exc)})

    def condition(self, expression: str, scope: dict[str, Any] | None) -> dict[str, Any]:
        """A breakpoint condition's truth."""
        return self._evaluate(expression, scope, lambda value: {"t": "bool", "value": bool(value)})

    def watch(self, expression: str, scope: dict[str, Any] | None) -> dict[str, Any]:
        """A watch expression's type and short value."""
        def reply(value: Any) -> dict[str, Any]:
            kind, summary = summary_of("", value)
            return {"t": "value", "type": kind, "summary": summary}

        return self._evaluate(expression, scope, reply)

    def _evaluate(self, expression: str, scope: dict[str, Any] | None, reply: Any) -> dict[str, Any]:
        """Check and evaluate one expression typed by the person, as user code."""
        if self.static_checks:
            reason = self._refusal(expression, frozenset(self._visible(scope)), "eval")
            if reason:
                return {"t": "fail", "error": reason}
        if scope is None:
            self._cpu_backstop()
        env = scope if scope is not None else self.make_scope()
        was_user = self.state.in_user
        self.state.in_user = True
        try:
            value = eval(compile(expression, "<expression>", "eval"), env, {})
            return reply(value)
        except BaseException as exc:  # noqa: BLE001
            return {"t": "fail", "error": describe(exc)}
        finally:
            self.state.in_user = was_user

    def statement(self, code: str, scope: dict[str, Any] | None) -> dict[str, Any]:
        """Run what the person typed at a stop (`!`), checked as node code.

        It runs on a copy of the namespace (or of the waiting node's globals), taken
        over only when it succeeds, so a refused or raising line changes no binding.
        `run()` and the helpers are not available: they belong to node code.
        """
        try:
            compile(code, "<shell>", "eval")
            mode = "eval"
        except SyntaxError:
            mode = "exec"
        if self.static_checks:
            reason = self._refusal(code, frozenset(self._visible(scope)), mode)
            if reason:
                return {"t": "fail", "error": reason}
        if scope is None:
            self._cpu_backstop()
        before = summarise(self._visible(scope))
        env = dict(scope) if scope is not None else self.make_scope()
        state = self.state
        was_user, was_node = state.in_user, state.in_node
        state.in_user, state.in_node = True, False
        try:
            compiled = compile(code, "<shell>", mode)
            if mode == "eval":
                shown = shell_value(eval(compiled, env))
            else:
                exec(compiled, env)
                shown = ""
        except BaseException as exc:  # noqa: BLE001 - the person's line may raise anything
            return {"t": "fail", "error": describe(exc)}
        finally:
            state.in_user, state.in_node = was_user, was_node
        if scope is None:
            changes = self._keep(env)
            return {"t": "stmt", "value": shown, "changes": changes, "snapshot": self.snapshot()}
        for name in [n for n in scope if n not in env]:
            del scope[name]
        scope.update(env)
        changes = summary_changes(before, summarise(self._visible(scope)))
        return {"t": "stmt", "value": shown, "changes": changes}

