"""Breakpoints and step modes over the agent's event stream.

A `Debugger` wraps an agent (a `Stepper`) and turns its one-event-at-a-time `step()` into
the commands of a debugger: *next* (one event), *into* (the next action or
node start: stops between the actions of a loop), *over* (finish the current
node and its subtree), *out* (finish the parent) and *continue*. Every mode is
"step until a predicate holds on the event just produced"; all of them also
stop on an enabled breakpoint, when a human LLM must write an expansion, when
the LLM fails (the next step asks `agent.host.llm` again, so the caller may switch
it first), when the run ends, and when a pause was requested.

No UI imports: the console drives this from a worker and shows what it returns.
The breakpoints themselves (kinds, matching, the typed text form) are in
`agent.runtime.breakpoints`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from enum import Enum
from typing import Any, Callable

from agent.llm import LLM, Purpose, asked_before, is_interactive
from agent.runtime import events as ev
from agent.runtime.event_text import first_line
from agent.runtime.event_text import MainCall
from agent.runtime.event_text import short as short_event_text
from agent.runtime.breakpoints import Breakpoint, BreakpointKind
from agent.runtime.runner import CodeInspection
from agent.runtime.stepper import Stepper

__all__ = ["Debugger", "StepMode", "Stop", "StopReason", "describe_event"]


class StepMode(str, Enum):
    NEXT = "next"
    INTO = "into"
    OVER = "over"
    OUT = "out"
    CONTINUE = "continue"


# After these events code may have run since the last check, so a watched value may differ.
_NAMESPACE_MAY_CHANGE = (ev.ActionSent, ev.VariablesChanged, ev.NodeError)


@dataclass(frozen=True)
class StopReason:
    """Why a step command stopped, as one line for the person."""

    kind: str  # "step", "breakpoint", "human", "llm_error", "finished", "paused", "condition_error"
    text: str
    breakpoint: int | None = None

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Stop:
    event: ev.Event
    reason: StopReason
    events: int = 0  # how many agent events this command consumed


_first_line = first_line


def describe_event(event: ev.Event, main: MainCall = MainCall()) -> str:
    """A short human description of one event: `agent.runtime.event_text.short`, shared with the log lines."""
    return short_event_text(event, main)


# Events `into` stops at: the start of a node, each single action, and every
# point where the plan itself changes.
_INTO_STOPS = (
    ev.NodeStarted,
    ev.ActionSent,
    ev.StubFound,
    ev.LLMRequested,
    ev.LLMAnswered,
    ev.NodeError,
    ev.RunFinished,
)


class Debugger:
    """Step an agent by commands; stop on breakpoints, the human, the end or a pause."""

    def __init__(
        self,
        agent: Stepper,
        breakpoints: list[Breakpoint] | None = None,
        on_event: Callable[[ev.Event], Any] | None = None,
    ) -> None:
        self.agent = agent
        self.on_event = on_event
        self.breakpoints: list[Breakpoint] = []
        self._next_number = 1
        for bp in breakpoints if breakpoints is not None else [Breakpoint(BreakpointKind.EVERY_LLM_CALL)]:
            bp.seen_value = None  # a value seen under another agent says nothing about this one
            self._number(bp)
        self.last_event: ev.Event | None = None
        self.last_stop: Stop | None = None
        self.stopped_at: float | None = None  # when the last stop was shown (a person answering from there)
        self.events_seen = 0
        self.stub_name = ""  # the function name of the most recent stub
        self.running = False
        self._pause = False
        self._until: str | None = None  # run to here: the node whose start ends the command

    @property
    def _main_call(self) -> MainCall:
        """How the agent's main call reads on the stop line (ReCode: "expansion of n0 rejected")."""
        return MainCall(self.agent.traits.main_purpose, self.agent.traits.answer_words.noun)

    @property
    def _namespace(self) -> CodeInspection:
        """What conditions and watches read: the runner's inspection half (the debugger runs no node code)."""
        return self.agent.runner

    # -- breakpoints -----------------------------------------------------------

    def _number(self, bp: Breakpoint) -> Breakpoint:
        bp.every_call, bp.main_purpose = self.agent.traits.every_call_words, self.agent.traits.main_purpose
        bp.number = self._next_number
        self._next_number += 1
        self.breakpoints.append(bp)
        return bp

    def add_breakpoint(self, kind: BreakpointKind | str, value: str = "", condition: str = "") -> Breakpoint:
        """Add one; raises ValueError with the reason for a bad regex, depth or condition."""
        return self._number(Breakpoint(BreakpointKind(kind), str(value), condition=condition))

    def add(self, bp: Breakpoint) -> Breakpoint:
        return self._number(bp)

    def breakpoint(self, number: int) -> Breakpoint | None:
        return next((b for b in self.breakpoints if b.number == number), None)

    def remove_breakpoint(self, number: int) -> bool:
        bp = self.breakpoint(number)
        if bp is not None:
            self.breakpoints.remove(bp)
        return bp is not None

    def toggle_breakpoint(self, number: int) -> bool | None:
        bp = self.breakpoint(number)
        if bp is None:
            return None
        bp.enabled = not bp.enabled
        bp.seen_value = None  # a change watch starts again from the value when it is next run
        return bp.enabled

    def find_breakpoint(self, kind: BreakpointKind | str, value: str = "") -> Breakpoint | None:
        kind = BreakpointKind(kind)
        return next((b for b in self.breakpoints if b.kind is kind and b.value == value), None)

    # -- state -----------------------------------------------------------------

    @property
    def human(self) -> bool:
        """Whether the LLM of the call at hand (its role's) is a person answering through `submit`."""
        return is_interactive(self.current_llm())

    def current_llm(self) -> LLM:
        """The LLM that answers the call the run is stopped at: the role of that request, else the main one."""
        event = self.last_event
        role = event.role if isinstance(event, (ev.LLMRequested, ev.LLMFailed)) else ""
        return self.agent.host.llm_for(role)

    @property
    def done(self) -> bool:
        return self.agent.host.done

    @property
    def awaiting_human(self) -> bool:
        """The run is stopped at an LLMRequested that a person must answer."""
        return (
            self.human
            and isinstance(self.last_event, (ev.LLMRequested, ev.LLMFailed))
            and not self.agent.host.done
        )

    def resume_at(self, event: ev.Event) -> None:
        """A reopened run stands at `event` (the last one replayed): the next command starts there,
        and a person asked there is timed from now."""
        self.last_event = event
        self.stopped_at = time.monotonic()

    def request_pause(self) -> None:
        """Ask a running command to stop after the event in progress."""
        if self.running:
            self._pause = True

    # -- stepping ----------------------------------------------------------------

    async def _advance(self) -> ev.Event:
        event = await self.agent.step()
        if not isinstance(event, ev.StatementRun):  # a replayed `!` line does not move the run
            self.last_event = event
        self.events_seen += 1
        if isinstance(event, ev.StubFound):
            self.stub_name = event.name
        elif isinstance(event, ev.NodeError):
            self.stub_name = ""
        if self.on_event is not None:
            self.on_event(event)
        return event

    def _anchor(self, mode: StepMode) -> str | None:
        """The node whose subtree `over`/`out` finishes."""
        if self.last_event is None or self.last_event.node_id is None:
            return None
        node = self.agent.tree.nodes.get(self.last_event.node_id)
        if node is None:
            return None
        if mode is StepMode.OUT:
            return node.parent.id if node.parent is not None else "<root>"
        return node.id

    def _inside(self, node_id: str | None, anchor: str) -> bool:
        if anchor == "<root>":
            return True
        node = self.agent.tree.nodes.get(node_id or "")
        while node is not None:
            if node.id == anchor:
                return True
            node = node.parent
        return False

    async def _watched(self, expression: str, *, fingerprint: bool) -> str:
        """The expression's value now: a fingerprint to compare, or a short text to show.

        An error is a value too, so an unbound name becoming bound is a change.
        """
        try:
            if fingerprint:
                return (await self._namespace.evaluate(f"hash(repr(({expression})))"))[1]
            return _first_line((await self._namespace.evaluate(expression))[1], 60)
        except Exception as exc:  # noqa: BLE001 - "NameError: name 'obj' is not defined" is what it is now
            return f"<{_first_line(str(exc) or type(exc).__name__, 80)}>"

    async def _take_baselines(self) -> None:
        """Before a command runs: note the value of every change watch that has not been seen yet."""
        for bp in self.breakpoints:
            if bp.kind is BreakpointKind.VALUE_CHANGED and bp.enabled and bp.seen_value is None:
                bp.seen_value = (await self._watched(bp.value, fingerprint=True),
                                 await self._watched(bp.value, fingerprint=False))

    async def _value_changes(self, event: ev.Event) -> dict[int, str]:
        """Breakpoint number -> `old → new`, for every enabled change watch whose value differs now.

        All of them are brought up to date at each event that may follow code, so
        one hit does not leave another watch to report the same change later.
        """
        if not isinstance(event, _NAMESPACE_MAY_CHANGE):
            return {}
        changed: dict[int, str] = {}
        for bp in self.breakpoints:
            if bp.kind is not BreakpointKind.VALUE_CHANGED or not bp.enabled:
                continue
            now = await self._watched(bp.value, fingerprint=True)
            before = bp.seen_value
            if before is not None and before[0] == now:
                continue
            shown = await self._watched(bp.value, fingerprint=False)
            bp.seen_value = (now, shown)
            if before is not None:
                changed[bp.number] = f"{before[1]} → {shown}"
        return changed

    async def _breakpoint_hit(self, event: ev.Event) -> StopReason | None:
        changes = await self._value_changes(event)
        for bp in self.breakpoints:
            if not bp.enabled:
                continue
            if bp.kind is BreakpointKind.VALUE_CHANGED:
                what = changes.get(bp.number)
            else:
                what = bp.match(event, self.stub_name)
            if what is None:
                continue
            if bp.condition:
                try:
                    holds = await self._namespace.evaluate_condition(bp.condition)
                except Exception as exc:  # noqa: BLE001 - a bad condition stops, like pudb
                    bp.hit_count += 1
                    return StopReason(
                        "condition_error",
                        f"breakpoint {bp.number}: condition `{bp.condition}` raised "
                        f"{type(exc).__name__}: {exc} — {what}",
                        bp.number,
                    )
                if not holds:
                    continue
            bp.hit_count += 1
            cond = f" if {bp.condition}" if bp.condition else ""
            return StopReason("breakpoint", f"breakpoint {bp.number}: {bp.describe()}{cond} — {what}", bp.number)
        return None

    def _human_reason(self, event: ev.LLMRequested) -> StopReason:
        node = self.agent.tree.nodes.get(event.node_id or "")
        code = _first_line(node.code) if node else ""
        main = event.purpose in ("", self.agent.traits.main_purpose)
        what = self.agent.traits.answer_words.noun if main else event.purpose  # a repair, or another of its calls
        attempt = f" (attempt {event.attempt})" if event.attempt > 1 else ""
        return StopReason("human", f"awaiting your {what} of {event.node_id} `{code}`{attempt}")

    async def step(self, mode: StepMode | str = StepMode.NEXT) -> Stop:
        """Run until the mode's predicate, a breakpoint, the human, the end, or a pause."""
        mode = StepMode(mode)
        if self.agent.host.done:
            assert self.agent.host.finished is not None
            return self._remember(Stop(self.agent.host.finished, self._finished_reason(self.agent.host.finished)))
        if self.awaiting_human:
            assert isinstance(self.last_event, ev.LLMRequested)
            return Stop(self.last_event, self._human_reason(self.last_event))
        anchor = self._anchor(mode) if mode in (StepMode.OVER, StepMode.OUT) else None
        self._pause = False
        self.running = True
        count = 0
        try:
            await self._take_baselines()
            while True:
                event = await self._advance()
                count += 1
                reason = await self._stop_reason(event, mode, anchor)
                if reason is not None:
                    return self._remember(Stop(event, reason, count))
                if self._pause:
                    return self._remember(
                        Stop(event, StopReason("paused", f"paused after {count} event(s) — {describe_event(event, self._main_call)}"), count)
                    )
                await asyncio.sleep(0)  # let a UI on the same loop breathe
        finally:
            self.running = False
            self._pause = False

    async def run_until(self, node_id: str) -> Stop:
        """gdb's `until`: continue until `node_id` starts (a breakpoint, the person or the end may come first)."""
        self._until = node_id
        try:
            return await self.step(StepMode.CONTINUE)
        finally:
            self._until = None

    async def _stop_reason(self, event: ev.Event, mode: StepMode, anchor: str | None) -> StopReason | None:
        if isinstance(event, ev.RunFinished):
            return self._finished_reason(event)
        if self._until is not None and isinstance(event, ev.NodeStarted) and event.node_id == self._until:
            return StopReason("step", f"ran to here: {describe_event(event, self._main_call)}")
        if isinstance(event, ev.LLMFailed):  # stepping on would ask the failing LLM again at once
            return self._llm_failed_reason(event)
        hit = await self._breakpoint_hit(event)
        if hit is not None:
            return hit
        if self.human and isinstance(event, ev.LLMRequested):
            return self._human_reason(event)
        if mode is StepMode.NEXT:
            return StopReason("step", describe_event(event, self._main_call))
        if mode is StepMode.INTO and isinstance(event, _INTO_STOPS):
            return StopReason("step", describe_event(event, self._main_call))
        if mode in (StepMode.OVER, StepMode.OUT):
            if anchor is None or not self._inside(event.node_id, anchor):
                return StopReason("step", describe_event(event, self._main_call))
        return None

    @staticmethod
    def _llm_failed_reason(event: ev.LLMFailed) -> StopReason:
        return StopReason("llm_error", short_event_text(event))

    @staticmethod
    def _finished_reason(event: ev.RunFinished) -> StopReason:
        return StopReason("finished", short_event_text(event))

    def _remember(self, stop: Stop) -> Stop:
        self.last_stop = stop
        self.stopped_at = time.monotonic()  # a person answering from here: their time starts now
        return stop

    async def submit(self, text: str) -> Stop:
        """Hand the person's expansion to the agent and step until it is taken or refused.

        Returns at the LLMAnswered (accepted), at the next LLMRequested
        (refused by the agent: the reason is in the StopReason), or at RunFinished.
        """
        if not self.awaiting_human:
            raise RuntimeError("no LLM call is awaiting an answer")
        llm = self.current_llm()
        if not is_interactive(llm):
            raise RuntimeError(f"the call is answered by {llm.name}, not by a person")
        self.running = True
        count = 0
        rejected = ""
        try:
            task = asyncio.ensure_future(self._advance())
            if await asked_before(llm, task):
                # The run was stopped while the person typed: their time runs from that stop, not from the call.
                since = self.stopped_at
                llm.submit(text, person_seconds=None if since is None else time.monotonic() - since)
            event = await task
            count += 1
            while True:
                if isinstance(event, ev.RunFinished):
                    return self._remember(Stop(event, self._finished_reason(event), count))
                if isinstance(event, ev.LLMFailed):
                    return self._remember(Stop(event, self._llm_failed_reason(event), count))
                if isinstance(event, ev.LLMRejected):
                    rejected = event.reason
                elif isinstance(event, ev.LLMRequested):
                    return self._remember(
                        Stop(event, StopReason("human", f"expansion refused: {rejected} — write it again"), count)
                    )
                elif isinstance(event, ev.LLMAnswered):
                    if event.purpose in ("", self.agent.traits.main_purpose, Purpose.REPAIR):  # its children
                        what = f"{len(event.blocks)} child node(s)" if event.blocks else "empty: the stub is skipped"
                        text = f"expansion accepted: {what}"
                    else:  # another agent's call: what the answer does
                        text = f"{event.purpose} answer accepted: " + ("; ".join(event.blocks)[:80] or "no action")
                    return self._remember(Stop(event, StopReason("step", text), count))
                event = await self._advance()
                count += 1
        finally:
            self.running = False
