"""Run generated and typed node code in a sandboxed worker process.

`SandboxRunner` (agent.sandbox.runner) implements `agent.runtime.runner.CodeRunner`;
`check_code` (agent.sandbox.checks) is the static check, usable on its own to
reject an LLM answer early. Imported lazily: the worker process imports this
package and must not pay for asyncio.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SandboxRunner", "SandboxError", "check_code"]


def __getattr__(name: str) -> Any:
    if name == "SandboxRunner":
        from agent.sandbox.runner import SandboxRunner

        return SandboxRunner
    if name == "SandboxError":
        from agent.sandbox.runner import SandboxError

        return SandboxError
    if name == "check_code":
        from agent.sandbox.checks import check_code

        return check_code
    raise AttributeError(name)
