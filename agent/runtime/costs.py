"""What a run's LLM calls cost, counted the same way for every agent: per call, per role, and as the run's totals.

Apart from `agent.runtime.stepper` so the accounting (tokens, money, the
model's and the person's seconds) is one small thing that `Stepper.ask`
feeds and `RunFinished`, the status line and the eval table read.
`agent.runtime.stepper` re-exports `RoleStats` and `Stats`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from agent.llm import Completion, Usage
from agent.runtime.events import LLMAnswered, LLMRejected
from agent.runtime.tree import LLMExchange

MAIN_ROLE = ""  # the role of an agent's one LLM (agents with several name theirs: planner, executor, ...)


@dataclass
class RoleStats:
    """One role's LLM use, so a planner and an executor are costed apart."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cost": round(self.cost, 6), "seconds": round(self.seconds, 3)}

    def add(self, completion: Completion) -> None:
        self.calls += 1
        self.input_tokens += completion.usage.input_tokens
        self.output_tokens += completion.usage.output_tokens
        self.cost += completion.cost
        self.seconds += completion.seconds or 0.0


@dataclass
class Stats:
    """What a run has cost so far: the status line, the eval table and `RunFinished` read it."""

    steps: int = 0
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    llm_seconds: float = 0.0
    person_seconds: float = 0.0
    llm_failures: int = 0
    roles: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class Tally:
    """A run's tokens: what models counted, or what scripts estimated when no model answered;
    never the two added (a scripted role's guesses would pass for a model's billed tokens)."""

    counted: Usage = field(default_factory=Usage)
    estimated: Usage = field(default_factory=Usage)

    def add(self, completion: Completion) -> Usage:
        """Count one answer; the run's tokens so far."""
        if completion.estimated:
            self.estimated = self.estimated + completion.usage
        else:
            self.counted = self.counted + completion.usage
        return self.counted if self.counted.input_tokens or self.counted.output_tokens else self.estimated


def timed(completion: Completion, elapsed: float) -> Completion:
    """Fill in how long an answer took, when its LLM did not say: a person's typing is person time."""
    if completion.seconds is not None:
        return completion
    if completion.source == "human":  # all of it is the person's: their own count when the front end gave one
        return replace(completion, seconds=0.0, person_seconds=completion.person_seconds or elapsed)
    return replace(completion, seconds=elapsed)


def exchange_record(prompt: str, completion: Completion, accepted: bool, purpose: str, reason: str = "") -> LLMExchange:
    """One LLM call as the node keeps it (its prompt, answer, verdict and counts)."""
    return LLMExchange(
        prompt=prompt,
        answer=completion.text,
        source=completion.source,
        accepted=accepted,
        reason=reason,
        input_tokens=completion.usage.input_tokens,
        output_tokens=completion.usage.output_tokens,
        cost=completion.cost,
        purpose=purpose,
        proposed=completion.proposed,
        seconds=completion.seconds or 0.0,
        person_seconds=completion.person_seconds,
    )


def answered_event(node_id: str, completion: Completion, *, thought: str, blocks: tuple[str, ...],
                   child_ids: tuple[str, ...], purpose: str = "", role: str = MAIN_ROLE) -> LLMAnswered:
    """The accepted-answer event for `completion`, with its counts and times."""
    return LLMAnswered(
        node_id, raw=completion.text, thought=thought, blocks=blocks, child_ids=child_ids,
        source=completion.source, input_tokens=completion.usage.input_tokens,
        output_tokens=completion.usage.output_tokens, cost=completion.cost, proposed=completion.proposed,
        seconds=completion.seconds or 0.0, person_seconds=completion.person_seconds, purpose=purpose, role=role,
        cached=completion.cached, cut_at=completion.cut_at, estimated=completion.estimated,
    )


def rejected_event(node_id: str, completion: Completion, reason: str, *, attempt: int, purpose: str = "",
                   role: str = MAIN_ROLE) -> LLMRejected:
    """The refused-answer event for `completion`, with what it cost: a refused answer was paid for too."""
    return LLMRejected(
        node_id, raw=completion.text, reason=reason, attempt=attempt, source=completion.source,
        proposed=completion.proposed, seconds=completion.seconds or 0.0, person_seconds=completion.person_seconds,
        role=role, cached=completion.cached, input_tokens=completion.usage.input_tokens,
        output_tokens=completion.usage.output_tokens, cost=completion.cost, purpose=purpose, cut_at=completion.cut_at,
        estimated=completion.estimated,
    )


__all__ = ["MAIN_ROLE", "RoleStats", "Stats", "Tally", "answered_event", "exchange_record", "rejected_event",
           "timed"]
