"""Whether two runs were asked with different prompts: the prompt set's hash, the files, the first call.

Two runs can send the same actions and get the same answers from a model that
ignores its prompt (every offline LLM does) while their prompt sets differ; a
diff must say so before it calls them the same.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from agent.eval.prompt_files import PromptFileChange, header_changes
from agent.eval.rundiff.runs import Run


@dataclass(frozen=True)
class PromptDifference:
    """How two runs' prompts differ; `differ` is False when they do not (or the agents differ by design)."""

    hash_a: str | None
    hash_b: str | None
    files: list[PromptFileChange] = field(default_factory=list)
    first_call: int | None = None  # the first LLM call (1-based) whose two prompts differ
    first_diff: list[str] = field(default_factory=list)  # that call's prompt diff

    @property
    def differ(self) -> bool:
        return bool(self.files) or (self.hash_a is not None and self.hash_b is not None and self.hash_a != self.hash_b)

    @property
    def unused(self) -> bool:
        """The prompt sets differ, yet every prompt the two runs sent was the same: no prompt of these
        runs used a changed file (an example of another task type), so the change was never tried."""
        return self.differ and self.first_call is None

    def to_dict(self) -> dict[str, object]:
        return {"differ": self.differ, "hash": {"a": self.hash_a, "b": self.hash_b},
                "files": [f.to_dict() for f in self.files], "first_call": self.first_call, "unused": self.unused,
                "first_call_diff": self.first_diff}


def prompt_difference(a: Run, b: Run) -> PromptDifference:
    """Compare the runs' prompt sets (same agent only: two agents' prompts differ by design)."""
    hash_a, hash_b = a.header.run.prompts.hash, b.header.run.prompts.hash
    if a.agent != b.agent:
        return PromptDifference(None, None)
    found = PromptDifference(str(hash_a) if hash_a else None, str(hash_b) if hash_b else None,
                             header_changes(a.header, b.header))
    if not found.differ:
        return found
    for call_a, call_b in zip(a.calls, b.calls):
        if call_a.prompt != call_b.prompt:
            return PromptDifference(found.hash_a, found.hash_b, found.files, call_a.number,
                                    _unified(call_a.prompt, call_b.prompt))
    return found


def _unified(before: str, after: str) -> list[str]:
    return [line.rstrip("\n") for line in difflib.unified_diff(
        before.splitlines(), after.splitlines(), fromfile="A prompt", tofile="B prompt", n=2, lineterm="")]
