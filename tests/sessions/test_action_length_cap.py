"""An action has a length cap: a huge `run(...)` is refused, not sent or journaled whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.runtime.actions import MAX_ACTION_CHARS
from agent.sessions.journal_read import JOURNAL_FILE, read_journal
from recode_tui.commands.cli import main

HUGE = MAX_ACTION_CHARS * 500 + 1  # 1 MB


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


# the sandbox: a 1 MB action crosses the worker's wall; in-process: the cap, the journal and the replay
@pytest.mark.parametrize("where", [pytest.param("sandbox", marks=pytest.mark.heavy), "in-process"])
def test_a_huge_action_from_node_code_is_refused_with_a_clear_observation_and_replays(tmp_path: Path, capsys, request,
                                                                                      where):
    if where == "in-process":
        request.getfixturevalue("node_code_in_process")
    code = f"for _ in range(5):\n    run('x' * {HUGE})\nrun('look')"
    script = tmp_path / "huge.jsonl"
    script.write_text(json.dumps({"stub": "solve(instruction, observation)", "answer": f"<execute>\n{code}\n</execute>"}))
    sessions = tmp_path / "sessions"
    status, out, err = run_cli(capsys, "run", "--game", "put-02", "--llm", f"scripted:{script}", "--sessions", str(sessions))
    assert status == 1, err
    assert out.count(f"observation 1: action too long ({HUGE} chars, limit {MAX_ACTION_CHARS})") == 5
    assert "> action 1: look" in out  # refused actions are no environment steps
    assert max(map(len, out.splitlines())) < 400
    (folder,) = sessions.iterdir()
    assert (folder / JOURNAL_FILE).stat().st_size < 60_000  # not 5 MB
    journal = read_journal(folder)
    assert [a.action for a in journal.actions()] == ["look"]
    status, again, err = run_cli(capsys, "run", "--resume", "--llm", f"scripted:{script}", "--sessions", str(sessions))
    assert status == 1 and "differs" not in err, err


LONG = MAX_ACTION_CHARS * 50 + 1  # 100 KB: under the answer's own size cap, so it is the action that is refused


def test_a_huge_react_action_is_refused(tmp_path: Path, capsys):
    script = tmp_path / "react.jsonl"
    script.write_text(json.dumps({"stub": "*", "purpose": "act", "answer": f"Thought: t\nAction: go to {'y' * LONG}"}))
    status, out, err = run_cli(capsys, "run", "--agent", "react", "--agent-option", "check=off", "--llm",
                               f"scripted:{script}", "--game", "put-01", "--max-steps", "2",
                               "--sessions", str(tmp_path / "sessions"))
    assert "Traceback" not in err, err
    assert f"action too long ({len('go to ') + LONG} chars, limit {MAX_ACTION_CHARS})" in out
    assert status == 1 and "actions refused as too long" in out.splitlines()[-1]  # a refusal loop ends the run
    assert max(map(len, out.splitlines())) < 400
