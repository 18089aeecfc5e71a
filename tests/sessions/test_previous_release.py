"""Journals and an evaluation report written by the previous release still open, list, export, diff,
compare and resume to the same result.

The files under `fixtures/previous_release/` were recorded with main as released (commit 1c0cbd6),
unpacked at /tmp/old_records, with:

    recode-tui eval --games put-01 --agent recode,react --llm demo -c 1 --out /tmp/old_records/rec/eval
    recode-tui run --env webshop --game 3 --llm demo --sessions /tmp/old_records/rec/sessions

Each test first moves them here, as if recorded in this checkout: the checkout's paths (prompt
sets, game files) become this one's, the recording's folders a temporary one.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent.eval.report import EvalReport
from agent.sessions.header import JournalHeader
from agent.sessions.journal_read import read_journal
from agent.sessions.journal_read import JOURNAL_FILE
from recode_tui.commands.cli import main

pytestmark = pytest.mark.usefixtures("node_code_in_process")  # in-process: old files' reading is the subject

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "previous_release"
RECORDED_AT = "/tmp/old_records"
WEBSHOP = "sessions/20261128-044428-webshop-3-2551"
RECODE, REACT = "eval/journals/recode/put-01", "eval/journals/react/put-01"
# journal -> (agent, episode reference, the result line its replay prints, and the one the previous release
# printed for it cut after its first action: ReAct's demo starts its script again on a resume, so plays on otherwise)
RECORDED = {
    RECODE: ("recode", "put-01", "SUCCESS: won — 7 steps, 4 LLM calls", "SUCCESS: won — 7 steps, 4 LLM calls"),
    REACT: ("react", "put-01", "SUCCESS: won — 4 steps, 4 LLM calls", "SUCCESS: won — 5 steps, 5 LLM calls"),
    WEBSHOP: ("recode", "webshop:3", "SUCCESS: won — 6 steps, 3 LLM calls", "SUCCESS: won — 6 steps, 3 LLM calls"),
}


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    target = tmp_path / "rec"
    shutil.copytree(FIXTURES, target)
    for file in (p for p in target.rglob("*") if p.is_file()):
        text = file.read_text(encoding="utf-8")
        file.write_text(text.replace(f"{RECORDED_AT}/rec", str(target)).replace(RECORDED_AT, str(ROOT)),
                        encoding="utf-8")
    return target


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _actions(folder: Path) -> list[str]:
    return [r["action"] for r in read_journal(folder).records if r.get("type") == "action"]


def test_every_recorded_header_loads_whole(recorded: Path) -> None:
    """The typed header holds every field the old writer wrote (upgraded to this version's record): each
    setting is where the record keeps it, and written back and read again it is the same header."""
    for name, (agent, ref, _, _) in RECORDED.items():
        raw = _lines(recorded / name / JOURNAL_FILE)[0]
        header = read_journal(recorded / name).header
        assert (header.run.agent.name, header.episode_ref) == (agent, ref)
        assert (header.run.model.llm, header.run.prompts.hash, header.run.runner.node_timeout) == (
            raw["llm"], raw["prompt_hash"], raw["node_timeout"])
        assert JournalHeader.from_json(header.to_json()) == header
    webshop = read_journal(recorded / WEBSHOP).header
    assert webshop.run.env.name == "webshop" and webshop.extra["webshop_pages"] == "faithful"
    assert dict(read_journal(recorded / REACT).header.run.agent.options) == {"window": 30, "check": "grammar"}


def test_they_are_listed_and_exported_without_running(recorded: Path, capsys) -> None:
    assert main(["sessions", "list", "--sessions", str(recorded / "sessions")]) == 0
    listed = capsys.readouterr().out
    assert "webshop:3" in listed and "won" in listed and "corrupt" not in listed
    assert main(["export", str(recorded / REACT), "--markdown", "--no-exec"]) == 0
    text = capsys.readouterr().out
    assert "- agent: `react`" in text and "- game: `put-01` (put)" in text and "- LLM: `demo`" in text
    assert main(["export", str(recorded / WEBSHOP), "--trace", "--no-exec"]) == 0
    meta = json.loads(capsys.readouterr().out)["meta"]
    assert (meta["env"], meta["task_type"], meta["success"], meta["limits"]["max_steps"]) == ("webshop", "beauty", True, 30)
    assert main(["export", str(recorded / "eval"), "--sft"]) == 0
    pairs = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert {p["meta"]["agent"] for p in pairs} == {"recode", "react"} and {p["meta"]["env"] for p in pairs} == {"alfworld"}


def test_two_recorded_runs_diff_and_the_report_compares(recorded: Path, capsys) -> None:
    assert main(["diff", str(recorded / RECODE), str(recorded / REACT)]) == 0
    text = capsys.readouterr().out
    assert "(recode, demo, won, 7 steps" in text and "(react, demo, won, 4 steps" in text
    assert main(["compare", str(recorded / "eval")]) == 0  # a comparison report: react against recode
    assert "recode" in capsys.readouterr().out


@pytest.mark.parametrize("name", list(RECORDED))
def test_each_recorded_journal_resumes_to_the_same_result(recorded: Path, name: str, capsys) -> None:
    """Whole, the replay ends as recorded; cut after its first action, it plays on as the previous release did."""
    agent, _, whole_result, cut_result = RECORDED[name]
    sessions = recorded / "resumed"
    whole, cut = sessions / "whole", sessions / "cut"
    shutil.copytree(recorded / name, whole)
    records = _lines(whole / JOURNAL_FILE)
    first_action = next(i for i, r in enumerate(records) if r.get("type") == "action")
    cut.mkdir()
    (cut / JOURNAL_FILE).write_text("".join(json.dumps(r) + "\n" for r in records[: first_action + 1]),
                                    encoding="utf-8")
    recorded_actions = _actions(whole)
    for folder, result in ((whole, whole_result), (cut, cut_result)):
        capsys.readouterr()
        argv = ["run", "--resume", str(folder), "--llm", "demo", "--quiet", "--sessions", str(sessions)]
        assert main([*argv, *(["--agent", agent] if agent != "recode" else [])]) == 0, folder.name
        assert capsys.readouterr().out.startswith(result), folder.name
        assert _actions(folder)[0] == recorded_actions[0]
        assert read_journal(folder).finished is not None and read_journal(folder).finished["success"]
    assert _actions(whole) == recorded_actions
    if whole_result == cut_result:
        assert _actions(cut) == recorded_actions


@pytest.mark.heavy  # eval --resume plays an ALFWorld game in eval's worker process: not in `make quick`
def test_the_recorded_report_resumes_to_the_same_result(recorded: Path, capsys) -> None:
    """The comparison report loses react's episode (as if interrupted); `eval --resume` plays it again alike."""
    report = EvalReport.read(recorded / "eval" / "report.json")
    assert report.plan.agents == ["recode", "react"] and report.status == "complete" and len(report.episodes) == 2
    original = recorded / "original"
    shutil.copytree(recorded / "eval", original)
    data = json.loads((recorded / "eval" / "report.json").read_text(encoding="utf-8"))
    data["episodes"] = [e for e in data["episodes"] if e["agent"] != "react"]
    data["status"] = "interrupted"
    (recorded / "eval" / "report.json").write_text(json.dumps(data), encoding="utf-8")

    assert main(["eval", "--resume", str(recorded / "eval"), "--no-progress"]) == 0
    assert "won    react        put-01" in capsys.readouterr().out
    resumed = EvalReport.read(recorded / "eval" / "report.json")
    assert resumed.status == "complete"
    assert [(e.agent, e.success, e.steps, e.llm_calls) for e in resumed.episodes] == [
        (e.agent, e.success, e.steps, e.llm_calls) for e in report.episodes]
    assert main(["compare", str(original), str(recorded / "eval")]) == 0
    assert "won -> lost" not in capsys.readouterr().out
