"""The environment protocol the ReCode engine drives.

Kept tiny on purpose: the engine only needs to start an episode, send one
primitive action at a time, and know when the episode is over. Everything an
environment offers the prompt (its action list, few-shot examples) lives in
prompt sets, not here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Reset:
    """The start of an episode: the task sentence and the rest of the first observation."""

    instruction: str
    observation: str
    raw: str


@runtime_checkable
class Env(Protocol):
    """A text environment played one primitive action at a time.

    `reset` and `step` may block (ALFWorld takes 0.5-1 s to reset, ~70 ms a
    step); callers on an event loop run them in a thread.
    """

    name: str
    task_type: str | None
    max_steps: int

    def reset(self) -> Reset: ...

    def step(self, action: str) -> str: ...

    @property
    def done(self) -> bool: ...

    @property
    def won(self) -> bool: ...

    @property
    def steps(self) -> int: ...

    def close(self) -> None: ...


class EnvError(Exception):
    """An environment could not be created or loaded (bad game id, unreadable file)."""


@dataclass(frozen=True)
class Episode:
    """One playable episode of an environment, as a list shows it."""

    env: str
    id: str
    task_type: str | None
    task: str

    @property
    def ref(self) -> str:
        """The id that names this episode with no `--env` given."""
        return f"{self.env}:{self.id}"
