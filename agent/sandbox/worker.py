"""The sandbox worker: a separate process that owns the namespace and runs node code.

Started by `agent.sandbox.runner.SandboxRunner`, one per run (and a fresh one
after a timeout or a crash). It reads requests from the engine, executes code,
and answers with plain JSON. `run(action)` inside node code is a request back
to the engine; the worker never sees the environment, the LLM or any key.

Limits applied here: RLIMIT_AS (memory), RLIMIT_CPU (a backstop for the
engine's wall clock), captured output size. In untrusted mode each layer
would stop an escape on its own:

1. the static checks of `agent.sandbox.checks` run before every block, and
   the classes node code reaches through the allowed modules are immutable;
   the worker's replies use an encoder node code cannot reach;
2. a snapshot handed back after a restart is opened as plain data only
   (`protocol.load_plain`), never with `pickle.loads`;
3. an audit hook allows only the events node code needs (`agent.sandbox.audit`);
4. the worker has less than the engine: no network, no new processes, no
   privileges, and as root another user (`agent.sandbox.isolation`).
"""

from __future__ import annotations

import base64
import builtins
import json
import os
import pickle
import resource
import signal
import sys
import types
from typing import Any

# Imported now so that no allowed module imports one lazily later (the audit
# hook refuses imports once node code can run).
import bisect  # noqa: F401
import collections  # noqa: F401
import functools  # noqa: F401
import heapq  # noqa: F401
import itertools  # noqa: F401
import math  # noqa: F401
import random  # noqa: F401
import re
import string  # noqa: F401
import unicodedata  # noqa: F401 - compiling a non-ASCII identifier (`café = 1`) imports it

from agent.runtime.code import NODE_FILENAME, calls_name, node_line
from agent.runtime.varlist import FULL_VALUE_LIMIT, bounded_repr, infer_type, is_kept, prompt_line
from agent.sandbox.audit import (
    HookState,
    audit_hook,
    freeze_shared_classes,
    remove_unaudited_calls,
    shared_objects,
)
from agent.sandbox.checks import (
    ALLOWED_BUILTINS,
    ALLOWED_MODULES,
    FORBIDDEN_BUILTINS,
    MODULE_EXCLUDED,
    MODULE_EXPORTS,
    check_code,
)
from agent.sandbox.imports import ImportIndex, Origin
from agent.sandbox.isolation import isolate
from agent.sandbox.protocol import HEADER, MAX_SNAPSHOT_BYTES, encode_reply, load_plain, read_exact, write_all

MAX_BLOB = 64 * 1024 * 1024  # a variable whose pickle is larger is not snapshotted
MAX_ERROR_CHARS = 2000

class EpisodeOver(BaseException):
    """Raised inside node code when the engine answers with stop=True."""


class Refused(Exception):
    pass


class _State(HookState):
    in_user = False  # node code (or a user expression) is executing right now
    in_node = False  # a node is running (possibly blocked in run())
    interrupt_requested = False
    stopped = False


