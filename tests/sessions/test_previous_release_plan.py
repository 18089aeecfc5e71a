"""Files the 0.1.0 release wrote still open, resume and read in today's words.

The fixtures were recorded by the 0.1.0 code (`run --game put-01 --llm demo`, then `export --tree`)
in a checkout at a path this machine does not have. That release stored a node answered by an
LLM call as "STUB", as the `recode.plan.v1` format still does; the code's name is `NodeStatus.AWAITING_LLM`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent.runtime.prompts import DEFAULT_PROMPTS
from agent.runtime.tree import CodeTree, NodeStatus
from agent.sessions.export import tree_from_document
from agent.sessions.journal_read import JOURNAL_FILE, read_journal
from recode_tui.commands.cli import main

pytestmark = pytest.mark.usefixtures("node_code_in_process")  # in-process: old files' reading is the subject

FIXTURES = Path(__file__).parent / "fixtures"
JOURNAL = FIXTURES / "release_0.1.0_put-01.jsonl"
PLAN = FIXTURES / "release_0.1.0_put-01.plan.json"


def _shape(tree: CodeTree) -> list[tuple[str, str, NodeStatus, list[str]]]:
    return [(node.id, node.code, node.status, [child.id for child in node.children]) for node in tree.walk()]


def test_a_plan_exported_by_the_previous_release_opens_as_todays_export_of_the_same_run(tmp_path) -> None:
    old = json.loads(PLAN.read_text(encoding="utf-8"))
    assert {node["status"] for node in old["nodes"].values()} == {"STUB", "COMPLETED"}
    folder = tmp_path / "sessions" / "20261128-044806-put-01-0093"
    folder.mkdir(parents=True)
    shutil.copy(JOURNAL, folder / JOURNAL_FILE)
    out = tmp_path / "tree.json"

    assert main(["export", str(folder), "--tree", "-o", str(out)]) == 0
    today = json.loads(out.read_text(encoding="utf-8"))
    assert {node["status"] for node in today["nodes"].values()} == {"STUB", "COMPLETED"}  # the format's word
    opened = tree_from_document(old)
    assert _shape(opened) == _shape(tree_from_document(today))
    asked = [node.code for node in opened.walk() if node.status is NodeStatus.AWAITING_LLM]
    assert asked[0] == "solve(instruction, observation)" and len(asked) == 4


def test_a_journal_recorded_by_the_previous_release_resumes_to_the_same_win(tmp_path, capsys) -> None:
    lines = JOURNAL.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    # Where it was recorded the bundled prompt set was in that checkout: point the header at this one's.
    assert header["prompt_set"].endswith("/agent/agents/recode/prompts/default")
    header["prompt_set"] = str(DEFAULT_PROMPTS)
    first_action = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "action")
    folder = tmp_path / "sessions" / "20261128-044806-put-01-0093"
    folder.mkdir(parents=True)
    (folder / JOURNAL_FILE).write_text(json.dumps(header) + "\n" + "".join(lines[1:first_action + 1]), encoding="utf-8")

    assert main(["run", "--resume", str(folder), "--llm", "demo", "--quiet", "--sessions", str(tmp_path / "sessions")]) == 0
    assert capsys.readouterr().out.startswith("SUCCESS: won — 7 steps, 4 LLM calls")
    recorded = [json.loads(line) for line in lines[1:]]
    resumed = read_journal(folder).records
    assert [r["action"] for r in resumed if r["type"] == "action"] == [
        r["action"] for r in recorded if r["type"] == "action"]
    assert [r["answer"] for r in resumed if r["type"] == "answer"] == [
        r["answer"] for r in recorded if r["type"] == "answer"]
    assert resumed[-1]["type"] == "finished" and resumed[-1]["success"]
