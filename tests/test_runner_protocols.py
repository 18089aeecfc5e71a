"""The runner boundary in two halves: running code, and looking into its namespace.

Both runners offer both halves; a caller that only looks (the debugger's conditions and
watches) gets the inspection half, and the sandbox's constructor carries no test switch.
"""

from __future__ import annotations

import inspect
from typing import get_type_hints

from agent.runtime.debugger import Debugger
from agent.runtime.runner import CodeExecution, CodeInspection, CodeRunner
from agent.runtime.thread_runner import ThreadRunner
from agent.sandbox.runner import SandboxRunner


def _methods(protocol: type) -> set[str]:
    return {name for name, value in vars(protocol).items() if inspect.isfunction(value) and not name.startswith("_")}


def test_the_two_halves_split_the_runner_without_overlap() -> None:
    execution, inspection = _methods(CodeExecution), _methods(CodeInspection)
    assert execution == {"start", "next_message", "answer", "set_variables", "bind_expressions", "close"}
    assert inspection == {"variables", "full_value", "prompt_lines", "names", "evaluate_condition", "evaluate",
                          "execute"}
    assert issubclass(CodeRunner, CodeExecution) and issubclass(CodeRunner, CodeInspection)
    assert _methods(CodeRunner) == set()  # nothing of its own: exactly the two halves


def test_both_runners_offer_both_halves() -> None:
    thread, sandbox = ThreadRunner(), SandboxRunner()  # a sandbox worker starts only at its first request
    for runner in (thread, sandbox):
        assert isinstance(runner, CodeExecution) and isinstance(runner, CodeInspection)


def test_the_debugger_reads_the_namespace_through_the_inspection_half() -> None:
    reader = vars(Debugger)["_namespace"].fget
    assert get_type_hints(reader)["return"] is CodeInspection


def test_the_sandbox_constructor_has_no_test_switch() -> None:
    """Leaving a layer out is what the layer tests do (tests/sandbox/layers_off.py), not a production option."""
    parameters = inspect.signature(SandboxRunner).parameters
    assert [name for name in parameters if "test" in name or name.startswith("skip")] == []