class Output:
    """A node's printed output, capped like the in-process runner's."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.reset()

    def reset(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.sent = 0

    @property
    def full(self) -> bool:
        return self.length >= self.limit

    def write(self, text: str) -> None:
        room = self.limit - self.length
        if room <= 0:
            if room == 0 and text:  # filled exactly: still say that more was cut
                self.parts.append(f"\n[output cut at {self.limit} chars]\n")
                self.length += 1
            return
        if len(text) > room:
            text = text[:room] + f"\n[output cut at {self.limit} chars]\n"
        self.parts.append(text)
        self.length += len(text)

    def delta(self) -> str:
        """What was printed since the last call (streamed so a kill loses nothing)."""
        text = "".join(self.parts[self.sent:])
        self.sent = len(self.parts)
        return text


def describe(exc: BaseException) -> str:
    if isinstance(exc, MemoryError):
        return "memory limit"
    try:
        text = f"{type(exc).__name__}: {exc}"
    except BaseException:  # noqa: BLE001
        text = type(exc).__name__
    if len(text) > MAX_ERROR_CHARS:
        text = text[:MAX_ERROR_CHARS] + "... [cut]"
    return text


def summary_of(name: str, value: Any) -> tuple[str, str]:
    try:
        return infer_type(value), bounded_repr(value, 120).replace("\n", "\\n")
    except BaseException as exc:  # noqa: BLE001
        return "?", f"<unprintable: {type(exc).__name__}>"


_IMMUTABLE = (str, bytes, int, float, complex, bool, type(None), range)


def _is_immutable(value: Any) -> bool:
    if isinstance(value, _IMMUTABLE):
        return True
    if type(value) in (tuple, frozenset) and len(value) <= 64:
        return all(type(v) in _IMMUTABLE for v in value)
    return False


class Worker:
    def __init__(self, config: dict[str, Any], rfd: int, wfd: int) -> None:
        self.rfd, self.wfd = rfd, wfd
        self.sending = False  # a frame is being written: a signal handler must not start another
        self.trusted = bool(config.get("trusted", False))
        # Off only in the tests of the audit hook, which must hold on its own.
        self.static_checks = not self.trusted and not config.get("skip_static_checks_for_tests", False)
        self.audit_hook = not self.trusted and not config.get("skip_audit_hook_for_tests", False)
        self.output = Output(int(config.get("max_output_chars", 100_000)))
        self.cpu_seconds = float(config.get("cpu_seconds", 10.0))
        self.extra_helpers = list(config.get("helpers", []))
        self.helper_names = frozenset({"run", "print", "re", *self.extra_helpers})
        self.state = _State()
        self.namespace: dict[str, Any] = {}
        self.summaries: dict[str, tuple[str, str]] = {}
        self.blobs: dict[str, bytes] = {}  # last pickles the engine holds
        self.blob_sources: dict[str, Any] = {}  # the object each blob was made from
        self.scope: dict[str, Any] | None = None  # the live globals of the running node
        self.modules = {name: _trimmed_module(name) for name in ALLOWED_MODULES}
        # What `import` gives node code: the trimmed copies, or the real modules when trusted.
        self.import_index = ImportIndex(
            {name: sys.modules[name] for name in ALLOWED_MODULES} if self.trusted else self.modules
        )
        self.imports: dict[str, Origin] = {}  # imported names kept for later nodes
        self.shared_objects: list[Any] = []  # what the audit hook protects, kept alive
        self.helpers: dict[str, Any] = {
            "run": self._run,
            "print": self._print,
            "re": re if self.trusted else self.modules["re"],
        }
        for name in self.extra_helpers:
            self.helpers[name] = self._make_helper(name)
        if self.trusted:
            if not hasattr(builtins, "exit"):  # started with -S: give back what `site` adds

                def _exit(code: Any = None) -> None:
                    raise SystemExit(code)

                vars(builtins).update(exit=_exit, quit=_exit)
            self.builtins: Any = builtins
        else:
            table = {n: getattr(builtins, n) for n in ALLOWED_BUILTINS if hasattr(builtins, n)}
            table["print"] = self._print
            table["__import__"] = self._import
            table["__build_class__"] = builtins.__build_class__
            table["__name__"] = "__node__"
            self.builtins = table

    # -- I/O -----------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        self.sending = True
        try:
            write_all(self.wfd, encode_reply(message))
        finally:
            self.sending = False

    def flush_output(self) -> None:
        """Send what the running node printed so far (SIGUSR1: the engine is about to kill it)."""
        if self.state.in_user and not self.sending:
            text = self.output.delta()
            if text:
                self.send({"t": "out", "out": text})

    def recv(self) -> dict[str, Any]:
        header = read_exact(self.rfd, HEADER.size)
        if header is None:
            os._exit(0)  # the engine went away
        (size,) = HEADER.unpack(header)
        payload = read_exact(self.rfd, size)
        if payload is None:
            os._exit(0)
        return pickle.loads(payload)

    # -- helpers seen by node code --------------------------------------------

    def _print(self, *args: Any, sep: Any = " ", end: Any = "\n", **_: Any) -> None:
        if self.output.length > self.output.limit:
            return
        sep = " " if sep is None else str(sep)
        end = "\n" if end is None else str(end)
        self.output.write(sep.join(str(a) for a in args) + end)

    def _run(self, action: Any) -> str:
        if self.state.stopped:
            raise EpisodeOver()
        if not self.state.in_node:
            raise RuntimeError("run() can only be called from node code")
        action = str(action)
        self.state.own_call = True  # node_line reads frames, which the audit hook refuses node code
        try:
            line = node_line()
        finally:
            self.state.own_call = False
        reply = self._ask({"t": "action", "action": action, "line": line}, "answer")
        if reply.get("stop"):
            self.state.stopped = True
            raise EpisodeOver()
        observation = str(reply.get("obs", ""))
        self._print(observation)
        return observation

    def _make_helper(self, name: str) -> Any:
        def helper(*args: Any, **kwargs: Any) -> Any:
            if self.state.stopped:
                raise EpisodeOver()
            if not self.state.in_node:
                raise RuntimeError(f"{name}() can only be called from node code")
            try:
                plain_args, plain_kwargs = _plain(list(args)), _plain(dict(kwargs))
            except (TypeError, ValueError, RecursionError) as exc:
                raise TypeError(f"{name}() takes plain data only ({exc})") from None
            reply = self._ask({"t": "call", "name": name, "args": plain_args, "kwargs": plain_kwargs}, "reply")
            if "error" in reply:
                raise RuntimeError(f"{name}() failed: {reply['error']}")
            return reply.get("value")

        helper.__name__ = helper.__qualname__ = name
        return helper

    def _ask(self, message: dict[str, Any], wanted: str) -> dict[str, Any]:
        """Send a request to the engine and serve inspections until it answers."""
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

    def _import(self, name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if level or name not in self.modules:
            raise ImportError(f"forbidden: import {name}")
        return self.modules[name]

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
            return self.exec_node(request["code"])
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
        try:
            usage = resource.getrusage(resource.RUSAGE_SELF)
            soft = int(usage.ru_utime + usage.ru_stime + self.cpu_seconds) + 1
            _, hard = resource.getrlimit(resource.RLIMIT_CPU)
            if hard != resource.RLIM_INFINITY:
                soft = min(soft, hard)
            self.state.own_call = True
            try:
                resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
            finally:
                self.state.own_call = False
        except (ValueError, OSError):
            pass

    def exec_node(self, code: str) -> dict[str, Any]:
        state = self.state
        self.output.reset()
        state.stopped = state.interrupt_requested = False
        self._cpu_backstop()
        scope = self.scope = self.make_scope()
        status, error, stub_name = "completed", "", ""
        state.in_node = True
        try:
            if self.static_checks:
                reason = check_code(
                    code, frozenset(self.namespace) | set(self.imports), self.helper_names,
                    imported_names=frozenset(self.imports),
                )
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
            name = getattr(exc, "name", None) or ""
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
        before = self.summaries
        after = {name: summary_of(name, value) for name, value in self.namespace.items()}
        changes = [
            [name, t, s, "new" if name not in before else "changed"]
            for name, (t, s) in after.items()
            if before.get(name) != (t, s)
        ]
        changes += [[name, t, s, "removed"] for name, (t, s) in before.items() if name not in after]
        self.summaries = after
        return changes

    def snapshot(self) -> dict[str, Any]:
        """The pickles that changed since the last snapshot, for the engine to keep.

        At most MAX_BLOB a variable and MAX_SNAPSHOT_BYTES in all: what does not
        fit is reported unsaved (not restorable after a restart), as an
        unpicklable value is.
        """
        for name in [n for n in self.blobs if n not in self.namespace]:
            del self.blobs[name]
            self.blob_sources.pop(name, None)
        fresh: dict[str, str] = {}
        unsaved: list[str] = []
        total = sum(len(b) for b in self.blobs.values())
        for name, value in self.namespace.items():
            if self.blob_sources.get(name, _MISSING) is value and _is_immutable(value):
                continue
            old = self.blobs.pop(name, None)
            self.blob_sources.pop(name, None)
            total -= len(old) if old is not None else 0
            try:
                blob = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
                if len(blob) > MAX_BLOB or total + len(blob) > MAX_SNAPSHOT_BYTES:
                    raise ValueError("too large")
            except BaseException:  # noqa: BLE001 - unpicklable values are just not restorable
                unsaved.append(name)
                continue
            total += len(blob)
            self.blobs[name] = blob
            self.blob_sources[name] = value
            if old != blob:
                fresh[name] = base64.b64encode(blob).decode("ascii")
        imports = [[name, module, attr] for name, (module, attr) in self.imports.items()]
        return {"order": list(self.namespace), "blobs": fresh, "unsaved": unsaved, "imports": imports}

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
                    reason = check_code(
                        source, frozenset(self.namespace) | set(self.imports), self.helper_names,
                        mode="eval", imported_names=frozenset(self.imports),
                    )
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
            self.blobs[name] = blob
            self.blob_sources[name] = value
        self.summaries = {name: summary_of(name, value) for name, value in self.namespace.items()}
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
            known = frozenset(self._visible(scope)) | set(self.imports)
            reason = check_code(expression, known, self.helper_names, mode="eval", imported_names=frozenset(self.imports))
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
            known = frozenset(self._visible(scope)) | set(self.imports)
            reason = check_code(code, known, self.helper_names, mode=mode, imported_names=frozenset(self.imports))
            if reason:
                return {"t": "fail", "error": reason}
        if scope is None:
            self._cpu_backstop()
        before = {n: summary_of(n, v) for n, v in self._visible(scope).items()}
        env = dict(scope) if scope is not None else self.make_scope()
        state = self.state
        was_user, was_node = state.in_user, state.in_node
        state.in_user, state.in_node = True, False
        try:
            compiled = compile(code, "<shell>", mode)
            if mode == "eval":
                shown = summary_of("", eval(compiled, env))[1]
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
        after = {n: summary_of(n, v) for n, v in self._visible(scope).items()}
        changes = [[n, t, s, "new" if n not in before else "changed"] for n, (t, s) in after.items()
                   if before.get(n) != (t, s)]
        changes += [[n, t, s, "removed"] for n, (t, s) in before.items() if n not in after]
        return {"t": "stmt", "value": shown, "changes": changes}



_MISSING = object()


def _trimmed_module(name: str) -> types.ModuleType:
    """A stand-in for an allowed module: its public names, without submodules.

    The name is not the real one, so `from json import decoder` cannot fall
    back to `sys.modules["json.decoder"]` (whose `re.enum.sys` leads out).
    """
    real = sys.modules.get(name) or __import__(name)
    proxy = _ReadOnlyModule(f"sandboxed.{name}")
    exports = MODULE_EXPORTS.get(name)
    excluded = MODULE_EXCLUDED.get(name, frozenset())
    for attr in dir(real):
        if attr.startswith("_") or attr in excluded or (exports is not None and attr not in exports):
            continue
        value = getattr(real, attr)
        if isinstance(value, types.ModuleType):
            continue
        proxy.__dict__[attr] = value
    return proxy


class _ReadOnlyModule(types.ModuleType):
    """A module whose names node code cannot rebind (`re.findall = ...` would poison later nodes)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if "__name__" in self.__dict__ and name != "__name__":
            raise AttributeError(f"cannot change the sandboxed module {self.__name__[10:]!r}")
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot change the sandboxed module {self.__name__[10:]!r}")


