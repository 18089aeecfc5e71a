"""What a newcomer sees in a real terminal at 80x24 (tmux send-keys / capture-pane)."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest

from .terminal import Tmux, needs_tmux

ROOT = Path(__file__).resolve().parents[2]

pytestmark = needs_tmux

FIRST_OBSERVATION = (
    "You are in the middle of a room. Looking quickly around you, you see a armchair 1, a coffeetable 2, "
    "a coffeetable 1, a diningtable 1, a drawer 1, a garbagecan 1, a sidetable 1, and a sofa 1."
)


@pytest.fixture
def tmux():
    server = Tmux(f"recode-tui-newcomer-{os.getpid()}")
    yield server
    server.kill_server()


def start(tmux: Tmux, session: str, width: int, height: int, args: str = "tui") -> None:
    # Textual takes COLUMNS/LINES from the environment over the terminal's size: drop them
    command = f"cd {ROOT} && env -u COLUMNS -u LINES {sys.executable} -m recode_tui {args}"
    done = tmux("new-session", "-d", "-s", session, "-x", str(width), "-y", str(height), command)
    assert done.returncode == 0, done.stderr


def environment_pane(screen: str) -> str:
    """The text of the Environment pane (the right-hand box), its wrapped lines joined."""
    rows = [line for line in screen.splitlines() if line.count("│") >= 2]
    start = next(i for i, line in enumerate(screen.splitlines()) if "Environment" in line)
    column = screen.splitlines()[start].index("╭─ Environment")
    parts = [row[column + 1 :].rstrip().rstrip("│").strip() for row in rows if len(row) > column]
    return re.sub(r"\s+", " ", " ".join(parts))


def test_first_observation_is_whole_after_v_at_80x24_and_after_a_resize(tmux: Tmux) -> None:
    """The log hidden at start wraps to its width once shown, and again after a resize: nothing is cut."""
    session = "log"
    start(tmux, session, 80, 24)
    tmux.wait_for(session, "paused")
    tmux.wait_for(session, "Code tree")
    tmux("send-keys", "-t", session, "v")
    screen = tmux.wait_until(session, lambda s: "Environment" in s and "TASK put a vase" in s, "the task in the Environment pane", timeout=20)
    screen = tmux.wait_until(session, lambda s: FIRST_OBSERVATION in environment_pane(s), "the whole first observation", timeout=5)
    tmux("resize-window", "-t", session, "-x", "100", "-y", "30")  # the wide layout: a narrower log pane
    screen = tmux.wait_until(session, lambda s: "Code tree" in s and "Environment" in s, "the tree and the Environment pane", timeout=20)
    tmux.wait_until(session, lambda s: FIRST_OBSERVATION in environment_pane(s), "the whole first observation", timeout=5)


def test_q_on_an_unfinished_run_says_how_to_resume_and_exits_3(tmux: Tmux, tmp_path: Path) -> None:
    session = "quit"
    command = (f"cd {ROOT} && env -u COLUMNS -u LINES RECODE_TUI_SESSIONS={tmp_path} {sys.executable} -m recode_tui tui; "
               "echo EXIT=$?; sleep 60")
    assert tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", command).returncode == 0
    tmux.wait_for(session, "paused")
    tmux("send-keys", "-t", session, "q")
    screen = tmux.wait_for(session, "EXIT=", timeout=20)
    assert "EXIT=3" in screen  # paused, as the plain mode's exit status says
    folder = next(tmp_path.iterdir())
    assert "The run is not finished; its session is saved." in screen
    # The command is a line of its own (-J: the terminal's wrap undone), whole: a triple click copies it.
    lines = tmux("capture-pane", "-p", "-J", "-t", session).stdout.splitlines()
    assert f"recode-tui tui --resume {folder}" in [line.strip() for line in lines], lines


def test_nothing_covers_the_editor_at_start_at_100x30(tmux: Tmux, tmp_path: Path) -> None:
    session = "start"
    command = f"cd {ROOT} && env -u COLUMNS -u LINES RECODE_TUI_SESSIONS={tmp_path} {sys.executable} -m recode_tui tui"
    assert tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", command).returncode == 0
    tmux.wait_for(session, "Expansion")  # the first frame
    deadline = time.monotonic() + 8  # the first seconds, when a notice would show
    while time.monotonic() < deadline:
        screen = tmux.screen(session)
        editor = screen.splitlines()[-10:]  # the editor, its check line and the keys
        assert not any("journal" in line.lower() or "▌" in line for line in editor), screen
        time.sleep(0.2)
    screen = tmux.wait_for(session, "paused")
    folder = next(tmp_path.iterdir())
    assert f"session {folder.name}"[:30] in screen.splitlines()[1]  # the status line names the session
