"""Run node code in a thread of the agent's own process.

Fast and simple, for trusted code and for the agent's own tests. It cannot
stop code stuck inside one C call (`10**10**9`) nor cap memory: the sandboxed
worker process (`agent.sandbox`) does that. A pure-Python infinite loop is
stopped by raising an exception inside the thread.
"""

from __future__ import annotations

import asyncio
import builtins
import ctypes
import importlib
import queue
import re
import threading
import time
from dataclasses import replace
from types import CodeType
from typing import Any, Callable

from agent.runtime.code import ALLOWED_MODULES, NODE_FILENAME, calls_name, node_line
from agent.runtime.events import VariableChange
from agent.runtime.imports import ImportIndex, Origin
from agent.runtime.runner import ActionRequest, EvaluationError, NodeOutcome, OutcomeStatus, RunnerMessage
from agent.runtime.varlist import (
    FULL_VALUE_LIMIT,
    VariableSummary,
    bounded_repr,
    is_kept,
    prompt_line,
    shell_value,
    summarise,
)


class _EpisodeOver(BaseException):
    """Raised inside node code when the agent ends the episode mid-node."""


class _NodeTimeout(BaseException):
    """Raised inside node code by the agent when the node ran too long."""


class ThreadRunner:
    """A `CodeRunner` executing each node in a fresh daemon thread."""

    def __init__(
        self,
        extra_helpers: dict[str, Callable[..., Any]] | None = None,
        node_timeout: float = 5.0,
        max_output_chars: int = 100_000,
    ) -> None:
        self.namespace: dict[str, Any] = {}
        self.node_timeout = node_timeout
        self.max_output_chars = max_output_chars
        self._extra_helpers = dict(extra_helpers or {})
        self._inbox: asyncio.Queue[RunnerMessage] | None = None
        self._replies: queue.SimpleQueue[tuple[str, bool]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._output: list[str] = []
        self._output_len = 0
        self._busy_seconds = 0.0
        self._import_index = ImportIndex({m: importlib.import_module(m) for m in ALLOWED_MODULES})
        self.imports: dict[str, Origin] = {}  # imported names kept for later nodes (spec §2)

    # -- helpers injected into node code ------------------------------------

    @property
    def helper_names(self) -> frozenset[str]:
        return frozenset({"run", "print", "re", *self._extra_helpers})

    def _print(self, *args: Any, sep: str = " ", end: str = "\n", **_: Any) -> None:
        text = sep.join(str(a) for a in args) + end
        room = self.max_output_chars - self._output_len
        if room <= 0:
            return
        if len(text) > room:
            text = text[:room] + f"\n[output cut at {self.max_output_chars} chars]\n"
        self._output.append(text)
        self._output_len += len(text)

    def _run(self, action: Any) -> str:
        assert self._inbox is not None
        self._post(ActionRequest(str(action), node_line()))
        observation, stop = self._replies.get()
        if stop:
            raise _EpisodeOver()
        self._print(observation)
        return observation

    def _post(self, message: RunnerMessage) -> None:
        assert self._inbox is not None
        try:
            self._loop.call_soon_threadsafe(self._inbox.put_nowait, message)
        except RuntimeError:  # the agent's loop is gone (closed mid-node): nobody is listening
            pass

    def _globals(self) -> dict[str, Any]:
        scope: dict[str, Any] = dict(self.namespace)
        scope.update({name: self._import_index.resolve(origin) for name, origin in self.imports.items()})
        scope.update({"run": self._run, "print": self._print, "re": re}, **self._extra_helpers)
        scope["__builtins__"] = builtins
        return scope

    # -- CodeExecution -------------------------------------------------------

    async def start(self, code: str) -> None:
        self._loop = asyncio.get_running_loop()
        self._inbox = asyncio.Queue()
        self._output, self._output_len, self._busy_seconds = [], 0, 0.0
        self._thread = threading.Thread(target=self._execute, args=(code,), daemon=True)
        self._started_at = time.monotonic()
        self._thread.start()

    def _execute(self, code: str) -> None:
        before = self._summaries()
        scope = self._globals()
        try:
            exec(compile(code, NODE_FILENAME, "exec"), scope)
        except _EpisodeOver:
            self._post(self._outcome("aborted", scope, before))
        except _NodeTimeout:
            self._post(
                self._outcome("error", scope, before, error=f"timed out after {self.node_timeout:.1f} s")
            )
        except NameError as exc:
            name = exc.name or ""
            if name and calls_name(code, name):
                self._post(self._outcome("stub", scope, before, stub_name=name))
            else:
                self._post(self._outcome("error", scope, before, error=f"NameError: {exc}"))
        except BaseException as exc:  # noqa: BLE001 - node code may raise anything
            self._post(self._outcome("error", scope, before, error=f"{type(exc).__name__}: {exc}"))
        else:
            self._post(self._outcome("completed", scope, before))

    def _outcome(
        self, status: OutcomeStatus, scope: dict[str, Any], before: dict[str, VariableSummary], *,
        error: str = "", stub_name: str = "",
    ) -> NodeOutcome:
        changes = self._keep(scope, before)
        return NodeOutcome(status=status, output="".join(self._output), changes=changes, error=error,
                           stub_name=stub_name)

    def _keep(self, scope: dict[str, Any], before: dict[str, VariableSummary]) -> tuple[VariableChange, ...]:
        """Keep new or changed names per spec §2 and say what changed."""
        helpers = self.helper_names
        kept = {k: v for k, v in scope.items() if is_kept(k, v, helpers)}
        self.imports = self._import_index.kept_imports(scope, lambda name, value: name in kept or name in helpers)
        for name in [n for n in self.namespace if n not in kept]:
            del self.namespace[name]
        self.namespace.update(kept)
        return diff_summaries(before, self._summaries())

    def _summaries(self) -> dict[str, VariableSummary]:
        return {name: summarise(name, value) for name, value in self.namespace.items()}

    async def next_message(self) -> RunnerMessage:
        assert self._inbox is not None and self._thread is not None
        started = time.monotonic()
        remaining = max(0.0, self.node_timeout - self._busy_seconds)
        try:
            message = await asyncio.wait_for(self._inbox.get(), timeout=remaining)
        except asyncio.TimeoutError:
            message = await self._stop_thread()
        self._busy_seconds += time.monotonic() - started
        if isinstance(message, NodeOutcome):
            message = replace(message, seconds=self._busy_seconds)
        return message

    async def _stop_thread(self) -> RunnerMessage:
        """Raise _NodeTimeout inside the thread; give it a moment to unwind."""
        assert self._thread is not None and self._inbox is not None
        ident = self._thread.ident
        if ident is not None:
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(_NodeTimeout))
        try:
            return await asyncio.wait_for(self._inbox.get(), timeout=1.0)
        except asyncio.TimeoutError:
            return NodeOutcome(
                status="error",
                output="".join(self._output),
                error=f"timed out after {self.node_timeout:.1f} s (stuck in native code; "
                "use the sandboxed runner to kill it)",
            )

    def answer(self, observation: str, stop: bool = False) -> None:
        self._replies.put((observation, stop))

    async def set_variables(self, values: dict[str, Any]) -> tuple[VariableChange, ...]:
        before = self._summaries()
        self.namespace.update(values)
        return diff_summaries(before, self._summaries())

    async def bind_expressions(self, bindings: dict[str, str]) -> tuple[VariableChange, ...]:
        before = self._summaries()
        scope = self._globals()
        for name, source in bindings.items():
            self.namespace[name] = eval(source, scope)  # noqa: S307 - trusted runner
        return diff_summaries(before, self._summaries())

    # -- CodeInspection ------------------------------------------------------

    async def variables(self) -> list[VariableSummary]:
        return list(self._summaries().values())

    async def full_value(self, name: str) -> str:
        if name not in self.namespace:
            return f"<{name} is not bound>"
        return bounded_repr(self.namespace[name], FULL_VALUE_LIMIT)

    async def prompt_lines(self, names: list[str]) -> list[str]:
        return [prompt_line(n, self.namespace[n]) for n in names if n in self.namespace]

    async def names(self) -> frozenset[str]:
        return frozenset(self.namespace) | self.helper_names | frozenset(self.imports)

    async def evaluate_condition(self, expression: str) -> bool:
        return bool(eval(expression, self._globals(), {}))  # noqa: S307 - trusted runner

    async def evaluate(self, expression: str) -> tuple[str, str]:
        try:
            summary = summarise("", eval(expression, self._globals(), {}))  # noqa: S307 - trusted runner
        except Exception as exc:  # noqa: BLE001 - reported like the sandbox does: "NameError: ..."
            raise EvaluationError(f"{type(exc).__name__}: {exc}") from exc
        return summary.type, summary.summary

    async def execute(self, code: str) -> tuple[str, tuple[VariableChange, ...]]:
        """Between nodes only (the in-process runner cannot reach a waiting node's globals)."""
        if self._thread is not None and self._thread.is_alive():
            raise EvaluationError("a node is running: its variables change when it ends; run this after it")
        compiled: CodeType | None  # an expression's code; None for statements
        try:  # the mode first, so a SyntaxError raised while running is not taken for a statement
            compiled = compile(code, "<shell>", "eval")
        except SyntaxError:
            compiled = None
        before = self._summaries()
        scope = self._globals()
        scope["run"] = _no_actions  # an action outside a node has nowhere to go
        try:
            if compiled is not None:
                shown = shell_value(eval(compiled, scope))  # noqa: S307 - trusted runner
            else:
                exec(compile(code, "<shell>", "exec"), scope)  # noqa: S102 - trusted runner
                shown = ""
        except Exception as exc:  # noqa: BLE001 - reported like the sandbox does
            raise EvaluationError(f"{type(exc).__name__}: {exc}") from exc
        return shown, self._keep(scope, before)

    async def close(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            self.answer("", stop=True)



def diff_summaries(
    before: dict[str, VariableSummary], after: dict[str, VariableSummary]
) -> tuple[VariableChange, ...]:
    """New, changed and removed variables between two namespace summaries."""
    changes = [
        VariableChange(s.name, s.type, s.summary, "new" if name not in before else "changed")
        for name, s in after.items()
        if before.get(name) != s
    ]
    changes += [
        VariableChange(s.name, s.type, s.summary, "removed") for name, s in before.items() if name not in after
    ]
    return tuple(changes)


def _no_actions(action: str) -> str:
    raise RuntimeError("run() sends actions only from a node's code, not from a statement typed at a stop")
