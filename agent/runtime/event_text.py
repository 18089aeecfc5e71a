"""One way to describe an agent event, in a short and a log form.

`short(event, main)` is the phrase a person reads: the console's stop line, the
debugger's pause reasons. `log_line(event)` is the same phrase for a
scrolling log (`recode-tui run` output, the plain mode): indented by what it
belongs to, led by a marker, with the measurements a log keeps (time, prompt
size, depth). The phrase inside is the short form, so an event reads the same
in every front end. The end of a run is the one exception in shape: its log
line leads with `SUCCESS:` / `FAILED:`, which scripts look for.

UI-free: plain strings, no Textual, no prompt-toolkit.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.llm import Purpose
from agent.runtime import events as ev
from agent.runtime.safe_text import for_terminal


@dataclass(frozen=True)
class MainCall:
    """How an agent's main LLM call reads in an event's phrase: its purpose (`Stepper.traits.main_purpose`) and the
    agent's noun for an answer (`AnswerWords.noun`: ReCode's "expansion"). A call of that purpose, or of
    none stated, reads "NOUN of NODE"; any other call reads by its own purpose ("act of n1")."""

    purpose: str = ""
    noun: str = "answer"


def first_line(text: str, width: int = 60) -> str:
    """The first line of `text`, cut at `width`; ` …` marks lines left out."""
    line = text.strip().split("\n", 1)[0]
    more = "\n" in text.strip()
    if len(line) > width:
        return line[: width - 1] + "…"
    return line + (" …" if more else "")


def finish_verdict(event: ev.RunFinished, won: str, failed: str) -> str:
    """`won` alone when the reason only says so ("episode won", not "episode won: won"), else `verdict: reason`."""
    verdict = won if event.success else failed
    return verdict if event.reason in ("", "won") else f"{verdict}: {event.reason}"


def _totals(event: ev.RunFinished) -> str:
    return f"{event.steps} steps, {event.llm_calls} LLM calls"


def short(event: ev.Event, main: MainCall = MainCall()) -> str:
    """The event as one phrase for a person (the console's stop line), in the words of the agent's `main` call.

    Model and environment text in it is escaped (`agent.runtime.safe_text`): one line, no terminal controls.
    """
    return for_terminal(_phrase(event, main), newlines=False)


def _phrase(event: ev.Event, main: MainCall) -> str:
    node = event.node_id
    match event:
        case ev.RunStarted():
            return f"run started: {event.task}"
        case ev.NodeStarted():
            return f"node {node} starts: {first_line(event.code)}"
        case ev.ActionSent():
            return f"action {event.step}: {event.action}"
        case ev.ObservationReceived():
            return f"observation {event.step}: {first_line(event.observation, 70)}"
        case ev.VariablesChanged():
            return "variables changed: " + ", ".join(c.name for c in event.changes[:6])
        case ev.NodeCompleted():
            return f"node {node} completed"
        case ev.StubFound():
            return f"stub `{event.name}` found in {node}"
        case ev.LLMRequested():
            extra = f" (attempt {event.attempt})" if event.attempt > 1 else ""
            return f"{event.purpose} of {node} requested{extra}"
        case ev.LLMAnswered() if event.purpose not in ("", main.purpose, Purpose.REPAIR):  # a call of its own purpose
            got = first_line(event.blocks[0], 60) if len(event.blocks) == 1 else f"{len(event.blocks)} item(s)"
            # ReAct's turn, CodeAct's cell: asked on the new child, reported on its parent (the task)
            # so trees add it there; the log names the turn the call was for, as its request did
            asked = event.child_ids[0] if event.purpose == Purpose.ACT and not event.role and len(event.child_ids) == 1 \
                else node
            return f"{event.purpose} of {asked} answered by {event.source}: {got}"
        case ev.LLMAnswered():
            return f"{main.noun} of {node}: {len(event.blocks)} child node(s) from {event.source}"
        case ev.LLMRejected():  # in the words of its request: CodeAct's cell is an `act`, not an expansion
            call = main.noun if event.purpose in ("", main.purpose) else str(event.purpose)
            return f"{call} of {node} rejected: {event.reason}"
        case ev.LLMFailed():
            again = f" (attempt {event.attempt})" if event.attempt > 1 else ""
            return f"LLM failed on {node}{again}: {event.error}"
        case ev.NodeSkipped():
            return f"node {node} skipped (empty expansion)"
        case ev.NodeError():
            return f"node {node} error: {first_line(event.error, 80)}"
        case ev.StatementRun():
            shown = f" → {first_line(event.value, 60)}" if event.value else ""
            changed = f" (changed {', '.join(c.name for c in event.changes[:6])})" if event.changes else ""
            return f"! {first_line(event.code, 60)}{shown}{changed}"
        case ev.RunFinished():
            return f"{finish_verdict(event, 'episode won', 'episode failed')} — {_totals(event)}"
        case ev.AgentNote():  # an agent's decision: a plan adopted, a replan, a re-injection
            return f"{event.label} at {node}: {first_line(event.text, 70)}"
    return f"{event.kind} {node or ''}".rstrip()


def log_line(event: ev.Event, main: MainCall = MainCall()) -> str:
    """The event as one line of a scrolling log: the short phrase, a marker, and what a log keeps.

    Safe to print: no terminal controls, no lone surrogates (the end's reason may span lines).
    """
    return for_terminal(_log_line(event, main), newlines=isinstance(event, ev.RunFinished))


def _log_line(event: ev.Event, main: MainCall) -> str:
    text = short(event, main)
    match event:
        case ev.RunStarted():
            return f"{text}  (type: {event.task_type or '?'})"
        case ev.NodeStarted():
            return f"{'  ' * event.depth}▶ {text}"
        case ev.ActionSent():
            return f"    > {text}"
        case ev.ObservationReceived():  # whole: a log is read to act on it (the stop line cuts at 70)
            whole = " / ".join(line.strip() for line in event.observation.strip().splitlines() if line.strip())
            return f"      observation {event.step}: {whole}"
        case ev.VariablesChanged():
            return f"    {text}"
        case ev.NodeCompleted():
            return f"    ✓ {text}"
        case ev.StubFound():
            return f"    ◆ {text} at depth {event.depth}"
        case ev.LLMRequested():
            return f"    ? {text}, prompt {len(event.prompt)} chars"
        case ev.LLMAnswered():
            return f"    + {text} in {event.seconds:.2f} s"
        case ev.LLMRejected():
            return f"    ✗ {text}"
        case ev.LLMFailed():
            return f"    ! {text}"
        case ev.NodeSkipped():
            return f"    · {text}"
        case ev.NodeError():
            return f"    ! {text}"
        case ev.RunFinished():
            verdict = "SUCCESS" if event.success else "FAILED"
            return (
                f"{verdict}: {event.reason or verdict.lower()} — {_totals(event)} | LLM time {event.llm_seconds:.1f} s"
                f" | tokens {event.input_tokens}+{event.output_tokens} | cost ${event.cost:.4f}"
            )
    return f"    {text}"
