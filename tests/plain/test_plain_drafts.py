"""Plain mode keeps typed work through SIGTERM, SIGKILL and a closed terminal.

Real processes in a real terminal (a private tmux server): the person types
part of an expansion, the process is signalled or its terminal closed, and
`--resume` shows the typed text in the editor again. The episode is the toy world's (tests/toyenv): what is
tested is the process and its terminal, not the world it plays.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from agent.sessions.journal_read import read_journal
from tests.console.terminal import Tmux, needs_tmux
from tests.toyenv import PLUGIN

ROOT = Path(__file__).resolve().parents[2]
GAME = "toy:vase-1"  # "put a vase in sidetable."
TYPED = "run('go to sidetable 1')  # typed, not yet submitted"

# heavy: tmux
pytestmark = [pytest.mark.heavy, needs_tmux]


@pytest.fixture
def tmux():
    server = Tmux(f"recode-plain-drafts-{os.getpid()}")
    yield server
    server.kill_server()


def start(tmux: Tmux, name: str, sessions: Path, *args: str) -> int:
    """`recode-tui run --llm human` in a tmux pane; the pane prints the exit status. Returns the recode-tui pid."""
    command = (f"cd {ROOT} && RECODE_TUI_PLUGINS={PLUGIN} {sys.executable} -m recode_tui run --llm human "
               f"--sessions {sessions} {' '.join(args)}; "
               "echo exit status $?; sleep 600")
    started = tmux("new-session", "-d", "-s", name, "-x", "130", "-y", "40", "-P", "-F", "#{pane_pid}", command)
    assert started.returncode == 0, started.stderr
    shell = int(started.stdout.strip())
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        children = Path(f"/proc/{shell}/task/{shell}/children").read_text().split()
        if children:
            return int(children[0])
        time.sleep(0.05)
    raise AssertionError("recode-tui never started")


def type_answer(tmux: Tmux, name: str) -> None:
    tmux.screen_showing(name, "[n0] > <think>")
    tmux("send-keys", "-t", name, "-l", TYPED)
    tmux.screen_showing(name, TYPED)


def gone(pid: int, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split()[2]
        except OSError:
            return
        if state == "Z":
            return
        time.sleep(0.1)
    raise AssertionError(f"process {pid} is still running")


def draft_text(sessions: Path) -> str:
    drafts = list(sessions.glob("*/draft.json"))
    return json.loads(drafts[0].read_text())["text"] if drafts else ""


def assert_resume_shows_the_draft(tmux: Tmux, sessions: Path) -> None:
    start(tmux, "resumed", sessions, "--resume")
    screen = tmux.screen_showing("resumed", "is back in the editor")
    assert "your unfinished answer for [n0] is back in the editor" in screen
    # The notice prints before prompt_toolkit draws the editor: wait for the draft itself.
    tmux.screen_showing("resumed", f"... {TYPED}")  # in the editor, inside <execute>, as typed


def test_sigterm_while_typing_saves_the_draft_pauses_and_resume_shows_it(tmux, tmp_path):
    sessions = tmp_path / "sessions"
    pid = start(tmux, "typing", sessions, "--game", GAME)
    type_answer(tmux, "typing")
    os.kill(pid, signal.SIGTERM)
    screen = tmux.screen_showing("typing", "exit status")
    assert "terminated (SIGTERM): session" in screen and "the text you typed is kept as a draft" in screen
    assert "continue with: recode-tui run --llm human --resume" in screen
    assert "exit status 3" in screen  # paused, as Ctrl-D pauses
    assert TYPED in draft_text(sessions)
    assert_resume_shows_the_draft(tmux, sessions)


def test_sigkill_after_the_debounce_loses_nothing(tmux, tmp_path):
    sessions = tmp_path / "sessions"
    pid = start(tmux, "typing", sessions, "--game", GAME)
    type_answer(tmux, "typing")
    deadline = time.monotonic() + 90  # written 2 s (the debounce) after the last keystroke: wait for the write
    while TYPED not in draft_text(sessions):
        assert time.monotonic() < deadline, "the draft was never written while typing"
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    gone(pid)
    assert_resume_shows_the_draft(tmux, sessions)


def test_a_closed_terminal_saves_the_draft_and_exits(tmux, tmp_path):
    sessions = tmp_path / "sessions"
    pid = start(tmux, "typing", sessions, "--game", GAME)
    type_answer(tmux, "typing")
    tmux("kill-session", "-t", "typing")  # the terminal goes away, as on an ssh drop: SIGHUP
    gone(pid)
    assert TYPED in draft_text(sessions)
    journal = read_journal(next(sessions.glob("*/journal.jsonl")))
    assert journal.finished is None and not journal.truncated_tail
    assert_resume_shows_the_draft(tmux, sessions)
