"""The real console in a real terminal: tmux send-keys / capture-pane."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from .terminal import Tmux, needs_tmux

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.heavy, needs_tmux]


_tmux = Tmux(f"recode-tui-test-{os.getpid()}")
_screen = _tmux.screen
_wait_for = _tmux.wait_for


def test_console_in_tmux_updates_tree_and_log() -> None:
    session = f"recode-tui-test-{os.getpid()}"
    # Textual takes COLUMNS/LINES from the environment over the terminal's size: drop them
    command = f"cd {ROOT} && env -u COLUMNS -u LINES {sys.executable} -m recode_tui tui --game put-01 --llm demo --no-break"
    started = _tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "48", command)
    assert started.returncode == 0, started.stderr
    try:
        # panes paint one after another: wait for a screen that shows them all, not the first frame
        _tmux.wait_for_all(session, "TASK put a vase in sidetable.", "solve(instruction, observation)", "paused")
        _tmux("send-keys", "-t", session, "c")
        _tmux.wait_for_all(session, "WON",
                           "take vase 1 from diningtable 1",  # the log
                           "✓ m = re.search",  # the tree: finished nodes
                           "done", "episode won")
        _tmux("send-keys", "-t", session, "q")
        deadline = time.monotonic() + 90  # only a hang takes this long
        while _tmux("has-session", "-t", session).returncode == 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _tmux("has-session", "-t", session).returncode != 0, "q did not quit"
    finally:
        _tmux("kill-server")


def test_ctrl_s_right_after_fast_typing_submits_everything_typed() -> None:
    """A paste-speed burst ending in ctrl+s: the submit must see every key before it."""
    session = f"recode-tui-burst-{os.getpid()}"
    command = f"cd {ROOT} && env -u COLUMNS -u LINES {sys.executable} -m recode_tui tui --game put-01 --llm human"
    assert _tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "48", command).returncode == 0
    try:
        _wait_for(session, "TASK put a vase in sidetable.")
        _tmux("send-keys", "-t", session, "c")
        _wait_for(session, "awaiting expansion")
        burst: list[str] = []
        for line in ['fetch_vase()', 'run("go to sidetable 1")', 'run("move vase 1 to sidetable 1")']:
            burst += ["send-keys", "-t", session, "-l", line, ";", "send-keys", "-t", session, "Enter", ";"]
        _tmux(*burst, "send-keys", "-t", session, "C-s")  # one tmux command: no pause before ctrl+s
        screen = _wait_for(session, "expansion accepted: 3 child node(s)")
        assert 'run("move vase 1 to sidetable 1")' in screen
    finally:
        _tmux("kill-server")


def test_solve_the_default_game_by_typing_at_80x24() -> None:
    """The smallest usual terminal: a person solves put-01 with the README's four steps."""
    session = f"recode-tui-small-{os.getpid()}"
    command = f"cd {ROOT} && env -u COLUMNS -u LINES {sys.executable} -m recode_tui tui"
    assert _tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", command).returncode == 0
    try:
        screen = _wait_for(session, "solve(instruction, observation)")
        _wait_for(session, "paused")

        def type_expansion(*lines: str) -> None:
            for index, line in enumerate(lines):
                if index:
                    _tmux("send-keys", "-t", session, "Enter")
                _tmux("send-keys", "-t", session, "-l", line)
            _wait_for(session, f"✓ {len(lines)} child node(s)")  # the live check, as the person sees it
            _tmux("send-keys", "-t", session, "C-s")

        _tmux("send-keys", "-t", session, "c")
        screen = _wait_for(session, "Expand n0")
        assert "awaiting expansion" in screen.splitlines()[0]  # the status line, not wrapped
        assert "breakpoint 1: every stub expansion" in screen.splitlines()[1]
        type_expansion("fetch_vase()", 'run("go to sidetable 1")', 'run("move vase 1 to sidetable 1")')
        screen = _wait_for(session, "expansion accepted: 3 child node(s)")
        assert 'run("move vase 1 to sidetable 1")' in screen  # the tree has rows
        _tmux("send-keys", "-t", session, "c")
        _wait_for(session, "Expand n1")
        _wait_for(session, "n1  stub")  # the node pane
        type_expansion('run("go to diningtable 1")', 'run("take vase 1 from diningtable 1")')
        _wait_for(session, "expansion accepted: 2 child node(s)")
        _tmux("send-keys", "-t", session, "c")
        screen = _wait_for(session, "episode won")
        lines = screen.splitlines()
        assert "done" in lines[0] and "episode won" in lines[1]
        assert "✓ run(\"move vase 1 to sidetable 1\")" in screen  # the tree, all done
        assert all(len(line) <= 80 for line in lines) and len(lines) <= 24
    finally:
        _tmux("kill-server")
