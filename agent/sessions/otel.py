"""Sessions and evaluations as OpenTelemetry spans, for trace viewers (the `[otel]` extra).

The spans follow the OpenTelemetry GenAI semantic conventions:

- one `invoke_agent {agent}` span per episode (`gen_ai.operation.name` = invoke_agent),
- under it, the run's tree as parent-child spans, one per node (ReCode's plan nodes, a
  ReAct turn, a CodeAct cell, a plan step or subtask), named by the node's first code line,
- under each node, a `chat {model}` span per LLM call (`gen_ai.usage.input_tokens` /
  `output_tokens`, the prompt and the answer as `gen_ai.input.messages` / `output.messages`),
  and an `execute_tool {env}` span per environment action (the action and its observation).

They are read from a journal's records alone (nothing is run, so any journal exports safely).
Each record carries `at`, when it was written: an LLM call ends at its record and lasts its
recorded seconds; an action runs from the record before it to its own; a node spans its
children. Journals written before records were timed are laid end to end from the journal's
start instead (an LLM call its recorded seconds, an action 1 ms).

The episode's span is `gen_ai.conversation.id` = the journal's session id (unique per run,
even for two evaluations of one game), `gen_ai.provider.name` = who answered (`openai` for a
profile: the OpenAI-compatible API; `recode-tui.demo`, `.scripted`, ... for the offline LLMs),
and a failed episode's span has status ERROR with the reason it lost.

The OpenTelemetry SDK builds and exports the spans: the OTLP/HTTP exporter for `--otlp URL`,
and for `--otel FILE` the SDK's own OTLP encoder, written as OTLP JSON (the protobuf JSON
mapping with hex trace and span ids, as the OTLP/JSON spec asks). Nothing here imports the
SDK until a function is called; `require_sdk` says in one line how to install it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from agent.sessions.journal_read import Journal
from agent.sessions.old_values import UNRECORDED_PURPOSE
from agent.runtime.tree import Node

SERVICE = "recode-tui"
ACTION_SECONDS = 0.001  # journals do not time actions
MIN_SECONDS = 0.000001


class OtelError(RuntimeError):
    """The export cannot be made (the `[otel]` extra is missing, the endpoint refused); one line saying what to do."""


def require_sdk() -> None:
    """Import the SDK or raise OtelError with the one command that installs it."""
    try:
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError:
        raise OtelError("OpenTelemetry export needs the SDK: pip install 'recode-tui[otel]'") from None


@dataclass
class _Timed:
    """A span to be: its name, attributes and times (seconds since the epoch), its children, and an
    error description when it failed."""

    name: str
    attributes: dict[str, Any]
    start: float = 0.0
    end: float = 0.0
    children: list["_Timed"] = field(default_factory=list)
    error: str | None = None


def conversation_id(journal: Journal) -> str:
    """The journal's session id: recorded in its header; for an older journal, its folder and start time."""
    if journal.header.session_id:
        return journal.header.session_id
    return f"{journal.session_id}-{journal.header.created:.0f}"


def provider_name(spec: str) -> str:
    """`gen_ai.provider.name` for one LLM spec: `openai` for a profile (the OpenAI-compatible API the
    client speaks), `recode-tui.<kind>` for the offline ones, the routed parts joined with `+`."""
    from agent.llm.routing import RoleError, split_spec

    try:
        split = split_spec(spec)
    except RoleError:
        split = None
    if split is not None:
        parts = [p for p in ([split[0]] if split[0] else []) + list(split[1].values())]
        return "+".join(dict.fromkeys(provider_name(p) for p in parts))
    kind = spec.split(":", 1)[0]
    return "openai" if kind == "profile" else f"recode-tui.{kind or 'unknown'}"


def _first_line(code: str) -> str:
    return next((line.strip() for line in code.splitlines() if line.strip()), "")[:80]


def _node_span(node: Node) -> _Timed:
    return _Timed(
        f"{node.id} {_first_line(node.code)}".strip(),
        {"recode.node.id": node.id, "recode.node.code": node.code, "recode.node.status": node.status.value,
         "recode.node.depth": node.depth, **({"recode.node.thought": node.thought} if node.thought else {})},
    )


@dataclass(frozen=True)
class Ended:
    """How an episode whose journal has no `finished` record ended, as its evaluation says (the
    evaluation stopped, or gave the episode up at its wall clock): the reason, and its seconds when known."""

    reason: str
    seconds: float | None = None


