"""What the stepper reports after each smallest unit of work.

Every event is a frozen dataclass with a `kind` string, so a UI can dispatch on
type or on kind, and a journal can serialise it with `dataclasses.asdict`.
Each carries what a viewer needs without reaching back into the agent.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True)
class Event:
    kind: ClassVar[str] = "event"
    node_id: str | None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["kind"] = self.kind
        return data


@dataclass(frozen=True)
class RunStarted(Event):
    """The environment was reset and the root node created."""

    kind: ClassVar[str] = "run_started"
    task: str = ""
    instruction: str = ""
    observation: str = ""
    task_type: str | None = None


@dataclass(frozen=True)
class NodeStarted(Event):
    kind: ClassVar[str] = "node_started"
    code: str = ""
    depth: int = 0


@dataclass(frozen=True)
class ActionSent(Event):
    """A `run(action)` call reached the agent; the environment has not stepped yet."""

    kind: ClassVar[str] = "action_sent"
    action: str = ""
    step: int = 0  # the environment step this action will be (1-based)
    line: int = 0  # the line of the node's code that called run() (0: unknown)


@dataclass(frozen=True)
class ObservationReceived(Event):
    kind: ClassVar[str] = "observation_received"
    action: str = ""
    observation: str = ""
    step: int = 0
    done: bool = False
    won: bool = False
    refused: bool = False  # never sent: the agent refused it (too long); `observation` says why
    invalid: bool = False  # sent, and the environment answered it could not carry it out (`Env.is_invalid`)


@dataclass(frozen=True)
class VariableChange:
    name: str
    type: str
    summary: str
    change: str  # "new", "changed" or "removed"


@dataclass(frozen=True)
class VariablesChanged(Event):
    kind: ClassVar[str] = "variables_changed"
    changes: tuple[VariableChange, ...] = ()


@dataclass(frozen=True)
class NodeCompleted(Event):
    kind: ClassVar[str] = "node_completed"
    output: str = ""
    seconds: float = 0.0  # the node's own running time
    restore_seconds: float = 0.0  # bringing the namespace back into a fresh worker, not the node's time


@dataclass(frozen=True)
class StubFound(Event):
    kind: ClassVar[str] = "stub_found"
    name: str = ""
    code: str = ""
    depth: int = 0


@dataclass(frozen=True)
class LLMRequested(Event):
    """An LLM call is about to be made (any agent): `purpose` says what for, `role` by whom.

    Each agent names its purposes (`agent.llm.Purpose`, or its own word); the one of its main
    call is `Stepper.traits.main_purpose`, and '' reads as that. The
    role is "" for an agent's one LLM, else e.g. "planner" or "executor".
    A breakpoint on every LLM call and the person-as-LLM editor key on this.
    """

    kind: ClassVar[str] = "llm_requested"
    prompt: str = ""
    attempt: int = 1  # 1 for the first ask, 2.. after rejections
    purpose: str = ""  # what the call is for: a `Purpose` or the agent's own word ('' : its main call)
    role: str = ""


@dataclass(frozen=True)
class LLMAnswered(Event):
    """An LLM call was answered and the answer accepted (any agent); `child_ids` are the nodes
    it made (ReCode's children, a turn, a cell, plan steps, subtasks)."""

    kind: ClassVar[str] = "llm_answered"
    raw: str = ""
    thought: str = ""
    blocks: tuple[str, ...] = ()
    child_ids: tuple[str, ...] = ()
    source: str = ""  # "human", "scripted", "model", "model+edited"
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    proposed: str | None = None  # review mode: the model's proposal before the person decided
    seconds: float = 0.0  # how long the model took to answer (a person's typing is `person_seconds`)
    person_seconds: float = 0.0  # a person's time on this answer: typing it, or reviewing a proposal
    purpose: str = ""  # what the call was for ("" in journals from before the agent seam: expand)
    role: str = ""
    cached: bool = False  # the answer came from the response cache, not a model call
    cut_at: int | None = None  # the model's max_tokens cut it; `raw` is the part the agent could use
    cut_rest: str = ""  # ... and this is what followed that part up to the cut (what made the answer run long)
    estimated: bool = False  # the tokens are a script's estimate, not a model's count


@dataclass(frozen=True)
class LLMRejected(Event):
    """An LLM answer was refused (any agent); the call is asked again with the reason.

    A refused answer was paid for like an accepted one: its tokens and cost are here, so a
    journal, a trace and an export count every billed token once."""

    kind: ClassVar[str] = "llm_rejected"
    raw: str = ""
    reason: str = ""
    attempt: int = 1
    source: str = ""
    proposed: str | None = None
    seconds: float = 0.0
    person_seconds: float = 0.0
    role: str = ""
    cached: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    purpose: str = ""  # what the call was for (as its request said)
    cut_at: int | None = None  # the model's max_tokens cut it before it ended
    estimated: bool = False  # the tokens are a script's estimate, not a model's count


@dataclass(frozen=True)
class LLMFailed(Event):
    """The LLM could not answer. The next `step()` asks again (with `agent.llm`,
    which the caller may have switched); a batch run ends here instead."""

    kind: ClassVar[str] = "llm_failed"
    error: str = ""
    attempt: int = 1
    seconds: float = 0.0  # how long the failed call took
    role: str = ""
    retry: bool = True  # False: asking again at once cannot help (the call's one deadline passed)


@dataclass(frozen=True)
class NodeSkipped(Event):
    """The expansion of a stub was empty: the stub is marked SKIP."""

    kind: ClassVar[str] = "node_skipped"


@dataclass(frozen=True)
class NodeError(Event):
    kind: ClassVar[str] = "node_error"
    code: str = ""
    error: str = ""
    output: str = ""
    seconds: float = 0.0  # the node's own running time (a timeout: its limit)
    restore_seconds: float = 0.0  # bringing the namespace back after the kill, not the node's time


@dataclass(frozen=True)
class StatementRun(Event):
    """The person ran a statement at a stop (the console's `!`).

    It changed the namespace from outside the node code, so the journal keeps
    it and a replay runs it again after the same number of agent events.
    """

    kind: ClassVar[str] = "statement_run"
    code: str = ""
    value: str = ""  # an expression's value, as shown
    changes: tuple[VariableChange, ...] = ()
    after: int = 0  # how many agent events came before it


@dataclass(frozen=True)
class RunFinished(Event):
    kind: ClassVar[str] = "run_finished"
    success: bool = False
    reason: str = ""
    steps: int = 0
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    llm_seconds: float = 0.0  # waiting for answers, all calls together
    person_seconds: float = 0.0  # a person typing or reviewing answers: kept apart from the model's time
    llm_failures: int = 0  # model calls that failed (each one is journaled)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AgentNote(Event):
    """Something an agent decided that is not an LLM call or an action: a plan adopted,
    a replan, a subtask returning to its parent. `label` is short; `text` the detail."""

    kind: ClassVar[str] = "agent_note"
    label: str = ""
    text: str = ""
