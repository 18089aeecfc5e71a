"""The boundary between the agent and wherever node code executes.

The agent starts a node's code, then pulls one message at a time: each
`run(action)` the code makes arrives as an `ActionRequest` and the code stays
blocked until the agent `answer`s it, so a debugger can stop between any two
actions of a loop. When the code ends, a `NodeOutcome` says how.

The boundary has two halves: `CodeExecution` runs code (a node, its actions, the data
it binds) and `CodeInspection` looks into the namespace (summaries, watches, conditions,
a statement typed at a stop). Both implementations offer both: `ThreadRunner` (same
process, `agent.runtime.thread_runner`) and the sandboxed worker process of
`agent.sandbox`. The namespace lives inside the runner; the agent only ever sees
text summaries of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Protocol, runtime_checkable

from agent.runtime.events import VariableChange
from agent.runtime.varlist import VariableSummary


@dataclass(frozen=True)
class ActionRequest:
    action: str
    line: int = 0  # the line of the node's code that called run() (0: unknown)
    length: int = 0  # the action's whole length where `action` is only its start (a worker's huge run()), else 0


OutcomeStatus = Literal["completed", "stub", "error", "aborted"]
# A status read from outside (a worker's message) -> the typed one; anything else is an "error".
OUTCOME_STATUSES: dict[str, OutcomeStatus] = {"completed": "completed", "stub": "stub", "error": "error",
                                              "aborted": "aborted"}


@dataclass(frozen=True)
class NodeOutcome:
    status: OutcomeStatus
    output: str = ""
    error: str = ""
    stub_name: str = ""
    changes: tuple[VariableChange, ...] = field(default=())
    seconds: float = 0.0  # the node's own running time (what its time limit counts)
    # Bringing a namespace back into a fresh worker (after a kill or a crash):
    # not the node's time, reported apart so a slow restore is not blamed on the code.
    restore_seconds: float = 0.0


RunnerMessage = ActionRequest | NodeOutcome


class EvaluationError(Exception):
    """An expression typed by the person failed; the message names the error ("NameError: ...")."""


@runtime_checkable
class CodeExecution(Protocol):
    """Runs node code against one shared namespace per run: a node, its actions, the data it reads."""

    async def start(self, code: str) -> None:
        """Begin running `code` (one top-level statement); returns at once."""

    async def next_message(self) -> RunnerMessage:
        """Wait for the running code's next `run()` call or its end."""

    def answer(self, observation: str, stop: bool = False) -> None:
        """Reply to the pending ActionRequest; `stop=True` ends the code (episode over)."""

    async def set_variables(self, values: dict[str, Any]) -> tuple[VariableChange, ...]:
        """Bind plain data (task text, keyword literals) in the namespace."""

    async def bind_expressions(self, bindings: dict[str, str]) -> tuple[VariableChange, ...]:
        """Bind `name = <expression source>` for each item, evaluated in the namespace."""

    async def close(self) -> None:
        """End the code's process or thread; the namespace is gone."""


@runtime_checkable
class CodeInspection(Protocol):
    """Looks into the namespace between nodes or while a node waits in `run()`: prompts, the debugger, the shell."""

    async def variables(self) -> list[VariableSummary]:
        """One short summary per kept variable, in insertion order."""

    async def full_value(self, name: str) -> str:
        """A long (but bounded) rendering of one variable, for a detail view."""

    async def prompt_lines(self, names: list[str]) -> list[str]:
        """`- name (type): value` for each name that is bound, in order."""

    async def names(self) -> frozenset[str]:
        """Every name code can see: variables plus helpers (for validation)."""

    async def evaluate_condition(self, expression: str) -> bool:
        """Evaluate a breakpoint condition against the namespace; raises on a bad one."""

    async def evaluate(self, expression: str) -> tuple[str, str]:
        """A watch expression's (type, short value) in the namespace; raises with the reason on a bad one."""

    async def execute(self, code: str) -> tuple[str, tuple[VariableChange, ...]]:
        """Run a statement (or expression) typed by the person at a stop, under the node checks.

        Returns an expression's short value ('' for a statement) and what changed in the
        namespace; raises with the one-line reason when refused or raising, changing nothing.
        """


@runtime_checkable
class CodeRunner(CodeExecution, CodeInspection, Protocol):
    """Both halves: what an agent holds, since it runs nodes and writes prompts from their variables.

    A caller that only runs code takes a `CodeExecution`; one that only looks (the debugger's
    conditions and watches, a variables pane) takes a `CodeInspection`.
    """


@runtime_checkable
class CodeChecks(Protocol):
    """A runner with static checks of node code (the sandbox's): `check` gives the refusal reason, or None."""

    def check(self, code: str) -> str | None: ...


@runtime_checkable
class EarlyStart(Protocol):
    """A runner whose worker can be started before the first node (the sandbox's process).

    The stepper starts it while the game loads, so the first node does not wait for both in turn.
    """

    async def ensure_started(self) -> None: ...


@runtime_checkable
class NodeTimeLimit(Protocol):
    """A runner that stops a node after `node_timeout` seconds (both runners here do)."""

    node_timeout: float


def code_check_of(runner: object) -> "Callable[[str], str | None] | None":
    """The runner's static checks of node code, or None when it has none."""
    return runner.check if isinstance(runner, CodeChecks) else None