def episode_spans(journal: Journal, ended: Ended | None = None) -> _Timed:
    """The span tree of one journal: invoke_agent, the nodes under it, their calls (failed ones too) and
    actions. `ended`: how the episode ended when its journal does not say (an aborted evaluation's)."""
    from agent.sessions.journal_view import read_view

    view = read_view(journal)
    header = journal.header
    agent_name = view.agent
    spec = header.run.model.llm
    model = header.run.model.model or model_name(spec, header.run.model.profiles)
    env = header.run.env.name
    finished = journal.finished or {}
    conversation, provider = conversation_id(journal), provider_name(spec)
    root = _Timed(f"invoke_agent {agent_name}", {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent_name, "gen_ai.request.model": model,
        "gen_ai.provider.name": provider, "gen_ai.conversation.id": conversation, "recode.llm": spec,
        "recode.session": journal.session_id, "recode.env": env,
        "recode.episode": header.episode or header.game,
        "recode.task_type": header.task_type or "", "recode.task": view.task,
        "recode.success": bool(finished.get("success")),
        "recode.reason": str(finished.get("reason") or (ended.reason if ended else "unfinished")),
    })
    if finished and not finished.get("success"):
        root.error = str(finished.get("reason") or "the task was not done")
    elif not finished and ended is not None:
        root.error = ended.reason
    spans: dict[str, _Timed] = {}

    def build(node: Node, parent: _Timed) -> None:
        if finished:
            _settle(node, bool(finished.get("success")))
        span = _node_span(node)
        spans[node.id] = span
        parent.children.append(span)
        for child in node.children:
            build(child, span)

    build(view.tree.root, root)
    clock = latest = header.created
    inputs = outputs = 0
    for record in journal.records:
        kind = record.get("type")
        owner = spans.get(str(record.get("node_id") or "")) or spans[view.tree.root.id]
        stamp = record.get("at")  # when the record was written; None: an older journal, or out of order
        at = float(stamp) if isinstance(stamp, (int, float)) and not isinstance(stamp, bool) and stamp >= clock else None
        latest = max(latest, at or 0.0)
        if kind == "answer":
            seconds = max(float(record.get("seconds") or 0.0), MIN_SECONDS)
            start, end = (max(clock, at - seconds), at) if at is not None else (clock, clock + seconds)
            used_in, used_out = int(record.get("input_tokens") or 0), int(record.get("output_tokens") or 0)
            inputs, outputs = inputs + used_in, outputs + used_out
            owner.children.append(_Timed(f"chat {model}", {
                "gen_ai.operation.name": "chat", "gen_ai.request.model": model, "gen_ai.provider.name": provider,
                "gen_ai.conversation.id": conversation,
                "gen_ai.usage.input_tokens": used_in, "gen_ai.usage.output_tokens": used_out,
                "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [
                    {"type": "text", "content": str(record.get("prompt") or "")}]}]),
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                    {"type": "text", "content": str(record.get("answer") or "")}]}]),
                "recode.purpose": str(record.get("purpose") or UNRECORDED_PURPOSE), "recode.accepted": bool(record.get("accepted")),
                "recode.source": str(record.get("source") or ""), "recode.cost": float(record.get("cost") or 0.0),
                "recode.cached": bool(record.get("cached")),
                "gen_ai.response.finish_reasons": ["length" if record.get("cut_at") is not None else "stop"],
                **({"recode.cut_at": int(record["cut_at"])} if record.get("cut_at") is not None else {}),
                **({"recode.reason": str(record["reason"])} if record.get("reason") else {}),
                **({"recode.role": record["role"]} if record.get("role") else {}),
            }, start, end))
            clock = end
        elif kind == "llm_failed":  # no answer came: the call still took its seconds, and says why it failed
            seconds = max(float(record.get("seconds") or 0.0), MIN_SECONDS)
            start, end = (max(clock, at - seconds), at) if at is not None else (clock, clock + seconds)
            error = str(record.get("error") or "the LLM call failed")
            owner.children.append(_Timed(f"chat {model}", {
                "gen_ai.operation.name": "chat", "gen_ai.request.model": model, "gen_ai.provider.name": provider,
                "gen_ai.conversation.id": conversation, "error.type": "LLMError", "recode.error": error,
                "recode.attempt": int(record.get("attempt") or 1),
                **({"recode.role": record["role"]} if record.get("role") else {}),
            }, start, end, error=error))
            clock = end
        elif kind == "action":
            start, end = (clock, at) if at is not None else (clock, clock + ACTION_SECONDS)
            owner.children.append(_Timed(f"execute_tool {env}", {
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": env,
                "gen_ai.tool.call.arguments": str(record.get("action") or ""),
                "gen_ai.tool.call.result": str(record.get("observation") or ""),
                "recode.step": int(record.get("step") or 0),
            }, start, end))
            clock = end
        elif at is not None:  # any other timed record moves the clock on (a statement, an LLM failure)
            clock = at
    root.attributes.update({"gen_ai.usage.input_tokens": inputs, "gen_ai.usage.output_tokens": outputs})
    _span_children(root, header.created)
    # the episode lasts from its start to its last record (or as long as its evaluation says it ran),
    # never 0 s: a run that failed before any answer still waited on its calls
    until = max(root.end, latest, clock, header.created + (ended.seconds or 0.0 if ended else 0.0))
    root.start, root.end = header.created, max(until, header.created + MIN_SECONDS)
    return root


