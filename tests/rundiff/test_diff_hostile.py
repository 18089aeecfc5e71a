"""Journals and reports a diff must handle with care: escapes and markup from anyone, and evaluations it refuses."""

from __future__ import annotations

import json
from pathlib import Path

from agent.sessions.journal_read import read_journal
from agent.sessions.journal_read import JOURNAL_FILE
from agent.eval.rundiff.diff import diff_runs
from recode_tui.commands import cli
from recode_tui.console.screens.diff_text import step_lines, step_side

HOSTILE = "\x1b[2J\x1b]0;owned\x07[bold red]not markup[/]"


def journal(folder: Path, observation: str) -> Path:
    folder.mkdir(parents=True)
    records = [
        {"type": "session", "version": "recode.journal.v1", "env": "alfworld", "episode": "put-01", "agent": "react",
         "llm": "scripted", "max_steps": 10, "limits": {}, "prompt_set": "x"},
        {"type": "answer", "index": 1, "node_id": "n0", "stub": "turn 1", "prompt": "P", "answer": "Action: look",
         "accepted": True},
        {"type": "action", "node_id": "n1", "step": 1, "action": "look", "observation": observation},
        {"type": "finished", "success": False, "reason": "out of steps"},
    ]
    (folder / JOURNAL_FILE).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return folder


def test_escapes_are_shown_not_sent(tmp_path: Path, capsys) -> None:
    a, b = journal(tmp_path / "a", "You see a table."), journal(tmp_path / "b", HOSTILE)
    assert cli.main(["diff", str(a), str(b), "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b[2J" in out and "[bold red]not markup[/]" in out
    diff = diff_runs(read_journal(a), read_journal(b))
    row = step_lines(diff)[0]
    assert "\x1b" not in row.right and "\\x1b" in row.right
    pane = step_side(diff, 0, "b")
    assert "\x1b" not in pane.plain and "[bold red]not markup[/]" in pane.plain


def test_an_evaluation_of_several_agents_is_refused_with_one_line(tmp_path: Path, capsys) -> None:
    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        report = {"version": "recode.eval.v1",
                  "plan": {"llm": "demo", "agents": ["recode", "react"], "games": [{"id": "put-01"}]},
                  "episodes": [{"game": "put-01", "agent": "recode", "success": True}]}
        (folder / "report.json").write_text(json.dumps(report))
    assert cli.main(["diff", str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "evaluation of 2 agents (recode, react)" in err
    assert "journals/AGENT_A/EPISODE" in err
