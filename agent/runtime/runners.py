"""Where every engine gets its code runner and its checks: one place.

Run, console, eval, resume, fork and the prompt workspace all build their
runner from `RunnerSettings`, so no path runs model code without the
sandbox's checks because someone forgot to pass a runner. Model code always
runs in the sandboxed worker process; `trusted` only drops the static checks
(process isolation and limits stay). The in-process `ThreadRunner` is for the
engine's own tests and is never built here.

A session's journal header records the settings (`header_fields`); resuming
rebuilds them from there, except trust: a journal can only make a resume
trusted if the user asks again (`--trusted`), so a journal written by an old
version (which recorded an unchecked in-process runner as trusted) or an
edited one cannot switch the checks off.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DEFAULT_NODE_TIMEOUT = 5.0

@dataclass(frozen=True)
class RunnerSettings:
    """How node code runs: with or without the static checks, and each node's time limit."""

    trusted: bool = False
    node_timeout: float = DEFAULT_NODE_TIMEOUT

    def __post_init__(self) -> None:
        if not self.node_timeout > 0:
            raise ValueError("--node-timeout must be more than 0 seconds")

    def make_runner(self) -> Any:
        """A fresh sandboxed runner (its worker starts at the first node)."""
        from agent.sandbox import SandboxRunner

        return SandboxRunner(trusted=self.trusted, node_timeout=self.node_timeout)

    def header_fields(self) -> dict[str, Any]:
        """What a journal header records about the runner."""
        return {"runner": "SandboxRunner", "trusted": self.trusted, "node_timeout": self.node_timeout}

    @classmethod
    def of_runner(cls, runner: Any) -> "RunnerSettings | None":
        """The settings a runner was built with; None for a runner not built here (tests' ThreadRunner)."""
        if type(runner).__name__ != "SandboxRunner":
            return None
        return cls(trusted=bool(runner.trusted), node_timeout=float(runner.node_timeout))

    @classmethod
    def for_resume(cls, header: dict[str, Any], trusted: bool = False) -> tuple["RunnerSettings", str]:
        """The settings to replay a recorded session with, and a note when they differ from the recording.

        The node time limit comes from the header; trust only from the caller.
        """
        try:
            timeout = float(header.get("node_timeout", DEFAULT_NODE_TIMEOUT))
        except (TypeError, ValueError):
            timeout = DEFAULT_NODE_TIMEOUT
        settings = cls(trusted=trusted, node_timeout=timeout if timeout > 0 else DEFAULT_NODE_TIMEOUT)
        recorded_unchecked = header.get("runner") == "ThreadRunner" or bool(header.get("trusted", False))
        note = ""
        if recorded_unchecked and not trusted:
            how = "in-process without checks" if header.get("runner") == "ThreadRunner" else "with --trusted"
            note = (f"this session was recorded {how}; it replays in the sandbox with the checks "
                    "(pass --trusted to run its code without them)")
        return settings, note

