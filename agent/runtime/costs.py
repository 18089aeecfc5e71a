"""What a run's LLM calls cost, counted the same way for every agent: per call, per role, and as the run's totals.

Apart from `agent.runtime.stepper` so the accounting (tokens, money, the
model's and the person's seconds, failed calls, refused actions) is one
object, `Stats`, that `Stepper.ask` and the action path feed and
`RunFinished`, the status line and the export read.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from agent.llm import Completion, Usage
from agent.runtime.events import LLMAnswered, LLMRejected, RunFinished
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
class Tally:
    """A run's tokens: what models counted, or what scripts estimated when no model answered;
    never the two added (a scripted role's guesses would pass for a model's billed tokens)."""

    counted: Usage = field(default_factory=Usage)
    estimated: Usage = field(default_factory=Usage)

    def add(self, completion: Completion) -> None:
        """Count one answer."""
        if completion.estimated:
            self.estimated = self.estimated + completion.usage
        else:
            self.counted = self.counted + completion.usage

    @property
    def usage(self) -> Usage:
        """The run's tokens so far: the models' count, else the scripts' estimate."""
        return self.counted if self.counted.input_tokens or self.counted.output_tokens else self.estimated


@dataclass
class Stats:
    """What a run has cost so far, counted as it happens (`Stepper.ask` and the action path feed it):
    the status line, the export and `RunFinished` read it."""

    llm_calls: int = 0
    cost: float = 0.0
    llm_seconds: float = 0.0  # waiting for answers, all calls together (failed and timed-out ones too)
    person_seconds: float = 0.0  # a person typing or reviewing answers, kept apart from llm_seconds
    llm_failures: int = 0  # model calls that raised LLMError
    refused_actions: int = 0  # actions refused as too long: they take no step, so they are capped apart
    roles: dict[str, RoleStats] = field(default_factory=dict)  # by role, so a planner and an executor cost apart
    tally: Tally = field(default_factory=Tally)

    @property
    def usage(self) -> Usage:
        """The run's tokens, as the tally counts them."""
        return self.tally.usage

    def add(self, completion: Completion, role: str = MAIN_ROLE) -> None:
        """Count one answer (accepted or refused: both were paid for)."""
        self.llm_calls += 1
        self.tally.add(completion)
        self.cost += completion.cost
        self.llm_seconds += completion.seconds or 0.0
        self.person_seconds += completion.person_seconds
        self.roles.setdefault(role, RoleStats()).add(completion)

    def failed(self, seconds: float, role: str = MAIN_ROLE) -> None:
        """Count one call that raised LLMError: no answer and no tokens, but the wait was model time."""
        self.llm_failures += 1
        self.llm_seconds += seconds
        self.roles.setdefault(role, RoleStats()).seconds += seconds

    def role_dicts(self) -> dict[str, dict[str, Any]]:
        """Each role's counts as the journal and the export store them (the main role as "main")."""
        return {role or "main": stats.to_dict() for role, stats in self.roles.items()}

    def finished(self, node_id: str | None, success: bool, reason: str, steps: int) -> RunFinished:
        """The run's last event with these counts; an agent with several roles has each one costed apart."""
        extra: dict[str, Any] = {"roles": self.role_dicts()} if set(self.roles) - {MAIN_ROLE} else {}
        return RunFinished(
            node_id, success=success, reason=reason, steps=steps, llm_calls=self.llm_calls,
            input_tokens=self.usage.input_tokens, output_tokens=self.usage.output_tokens, cost=self.cost,
            llm_seconds=self.llm_seconds, person_seconds=self.person_seconds, llm_failures=self.llm_failures,
            extra=extra,
        )


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
        cached=completion.cached, cut_at=completion.cut_at, cut_rest=completion.cut_rest,
        estimated=completion.estimated,
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