def _set_limits(config: dict[str, Any]) -> None:
    memory_mb = config.get("memory_mb")
    if memory_mb:
        limit = int(memory_mb) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _plain(value: Any, depth: int = 0) -> Any:
    """A copy of `value` made of exact built-in types only: what node code hands the engine."""
    if depth > 50:
        raise ValueError("nested too deeply")
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value
    if kind in (list, tuple):
        return [_plain(v, depth + 1) for v in value]
    if kind is dict:
        copied = {}
        for key, item in value.items():
            if type(key) is not str:
                raise TypeError(f"a key of type {type(key).__name__}")
            copied[key] = _plain(item, depth + 1)
        return copied
    raise TypeError(f"a value of type {kind.__name__}")


def main(config_text: str = "{}") -> None:
    config = json.loads(config_text)
    # The protocol moves to private descriptors; 0 and 1 become /dev/null so
    # stray writes from node code can never corrupt a frame.
    rfd, wfd = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)

    class _Null:
        def write(self, text: str) -> int:
            return len(text)

        def flush(self) -> None:
            pass

    sys.stdout = _Null()
    sys.stdin = None
    sys.setrecursionlimit(int(config.get("recursion_limit", 1000)))

    worker = Worker(config, rfd, wfd)
    state = worker.state

    def on_sigint(signum: int, frame: Any) -> None:
        if state.in_node:
            state.interrupt_requested = True
        if state.in_user:
            raise KeyboardInterrupt("interrupted")

    signal.signal(signal.SIGINT, on_sigint)
    signal.signal(signal.SIGUSR1, lambda signum, frame: worker.flush_output())
    _set_limits(config)
    # Trusted code (`--trusted`) keeps the user's rights: it may write files, start processes.
    isolation = [] if worker.trusted else isolate(config.get("workdir"))
    if not worker.trusted:
        freeze_shared_classes(worker.modules.values())
        if worker.audit_hook:
            remove_unaudited_calls()
            shared, keep = shared_objects(worker.modules.values())
            worker.shared_objects = keep  # alive as long as the hook compares their ids
            sys.addaudithook(audit_hook(state, shared))
    worker.loop(isolation)
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "{}")
