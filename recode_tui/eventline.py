"""One readable line per engine event, for the headless command line and logs."""

from __future__ import annotations

from agent import events as ev


def _short(text: str, width: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def event_line(event: ev.Event) -> str:
    node = f"[{event.node_id}]" if event.node_id else ""
    match event:
        case ev.RunStarted():
            return f"task: {event.task}  (type: {event.task_type or '?'})"
        case ev.NodeStarted():
            return f"{'  ' * event.depth}▶ {node} {_short(event.code, 80)}"
        case ev.ActionSent():
            return f"    > {event.action}"
        case ev.ObservationReceived():
            return f"      {_short(event.observation)}"
        case ev.VariablesChanged():
            names = ", ".join(f"{c.name}" for c in event.changes)
            return f"    vars: {_short(names, 90)}"
        case ev.NodeCompleted():
            return f"    ✓ {node} completed"
        case ev.StubFound():
            return f"    ◆ {node} stub `{event.name}` at depth {event.depth}"
        case ev.ExpansionRequested():
            extra = f" (attempt {event.attempt})" if event.attempt > 1 else ""
            return f"    ? {node} {event.purpose} requested{extra}, prompt {len(event.prompt)} chars"
        case ev.ExpansionReceived():
            return f"    + {node} {len(event.blocks)} child node(s) from {event.source} in {event.seconds:.2f} s"
        case ev.ExpansionRejected():
            return f"    ✗ {node} answer rejected: {event.reason}"
        case ev.NodeSkipped():
            return f"    · {node} skipped (empty expansion)"
        case ev.NodeError():
            return f"    ! {node} error: {_short(event.error)}"
        case ev.RunFinished():
            verdict = "SUCCESS" if event.success else "FAILED"
            return (
                f"{verdict}: {event.reason} | steps {event.steps} | LLM calls {event.llm_calls} "
                f"({event.llm_seconds:.1f} s) | tokens {event.input_tokens}+{event.output_tokens} | cost ${event.cost:.4f}"
            )
    return f"{event.kind} {node}"
