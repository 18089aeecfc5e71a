"""Breakpoints: the predicates on the event stream a `Debugger` stops at, and the text form people type (`stub NAME if x > 3`).

Apart from `agent.runtime.debugger`, which steps the agent and decides when
to stop: a breakpoint only says whether one event matches it. The debug
settings file and the console's breakpoint list use these alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from agent.llm import Purpose
from agent.runtime import events as ev
from agent.runtime.event_text import first_line


class BreakpointKind(str, Enum):
    EVERY_LLM_CALL = "every_stub"  # every LLM call but a repair; the value stays as debug.json files have it
    STUB_NAME = "stub_name"
    DEPTH_AT_LEAST = "depth_at_least"
    ACTION_REGEX = "action_regex"
    OBSERVATION_REGEX = "observation_regex"
    ANY_ERROR = "any_error"
    VALUE_CHANGED = "value_changed"  # gdb's watchpoint: an expression over the namespace changed value
    AGENT_NOTE = "agent_note"  # an agent's decision (AgentNote) whose label matches: a replan, a re-injection
    INVALID_ACTION = "invalid_action"  # an action the environment did not understand, or the agent refused


def invalid_action(event: ev.ObservationReceived) -> bool:
    """Whether the action was refused before it was sent, or the environment said it could not carry it
    out (its own `Env.is_invalid`, judged when the observation came)."""
    return event.refused or event.invalid


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass
class Breakpoint:
    """A predicate on the next event, with pudb's enabled flag, hit count and condition."""

    kind: BreakpointKind
    value: str = ""  # function name or regex, regex, or the depth as text
    enabled: bool = True
    condition: str = ""  # a Python expression evaluated against the namespace
    hit_count: int = 0
    number: int = 0

    def __post_init__(self) -> None:
        self.kind = BreakpointKind(self.kind)
        self._regex: re.Pattern[str] | None = None
        # value_changed: the value at the last check, as (fingerprint, what to show); None = not seen yet
        self.seen_value: tuple[str, str] | None = None
        # how `every LLM call` reads for the agent being debugged (`Stepper.traits.every_call_words`); set by the Debugger
        self.every_call = "every stub expansion"
        # the purpose of the agent's main call (`Stepper.traits.main_purpose`), which `stub NAME` matches; set by the Debugger
        self.main_purpose = ""
        if self.kind in (BreakpointKind.ACTION_REGEX, BreakpointKind.OBSERVATION_REGEX):
            if not self.value:
                raise ValueError(f"a {self.kind.value} breakpoint needs a regular expression")
            try:
                self._regex = re.compile(self.value, re.I)
            except re.error as exc:
                raise ValueError(f"bad regular expression {self.value!r}: {exc}") from None
        elif self.kind is BreakpointKind.STUB_NAME:
            if not self.value:
                raise ValueError("a stub_name breakpoint needs a function name or a regex")
            if not _IDENTIFIER.match(self.value):
                try:
                    self._regex = re.compile(self.value)
                except re.error as exc:
                    raise ValueError(f"bad regular expression {self.value!r}: {exc}") from None
        elif self.kind is BreakpointKind.AGENT_NOTE:
            try:  # the label, whole and in any case: `replan`, `re-injection`, `replan|re-injection`; none: any
                self._regex = re.compile(self.value or ".*", re.I)
            except re.error as exc:
                raise ValueError(f"bad regular expression {self.value!r}: {exc}") from None
        elif self.kind is BreakpointKind.DEPTH_AT_LEAST:
            try:
                if int(self.value) < 0:
                    raise ValueError
            except ValueError:
                raise ValueError(f"depth must be a whole number >= 0, not {self.value!r}") from None
        elif self.kind is BreakpointKind.VALUE_CHANGED:
            try:
                compile(self.value, "<watched>", "eval")
            except SyntaxError as exc:
                raise ValueError(f"`changes` needs a Python expression, not {self.value!r}: {exc.msg}") from None
        if self.condition:
            try:
                compile(self.condition, "<condition>", "eval")
            except SyntaxError as exc:
                raise ValueError(f"bad condition {self.condition!r}: {exc.msg}") from None

    @property
    def depth(self) -> int:
        return int(self.value) if self.kind is BreakpointKind.DEPTH_AT_LEAST else 0

    def describe(self) -> str:
        match self.kind:
            case BreakpointKind.EVERY_LLM_CALL:
                return self.every_call
            case BreakpointKind.STUB_NAME:
                return f"stub `{self.value}`" if self._regex is None else f"stub matching '{self.value}'"
            case BreakpointKind.DEPTH_AT_LEAST:
                return f"depth >= {self.value}"
            case BreakpointKind.ACTION_REGEX:
                return f"action matches '{self.value}'"
            case BreakpointKind.OBSERVATION_REGEX:
                return f"observation matches '{self.value}'"
            case BreakpointKind.ANY_ERROR:
                return "any error"
            case BreakpointKind.VALUE_CHANGED:
                return f"`{self.value}` changes"
            case BreakpointKind.AGENT_NOTE:
                return f"on {self.value}" if self.value else "on every agent decision"
            case BreakpointKind.INVALID_ACTION:
                return "an invalid action"
        return self.kind.value  # pragma: no cover

    def spec(self) -> str:
        """The text form `parse_breakpoint` reads back."""
        head = {
            BreakpointKind.EVERY_LLM_CALL: "every-stub",
            BreakpointKind.STUB_NAME: f"stub {self.value}",
            BreakpointKind.DEPTH_AT_LEAST: f"depth {self.value}",
            BreakpointKind.ACTION_REGEX: f"action {self.value}",
            BreakpointKind.OBSERVATION_REGEX: f"obs {self.value}",
            BreakpointKind.ANY_ERROR: "error",
            BreakpointKind.VALUE_CHANGED: f"changes {self.value}",
            BreakpointKind.AGENT_NOTE: f"note {self.value}".rstrip(),
            BreakpointKind.INVALID_ACTION: "invalid",
        }[self.kind]
        return f"{head} if {self.condition}" if self.condition else head

    def _is_main(self, event: ev.LLMRequested) -> bool:
        return bool(self.main_purpose) and event.purpose == self.main_purpose

    def match(self, event: ev.Event, stub_name: str) -> str | None:
        """What matched (a short text), or None. Ignores `enabled` and the condition."""
        match self.kind:
            case BreakpointKind.EVERY_LLM_CALL:  # every LLM call but a repair: the main calls (a stub's), any other
                if isinstance(event, ev.LLMRequested) and self._is_main(event):
                    return stub_name or "stub"
                if isinstance(event, ev.LLMRequested) and event.purpose != Purpose.REPAIR:
                    return f"{event.purpose} call of {event.node_id}"  # another agent's LLM call (ReAct's act)
            case BreakpointKind.STUB_NAME:
                if isinstance(event, ev.LLMRequested) and self._is_main(event) and stub_name:
                    if self._regex is None:
                        return stub_name if stub_name == self.value else None
                    return stub_name if self._regex.fullmatch(stub_name) else None
            case BreakpointKind.DEPTH_AT_LEAST:
                if isinstance(event, ev.NodeStarted) and event.depth >= self.depth:
                    return f"{first_line(event.code)} at depth {event.depth}"
            case BreakpointKind.ACTION_REGEX:
                if isinstance(event, ev.ActionSent) and self._regex and self._regex.search(event.action):
                    return event.action
            case BreakpointKind.OBSERVATION_REGEX:
                if (
                    isinstance(event, ev.ObservationReceived)
                    and self._regex
                    and self._regex.search(event.observation)
                ):
                    return first_line(event.observation, 80)
            case BreakpointKind.AGENT_NOTE:
                if isinstance(event, ev.AgentNote) and self._regex and self._regex.fullmatch(event.label):
                    return f"{event.label} at {event.node_id}: {first_line(event.text, 70)}"
            case BreakpointKind.INVALID_ACTION:
                if isinstance(event, ev.ObservationReceived) and invalid_action(event):
                    return f"{first_line(event.action, 40)} → {first_line(event.observation, 70)}"
            case BreakpointKind.ANY_ERROR:
                if isinstance(event, ev.NodeError):
                    return first_line(event.error, 80)
                if isinstance(event, ev.LLMRejected):
                    return f"expansion rejected: {first_line(event.reason, 70)}"
        return None


