"""A prompt written by parts, as a person edits, checks, tries and saves it: the seam between an agent whose
prompt is made that way (ReCode's expand template) and the front ends that show it (the console's prompt
workspace, `W`; `recode-tui prompt show --stub`).

The agent offers its `PromptParts` as `traits.prompt_workspace` (None: it has none); the front ends call
it and hold the records below, and import no agent's package. What a prompt set is, and how a draft of
one is hashed and kept in memory, is the runtime's (`agent.runtime.prompts`, `DraftPromptSet` here).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from agent.llm import CallContext
from agent.runtime.prompts import PromptContext, PromptSet, env_digest
from agent.runtime.runner import CodeRunner


@dataclass(frozen=True)
class RenderedPrompt:
    """The exact prompt the agent would send, and the text of each part of it, in the prompt's order."""

    text: str
    parts: dict[str, str]


@dataclass(frozen=True)
class ExampleCheck:
    """The verdict on one few-shot example of a file."""

    index: int  # 1-based position in the file
    line: int
    function: str
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def check_summary(checks: list[ExampleCheck]) -> str:
    """One line for a file list: `3 examples ok` or `1 of 3 examples flagged`."""
    bad = sum(not c.ok for c in checks)
    if not checks:
        return "no examples"
    return f"{len(checks)} examples ok" if not bad else f"{bad} of {len(checks)} examples flagged"


@dataclass(frozen=True)
class ExamplePlay:
    """How the examples of a file did when played as a plan on one game."""

    game: str
    won: bool
    reason: str  # the run's end reason: "won", "step limit reached ...", "LLM error: ..."
    steps: int
    llm_calls: int
    actions: tuple[str, ...] = ()

    def summary(self) -> str:
        """One line for a file list: `wins put-01 in 9 steps` or why not."""
        if self.won:
            return f"examples win {self.game} in {self.steps} steps"
        return f"examples do not win {self.game}: {self.reason}"


class PromptSetError(Exception):
    """A prompt set cannot be saved or read; the message says what to do."""


@dataclass
class DraftPromptSet(PromptSet):
    """A prompt set whose files may be replaced by edited texts held in memory.

    Its content hash is computed exactly like `PromptSet.content_hash` over the
    files as they would be saved, so a saved copy has the same hash.
    """

    edits: dict[str, str] = field(default_factory=dict)

    def optional(self, relative: str) -> str | None:
        if relative in self.edits:
            return self.edits[relative]
        return super().optional(relative)

    def files(self) -> dict[str, bytes]:
        """Every file of the set as it would be saved: relative path -> bytes."""
        found: dict[str, bytes] = {}
        if self.root.is_dir():
            for path in self.root.rglob("*"):
                if path.is_file() and "__pycache__" not in path.parts:
                    found[path.relative_to(self.root).as_posix()] = path.read_bytes()
        for relative, text in self.edits.items():
            found[relative] = text.encode("utf-8")
        return found

    def content_hash(self) -> str:
        digest = hashlib.sha256()
        files = self.files()
        for relative in sorted(files, key=Path):
            digest.update(str(Path(relative)).encode())
            digest.update(files[relative])
        env_digest(digest)
        return digest.hexdigest()[:12]

    @property
    def changed(self) -> list[str]:
        """The edited files whose text differs from the folder's."""
        return [r for r, t in self.edits.items() if t != PromptSet(self.root).optional(r)]


class PromptParts(Protocol):
    """What an agent whose prompt is written by parts offers the front ends that edit it."""

    helpers: frozenset[str]  # the names an answer may read without binding them (a new answer's check)

    def render(self, prompts: PromptSet, env_name: str, task_type: str | None, code: str,
               variable_lines: list[str], context: PromptContext | None = None) -> RenderedPrompt:
        """The prompt the agent would send for the node of `code`, part by part."""
        ...

    def recorded_variables(self, prompt: str, prompts: PromptSet, env_name: str, task_type: str | None,
                           code: str) -> list[str] | None:
        """The variable lines a recorded prompt was built with, or None if it was built differently."""
        ...

    def recorded_context(self, prompt: str, prompts: PromptSet, env_name: str, task_type: str | None,
                         code: str) -> dict[str, str]:
        """The context fields' texts a recorded prompt shows; {} when none."""
        ...

    def variable_lines(self, stub: str, values: dict[str, Any]) -> list[str]:
        """Variable lines for a stub outside a run (`prompt show --stub`)."""
        ...

    def call_arguments(self, code: str, name: str) -> tuple[str, ...]:
        """The names the call `name(...)` in `code` passes: the prompt lists them as variables."""
        ...

    def call_context(self, code: str, stub_name: str) -> CallContext:
        """What a call asked for the node of `code` says about itself (a re-ask from the workspace)."""
        ...

    def check_examples(self, text: str) -> list[ExampleCheck]:
        """Each few-shot example of a file held to the standard of a live answer."""
        ...

    def answer_diff(self, recorded: str, candidate: str) -> list[str]:
        """A unified diff of two answers (empty when they do the same)."""
        ...

    async def play_examples(self, text: str, episode_ref: str, env_name: str, prompts: PromptSet,
                            walls_of: CodeRunner) -> ExamplePlay:
        """The examples of a file played as the answers of a run on `episode_ref`, in a sandbox with the walls
        and layers `walls_of` (the run's runner) was built with (slow: a worker's job)."""
        ...

    def editable_files(self, prompts: PromptSet, env_name: str) -> list[str]:
        """What a person edits of the set, in order."""
        ...

    def examples_file(self, env_name: str, task_type: str | None) -> str | None:
        """The few-shot file of a task type (None: no task type)."""
        ...

    def save(self, draft: DraftPromptSet, name: str, prompts_dir: Path) -> Path:
        """Write the whole set to `<prompts_dir>/<name>/`; `PromptSetError` says why it cannot."""
        ...

    def default_set_name(self, prompts: PromptSet) -> str:
        """A name to offer when saving."""
        ...