def _settle(node: Node, success: bool) -> None:
    """A finished run's node still PENDING that ran (the root, a node below which something happened) is
    done: COMPLETED, or ERROR for a lost run's root. Nodes the run never reached stay PENDING."""
    from agent.runtime.tree import NodeStatus

    if node.status is not NodeStatus.PENDING:
        return
    def reached(below: Node) -> bool:
        return any(c.status is not NodeStatus.PENDING or reached(c) for c in below.children)

    if node.parent is None:
        node.status = NodeStatus.COMPLETED if success else NodeStatus.ERROR
    elif reached(node):
        node.status = NodeStatus.COMPLETED


def model_name(spec: str, profiles: Any) -> str:
    """The model a `profile:NAME` spec called, when the journal names the user's own default profiles
    file (a path from a journal is never opened otherwise); else the spec itself (`demo`,
    `scripted:FILE`, a routed spec, `profile:NAME`), which is what answered."""
    if not spec.startswith("profile:") or not profiles:
        return spec
    from agent.sessions.model_record import profile_model, profiles_in_use

    own = profiles_in_use(spec, None)
    if own is None or str(profiles) != own:
        return spec
    return profile_model(spec, own) or spec


def _span_children(span: _Timed, floor: float) -> None:
    """A node without its own times spans its children (one with none starts and ends at `floor`)."""
    for child in span.children:
        _span_children(child, floor)
    if span.end <= 0.0:
        timed = [c for c in span.children if c.end > 0.0]
        span.start = min((c.start for c in timed), default=floor)
        span.end = max((c.end for c in timed), default=floor)
        for child in span.children:  # children laid out before any timing are placed at the start
            if child.end < span.start:
                child.start = child.end = span.start
        span.end = max(span.end, span.start + MIN_SECONDS)


def emit(episodes: Iterable[_Timed], tracer: Any) -> int:
    """Start and end every span through an SDK tracer, each episode its own trace; the count of spans."""
    from opentelemetry import trace

    count = 0

    def one(span: _Timed, parent: Any) -> None:
        nonlocal count
        context = trace.set_span_in_context(parent) if parent is not None else None
        made = tracer.start_span(span.name, context=context, attributes=span.attributes,
                                 start_time=int(span.start * 1e9), kind=_kind(span))
        if span.error is not None:
            made.set_status(trace.Status(trace.StatusCode.ERROR, span.error))
        count += 1
        for child in span.children:
            one(child, made)
        made.end(end_time=int(span.end * 1e9))

    for episode in episodes:
        one(episode, None)
    return count


def _kind(span: _Timed) -> Any:
    from opentelemetry.trace import SpanKind

    return SpanKind.CLIENT if span.attributes.get("gen_ai.operation.name") == "chat" else SpanKind.INTERNAL


def provider_with(exporter: Any) -> Any:
    """A tracer provider of service `recode-tui` that hands each ended span to `exporter` at once."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": SERVICE}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def otlp_json(spans: Any) -> dict[str, Any]:
    """Finished SDK spans as an OTLP/JSON ExportTraceServiceRequest (hex ids, integer enums)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    data = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    for resource in data.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if span.get(key):
                        span[key] = _hex(span[key])
                for link in span.get("links", []):
                    for key in ("traceId", "spanId"):
                        if link.get(key):
                            link[key] = _hex(link[key])
    return data


def _hex(b64: str) -> str:
    import base64

    return base64.b64decode(b64).hex()


def finished_spans(journals: list[Journal], ended: dict[str, Ended] | None = None) -> Any:
    """The journals' spans, built and ended through the SDK, as its ReadableSpans. `ended`: by journal
    folder, how an episode ended that its journal does not say (`Ended`)."""
    require_sdk()
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    memory = InMemorySpanExporter()
    provider = provider_with(memory)
    emit((episode_spans(j, (ended or {}).get(str(j.folder))) for j in journals), provider.get_tracer(SERVICE))
    provider.shutdown()
    return memory.get_finished_spans()


def export_file(journals: list[Journal], path: str | Path, ended: dict[str, Ended] | None = None) -> int:
    """Write the journals' spans to `path` as OTLP JSON (trace viewers import it); the count of spans."""
    spans = finished_spans(journals, ended)
    Path(path).write_text(json.dumps(otlp_json(spans)), encoding="utf-8")
    return len(spans)


def export_endpoint(journals: list[Journal], url: str, ended: dict[str, Ended] | None = None) -> int:
    """Send the journals' spans to an OTLP/HTTP endpoint (`http://host:4318/v1/traces`); the count of spans.
    OtelError when the endpoint does not take them."""
    require_sdk()
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.trace.export import SpanExportResult
    except ImportError:
        raise OtelError("--otlp needs the OTLP exporter: pip install 'recode-tui[otel]'") from None
    import logging

    spans = finished_spans(journals, ended)
    exporter = OTLPSpanExporter(endpoint=url, timeout=10)
    quiet = logging.getLogger("opentelemetry.exporter")  # its retry warnings: the one line below says it all
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    try:
        result = exporter.export(spans)
    finally:
        exporter.shutdown()
        quiet.setLevel(level)
    if result is not SpanExportResult.SUCCESS:
        raise OtelError(f"the OTLP endpoint {url} did not take the spans; check the URL "
                              "(OTLP/HTTP, e.g. http://localhost:4318/v1/traces) and that the collector runs")
    return len(spans)