def parse_breakpoint(text: str) -> Breakpoint:
    """Read `stub NAME|REGEX`, `depth N`, `action REGEX`, `obs REGEX`, `error`, `invalid`, `every-stub`,
    `changes EXPRESSION`, `note LABEL` (an agent decision: `note replan`, `note re-injection`;
    the label matched whole, any case, as a regex), each optionally followed by ` if CONDITION`. Raises ValueError saying
    what is accepted."""
    text = text.strip()
    condition = ""
    head, sep, tail = text.partition(" if ")
    if sep:
        text, condition = head.strip(), tail.strip()
    word, _, rest = text.partition(" ")
    rest = rest.strip()
    kinds = {
        "stub": BreakpointKind.STUB_NAME,
        "name": BreakpointKind.STUB_NAME,
        "depth": BreakpointKind.DEPTH_AT_LEAST,
        "action": BreakpointKind.ACTION_REGEX,
        "act": BreakpointKind.ACTION_REGEX,
        "obs": BreakpointKind.OBSERVATION_REGEX,
        "observation": BreakpointKind.OBSERVATION_REGEX,
        "error": BreakpointKind.ANY_ERROR,
        "every-stub": BreakpointKind.EVERY_LLM_CALL,
        "every_stub": BreakpointKind.EVERY_LLM_CALL,
        "every-call": BreakpointKind.EVERY_LLM_CALL,
        "changes": BreakpointKind.VALUE_CHANGED,
        "note": BreakpointKind.AGENT_NOTE,
        "on": BreakpointKind.AGENT_NOTE,
        "invalid": BreakpointKind.INVALID_ACTION,
        "invalid-action": BreakpointKind.INVALID_ACTION,
    }
    kind = kinds.get(word.lower())
    if kind is None:
        raise ValueError(
            "use: stub NAME | depth N | action REGEX | obs REGEX | error | invalid (an invalid action) | "
            "every-stub (every-call) | changes EXPRESSION | "
            "note LABEL (replan, re-injection), "
            "optionally followed by `if CONDITION`"
        )
    return Breakpoint(kind, rest, condition=condition)
