"""Exported traces a tracing tool reads right: a lost episode is an ERROR with its reason, every span names
its provider, two evaluations of one game are two conversations, and spans take the journal's times."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.sessions.journal_read import read_journal
from recode_tui.commands.cli import main
from tests.eval.helpers import recode

pytest.importorskip("opentelemetry.sdk.trace")
pytestmark = pytest.mark.heavy  # evaluations with the sandbox worker and eval's worker processes

STATUS_ERROR = 2  # OTLP's STATUS_CODE_ERROR


def spans_of(folder: Path, out: Path) -> list[dict]:
    assert main(["export", str(folder), "--otel", str(out)]) == 0
    return json.loads(out.read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]


def attributes(span: dict) -> dict:
    """Attribute values as Python values (OTLP/JSON writes 64-bit integers as strings)."""
    found = {}
    for item in span["attributes"]:
        kind, value = next(iter(item["value"].items()))
        found[item["key"]] = int(value) if kind == "intValue" else value
    return found


GAME = "vase-1"
# three actions, then nothing left to expand: the episode is lost with its reason
THREE_ACTIONS = "<think>look around</think><execute>\nrun('look')\nrun('inventory')\nrun('look')\n</execute>"


@pytest.fixture(scope="module")
def two_evals(tmp_path_factory, toy_module):
    """Two evaluations of one game of the toy world (tests/toyenv): the traces are checked, not the engine."""
    tmp_path = tmp_path_factory.mktemp("traces")
    script = tmp_path / "three.jsonl"
    script.write_text(json.dumps({"stub": "*", "answer": THREE_ACTIONS}) + "\n")
    folders = [tmp_path / "first", tmp_path / "second"]
    for folder in folders:
        done = recode(tmp_path, "eval", "--env", "toy", "--llm", f"scripted:{script}", "--games", GAME, "-c", "1",
                      "--out", str(folder), "--no-progress")
        assert done.returncode == 0, done.stderr
    return tmp_path, folders


def test_a_lost_episode_is_an_error_with_its_reason_and_names_its_provider(two_evals, capsys):
    tmp_path, (first, _) = two_evals
    spans = spans_of(first, tmp_path / "first.json")
    [root] = [s for s in spans if "parentSpanId" not in s]
    assert root["status"]["code"] == STATUS_ERROR
    assert root["status"]["message"] == "no pending nodes left and the task is not done"
    chats = [s for s in spans if attributes(s).get("gen_ai.operation.name") == "chat"]
    assert chats and {attributes(s)["gen_ai.provider.name"] for s in [root, *chats]} == {"recode-tui.scripted"}


def test_two_evaluations_of_one_game_are_two_conversations_named_by_their_session(two_evals, capsys):
    tmp_path, folders = two_evals
    ids = []
    for index, folder in enumerate(folders):
        header = read_journal(folder / "journals" / GAME).header
        spans = spans_of(folder, tmp_path / f"{index}.json")
        conversations = {attributes(s).get("gen_ai.conversation.id") for s in spans
                         if attributes(s).get("gen_ai.operation.name") in ("invoke_agent", "chat")}
        assert conversations == {header.session_id}
        ids.append(header.session_id)
    assert ids[0] != ids[1] and GAME not in ids  # not the folder's name the two share


def test_spans_take_the_journals_times(two_evals, capsys):
    tmp_path, (first, _) = two_evals
    records = read_journal(first / "journals" / GAME).records
    spans = spans_of(first, tmp_path / "timed.json")
    tools = {attributes(s)["recode.step"]: s for s in spans if attributes(s).get("gen_ai.operation.name") == "execute_tool"}
    actions = [r for r in records if r["type"] == "action"]
    assert len(tools) == len(actions) == 3
    for record in actions:  # an action ends when its observation was journaled
        assert int(tools[record["step"]]["endTimeUnixNano"]) == int(record["at"] * 1e9)
    answers = [r for r in records if r["type"] == "answer"]
    chats = [s for s in spans if attributes(s).get("gen_ai.operation.name") == "chat"]
    assert sorted(int(s["endTimeUnixNano"]) for s in chats) == [int(r["at"] * 1e9) for r in answers]
    [root] = [s for s in spans if "parentSpanId" not in s]
    assert int(root["endTimeUnixNano"]) - int(root["startTimeUnixNano"]) >= int((actions[-1]["at"] - actions[0]["at"]) * 1e9)
