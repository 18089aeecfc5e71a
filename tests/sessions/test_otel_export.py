"""`export --otel FILE`: a run as OpenTelemetry spans (GenAI conventions), one span per node in the tree's shape."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.sessions.journal_read import read_journal
from recode_tui.commands.cli import main
from tests.eval.helpers import run_main

pytest.importorskip("opentelemetry.sdk.trace")

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


def run_demo(tmp_path: Path) -> Path:
    """A real ReCode run of put-01 with the demo script (the command line's `main`, here); its session folder."""
    result = run_main(["run", "--game", "put-01", "--llm", "demo", "--quiet", "--sessions", str(tmp_path)],
                      dict(os.environ))
    assert result.returncode == 0, result.stderr
    return next(tmp_path.glob("*/journal.jsonl")).parent


@pytest.fixture(scope="module")
def demo_session(tmp_path_factory):
    folder = tmp_path_factory.mktemp("otel")
    return folder, run_demo(folder)


@pytest.mark.heavy  # the run plays ALFWorld with the sandbox worker
def test_a_recode_run_gives_one_span_per_node_in_the_trees_shape(demo_session, capsys):
    from agent.sessions.otel import finished_spans

    sessions, session = demo_session
    tree_file = sessions / "tree.json"
    assert main(["export", str(session), "--sessions", str(sessions), "--tree", "--exec", "-o", str(tree_file)]) == 0
    tree = json.loads(tree_file.read_text())  # the replayed run's real tree
    spans = finished_spans([read_journal(session)])  # built through the SDK, read back by its in-memory exporter
    by_id = {s.context.span_id: s for s in spans}
    [agent] = [s for s in spans if s.name == "invoke_agent recode"]
    assert agent.parent is None and agent.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert agent.attributes["recode.success"] is True and len({s.context.trace_id for s in spans}) == 1

    nodes = {s.attributes["recode.node.id"]: s for s in spans if "recode.node.id" in s.attributes}
    assert set(nodes) == set(tree["nodes"])  # one span per node
    parent_of = {child: parent for parent, child in tree["edges"]}
    for node_id, span in nodes.items():
        parent = by_id[span.parent.span_id]
        if node_id == tree["root_id"]:
            assert parent is agent
        else:
            assert parent.attributes["recode.node.id"] == parent_of[node_id]
        assert span.name.startswith(node_id) and span.start_time <= span.end_time

    chats = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "chat"]
    tools = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "execute_tool"]
    answers = [r for r in read_journal(session).records if r["type"] == "answer"]
    assert len(chats) == len(answers) == 4 and len(tools) == 7  # 4 LLM calls, 7 steps, as the run said
    assert sum(s.attributes["gen_ai.usage.input_tokens"] for s in chats) == agent.attributes["gen_ai.usage.input_tokens"]
    first_chat, first_tool = (min(group, key=lambda s: s.start_time) for group in (chats, tools))
    assert by_id[first_chat.parent.span_id].attributes["recode.node.id"] == tree["root_id"]  # the root's expansion
    assert first_tool.attributes["gen_ai.tool.call.arguments"] == "go to armchair 1"
    assert all(by_id[s.parent.span_id].attributes.get("recode.node.id") for s in chats + tools)  # under a node
    assert len(spans) == 1 + len(nodes) + len(chats) + len(tools)


@pytest.mark.heavy
def test_the_otel_file_is_otlp_json_with_hex_ids(demo_session, tmp_path, capsys):
    sessions, session = demo_session
    out = tmp_path / "spans.json"
    assert main(["export", str(session), "--sessions", str(sessions), "--otel", str(out)]) == 0
    assert "spans of 1 episode(s) to" in capsys.readouterr().err
    data = json.loads(out.read_text())
    [resource] = data["resourceSpans"]
    assert {"key": "service.name", "value": {"stringValue": "recode-tui"}} in resource["resource"]["attributes"]
    spans = resource["scopeSpans"][0]["spans"]
    ids = {s["spanId"] for s in spans}
    assert all(len(s["traceId"]) == 32 and len(s["spanId"]) == 16 for s in spans)
    int(spans[0]["traceId"], 16)  # hex, as OTLP/JSON asks (not protobuf's base64)
    roots = [s for s in spans if "parentSpanId" not in s]
    assert [r["name"] for r in roots] == ["invoke_agent recode"]
    assert all(s["parentSpanId"] in ids for s in spans if s not in roots)
    chat = next(s for s in spans if s["name"].startswith("chat "))
    attributes = {a["key"]: a["value"] for a in chat["attributes"]}
    assert chat["kind"] == 3 and attributes["gen_ai.operation.name"] == {"stringValue": "chat"}  # CLIENT
    assert int(attributes["gen_ai.usage.output_tokens"]["intValue"]) > 0


def test_without_the_sdk_the_export_says_how_to_install_it_and_core_never_imports_it(tmp_path, monkeypatch, capsys):
    session = tmp_path / "s1"
    session.mkdir()
    (session / "journal.jsonl").write_text(json.dumps({"type": "session", "version": "recode.journal.v1",
                                                       "created": 1.0, "game": "put-01", "agent": "recode"}) + "\n")
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)  # as if the extra were not installed
    assert main(["export", str(session), "--sessions", str(tmp_path), "--otel", str(tmp_path / "x.json")]) == 2
    assert capsys.readouterr().err.strip() == ("recode-tui: error: OpenTelemetry export needs the SDK: "
                                               "pip install 'recode-tui[otel]'")
    probe = ("import sys, agent.sessions.otel, agent.eval.batch, recode_tui.commands.cli, recode_tui.commands.export; "
             "print(any(m.startswith('opentelemetry') for m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip() == "False"


class Collector:
    """A local OTLP/HTTP endpoint: keeps each POSTed ExportTraceServiceRequest."""

    def __init__(self, status: int = 200) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        from mockllm.serving import BackgroundServer

        received = self.received = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                received.append((self.path, self.headers.get("Content-Type"), body))
                self.send_response(status)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.serving = BackgroundServer(self.httpd).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1/traces"


@pytest.mark.heavy
def test_otlp_sends_the_same_spans_to_an_endpoint(demo_session, capsys):
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    sessions, session = demo_session
    collector = Collector()
    try:
        assert main(["export", str(session), "--sessions", str(sessions), "--otlp", collector.url]) == 0
    finally:
        collector.serving.stop()
    [(path, kind, body)] = collector.received
    assert path == "/v1/traces" and kind == "application/x-protobuf"
    request = ExportTraceServiceRequest.FromString(body)
    names = [s.name for r in request.resource_spans for scope in r.scope_spans for s in scope.spans]
    assert names.count("invoke_agent recode") == 1 and sum(n.startswith("chat ") for n in names) == 4
    assert f"{len(names)} spans of 1 episode(s) to {collector.url}" in capsys.readouterr().err


@pytest.mark.heavy
def test_an_endpoint_that_refuses_the_spans_is_one_line(demo_session, capsys):
    sessions, session = demo_session
    collector = Collector(status=400)  # a client error: not retried
    try:
        assert main(["export", str(session), "--sessions", str(sessions), "--otlp", collector.url]) == 2
    finally:
        collector.serving.stop()
    assert capsys.readouterr().err.strip() == (
        f"recode-tui: error: the OTLP endpoint {collector.url} did not take the spans; check the URL "
        "(OTLP/HTTP, e.g. http://localhost:4318/v1/traces) and that the collector runs")
