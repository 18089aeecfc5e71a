"""OpenTelemetry export keeps failures: a timed-out call is a span with its error and seconds, an episode
an evaluation gave up on exports from its aborted folder as an ERROR with the reason and its real
duration, chat spans carry their finish reason, and a finished run's root node is not PENDING.

Real parts: `recode-tui eval` and `export --otel`, the toy environment in eval's worker processes, the
real openai client against the local OpenAI-compatible server on 127.0.0.1, which stalls one episode.
"""

from __future__ import annotations

import json
import time

import pytest

from envs import registry
from mockllm.openai_server import OpenAICompatibleServer, write_profiles

from tests.eval.helpers import read_report, recode

pytest.importorskip("opentelemetry.sdk.trace")
pytestmark = pytest.mark.heavy  # eval starts environment workers in other processes

STATUS_ERROR, STATUS_UNSET = 2, 0
DEADLINE = 1.0  # the profile's one deadline per call


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


def attributes(span: dict) -> dict:
    found = {}
    for item in span["attributes"]:
        kind, value = next(iter(item["value"].items()))
        found[item["key"]] = (int(value) if kind == "intValue" else
                              [next(iter(v.values())) for v in value.get("values", [])] if kind == "arrayValue" else value)
    return found


def seconds(span: dict) -> float:
    return (int(span["endTimeUnixNano"]) - int(span["startTimeUnixNano"])) / 1e9


def test_a_stalled_episode_of_an_aborted_evaluation_exports_with_its_failure_and_time(tmp_path):
    code = "".join(f"run({a!r})\n" for a in registry.gold_actions("toy:key-1"))
    solved = f"<think>the known way</think><execute>\n{code}</execute>"

    def respond(prompt: str):
        if "take a coin." in prompt:  # coin-1's model stalls past the deadline (the server ends it later)
            time.sleep(DEADLINE * 3)
        return solved

    out = tmp_path / "stalled"
    with OpenAICompatibleServer(respond) as server:
        profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, max_retries=0, timeout=DEADLINE)
        stalled = recode(tmp_path, "eval", "--env", "toy", "--llm", "profile:local", "--profiles", str(profiles),
                         "--games", "key-1,coin-1", "-c", "1", "--out", str(out), "--no-progress")
    report = read_report(out)
    assert report["status"] == "aborted", stalled.stdout + stalled.stderr
    assert [e["game"] for e in report["episodes"]] == ["key-1"]  # the stalled one has no result, only its journal

    spans_file = tmp_path / "spans.json"
    exported = recode(tmp_path, "export", str(out), "--otel", str(spans_file))
    assert exported.returncode == 0, exported.stderr
    assert "of 2 episode(s)" in exported.stderr
    spans = json.loads(spans_file.read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    roots = {attributes(s)["recode.episode"]: s for s in spans if "parentSpanId" not in s}
    assert set(roots) == {"key-1", "coin-1"}

    stuck = roots["coin-1"]
    assert stuck["status"]["code"] == STATUS_ERROR and "aborted" in stuck["status"]["message"]
    assert attributes(stuck)["recode.reason"].startswith("aborted: ") and seconds(stuck) >= DEADLINE
    trace = [s for s in spans if s["traceId"] == stuck["traceId"]]
    failed = [s for s in trace if attributes(s).get("gen_ai.operation.name") == "chat"]
    assert failed and all(s["status"]["code"] == STATUS_ERROR for s in failed)
    assert all(attributes(s)["error.type"] == "LLMError" and seconds(s) >= DEADLINE * 0.9 for s in failed)
    assert "gave no answer within 1 s" in failed[0]["status"]["message"]

    won = roots["key-1"]
    assert won["status"].get("code", STATUS_UNSET) == STATUS_UNSET and seconds(won) > 0
    mine = [s for s in spans if s["traceId"] == won["traceId"]]
    chats = [attributes(s) for s in mine if attributes(s).get("gen_ai.operation.name") == "chat"]
    assert chats and all(c["gen_ai.response.finish_reasons"] == ["stop"] for c in chats)
    node_root = next(attributes(s) for s in mine if attributes(s).get("recode.node.id") == "n0")
    assert node_root["recode.node.status"] != "PENDING"
