"""Text from a model or the environment that a terminal or a UTF-8 file would choke on.

A lone surrogate (`\\ud800`) and terminal escapes (`\\x1b]52;...` writes the clipboard,
`\\r\\x1b[2K SUCCESS: won` fakes a result line) reach `recode-tui run` from a ReCode
answer, a ReAct action and an OpenAI-compatible server's reply. The run must end with
its real result, print them escaped, journal them losslessly and resume identically.

One run is a process of its own (`in_a_process`): what a real stdout and stderr make of the text. The
others run the command line's `main` in this process (`recode`), whose output is held to the same rule:
it must encode as UTF-8.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.sessions.journal_read import read_journal
from mockllm.openai_server import OpenAICompatibleServer, script_responder, write_profiles
from tests.eval.helpers import run_main

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


HOSTILE_ACTIONS = ["go to \ud800 cabinet", "\x1b]52;c;aGk=\x07look", "\r\x1b[2K SUCCESS: won"]


def cli_env(tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions"), OPENAI_API_KEY="")


def in_a_process(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`recode-tui ARGS` in a process of its own, its output read as a terminal's: what is not UTF-8 fails the test."""
    return subprocess.run([sys.executable, "-m", "recode_tui", *args], capture_output=True, timeout=300,
                          env=cli_env(tmp_path), encoding="utf-8", errors="strict")


def recode(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`recode-tui ARGS` in this process (`run_main`)."""
    return run_main(list(args), cli_env(tmp_path))


def assert_terminal_safe(result: subprocess.CompletedProcess[str]) -> None:
    for stream in (result.stdout, result.stderr):
        stream.encode("utf-8")  # what a UTF-8 terminal can take: no lone surrogate
    assert "Traceback" not in result.stderr, result.stderr
    for stream in (result.stdout, result.stderr):
        assert "\x1b" not in stream and "\r" not in stream and "\x07" not in stream
    assert not any(line.startswith(" SUCCESS") or line.startswith("SUCCESS") for line in result.stdout.splitlines())


def the_session(tmp_path: Path) -> Path:
    (folder,) = (tmp_path / "sessions").iterdir()
    return folder


def test_recode_answer_with_a_lone_surrogate_and_escapes_is_printed_escaped_journaled_and_resumed(tmp_path):
    code = "\n".join(f"run({action!r})" for action in HOSTILE_ACTIONS)  # escapes in the answer's Python source
    script = tmp_path / "hostile.jsonl"
    script.write_text(json.dumps({"stub": "solve(instruction, observation)", "answer": f"<execute>\n{code}\n</execute>"}))
    result = in_a_process(tmp_path, "run", "--game", "put-02", "--llm", f"scripted:{script}")
    assert result.returncode == 1, result.stderr  # the episode's real result: not won, no traceback
    assert_terminal_safe(result)
    assert "> action 1: go to \\ud800 cabinet" in result.stdout
    assert "> action 2: \\x1b]52;c;aGk=\\x07look" in result.stdout
    assert "> action 3: \\x0d\\x1b[2K SUCCESS: won" in result.stdout
    assert result.stdout.splitlines()[-1].startswith("FAILED: no pending nodes left")
    journal = read_journal(the_session(tmp_path))
    assert [a.action for a in journal.actions()] == HOSTILE_ACTIONS  # lossless: the very same text
    again = recode(tmp_path, "run", "--resume", "--llm", f"scripted:{script}")
    assert again.returncode == 1, again.stderr
    assert_terminal_safe(again)
    assert again.stdout.splitlines()[-1] == result.stdout.splitlines()[-1]
    assert [a.action for a in read_journal(the_session(tmp_path)).actions()] == HOSTILE_ACTIONS  # nothing added


def test_a_react_action_with_a_lone_surrogate_is_journaled_and_resumed(tmp_path):
    script = tmp_path / "react.jsonl"
    entries = [{"stub": "*", "purpose": "act", "answer": f"Thought: try it\nAction: {action}"} for action in
               ["go to \ud800 cabinet", "look \x1b]52;c;aGk=\x07"]]
    script.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    result = recode(tmp_path, "run", "--agent", "react", "--agent-option", "check=off", "--llm", f"scripted:{script}",
                    "--game", "put-01", "--max-steps", "2")
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1
    assert_terminal_safe(result)
    assert "go to \\ud800 cabinet" in result.stdout
    actions = [a.action for a in read_journal(the_session(tmp_path)).actions()]
    assert actions[0] == "go to \ud800 cabinet"
    again = recode(tmp_path, "run", "--resume", "--llm", f"scripted:{script}")
    assert again.returncode == 1, again.stderr
    assert_terminal_safe(again)
    assert [a.action for a in read_journal(the_session(tmp_path)).actions()] == actions


def test_an_llm_server_reply_with_a_lone_surrogate_is_journaled_as_sent(tmp_path):
    answer = "<think>the \ud800 cabinet \x1b]52;c;aGk=\x07</think><execute>\nrun('look')\n</execute>"
    script = tmp_path / "server.jsonl"
    script.write_text(json.dumps({"stub": "*", "answer": answer}) + "\n")
    with OpenAICompatibleServer(script_responder(str(script))) as server:
        profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url)
        result = recode(tmp_path, "run", "--game", "put-02", "--llm", "profile:local", "--profiles", str(profiles),
                        "--max-steps", "3")
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1
    assert_terminal_safe(result)
    answers = read_journal(the_session(tmp_path)).answers()
    assert answers and answers[0].answer == answer


def test_terminal_escapes_in_actions_and_errors_reach_the_terminal_escaped(tmp_path):
    code = "run('look \\x1b]52;c;aGk=\\x07')\nrun('\\r\\x1b[2K SUCCESS: won')\nraise ValueError('\\x1b[31mboom\\x9b')"
    script = tmp_path / "escapes.jsonl"
    script.write_text(json.dumps({"stub": "solve(instruction, observation)", "answer": f"<execute>\n{code}\n</execute>"}))
    result = recode(tmp_path, "run", "--game", "put-02", "--llm", f"scripted:{script}", "--max-retry", "0")
    assert result.returncode == 1, result.stderr
    assert_terminal_safe(result)
    assert "\x9b" not in result.stdout
    assert "> action 1: look \\x1b]52;c;aGk=\\x07" in result.stdout
    assert "ValueError: \\x1b[31mboom\\x9b" in result.stdout
