"""`recode-tui tui --diff A B` in a real terminal at 80x24 and 200x50: a fork and its parent (real ALFWorld)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from tests.rundiff.test_diff_fork import PLAN, make_fork_and_parent

from .terminal import Tmux, needs_tmux

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.heavy, needs_tmux]

_tmux = Tmux(f"recode-tui-diff-{os.getpid()}")


@pytest.fixture(scope="module")
def fork_and_parent(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_fork_and_parent(tmp_path_factory.mktemp("fork"))


def marked_row(session: str, text: str, timeout: float = 40.0) -> tuple[str, str]:
    """The screen, once its divergence row (`│!`) shows `text` (a frame may be caught half painted)."""
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _tmux.screen(session)
        row = next((line for line in screen.splitlines() if line.startswith("│!")), "")
        if text in row:
            return screen, row
        time.sleep(0.2)
    raise AssertionError(f"no divergence row showing {text!r}; the screen was:\n{screen}")


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
def test_the_diff_screen_in_tmux(fork_and_parent, size) -> None:
    parent, fork = fork_and_parent
    session = f"diff-{size[0]}"
    command = f"cd {ROOT} && env -u COLUMNS -u LINES {sys.executable} -m recode_tui tui --diff {parent} {fork}"
    started = _tmux("new-session", "-d", "-s", session, "-x", str(size[0]), "-y", str(size[1]), command)
    assert started.returncode == 0, started.stderr
    try:
        _tmux.wait_for(session, "first divergence: an LLM answer")
        _tmux.wait_for(session, "╭─ B ")  # both sides drawn (the rows can paint before the panes below them)
        screen, _ = marked_row(session, PLAN)  # the plan stub's row, marked as the divergence
        lines = screen.splitlines()
        assert len(lines) <= size[1] and all(len(line) <= size[0] for line in lines)
        assert "n Next diff" in screen
        if size[0] < 120:  # stacked: B's pane below A's
            assert screen.index("╭─ B ") > screen.index("╭─ A ")
            assert any(line.startswith("╭─ B ") for line in lines), screen
        else:  # side by side: both pane titles on one line
            assert any("╭─ A " in line and "╭─ B " in line for line in lines), screen
        _tmux("send-keys", "-t", session, "t")  # the steps: opens where the actions part
        _tmux.wait_for(session, "environment steps")
        marked_row(session, "5 look")  # B's look at step 5, where the actions part
        _tmux("send-keys", "-t", session, "q")  # the screen is all `tui --diff` shows: q ends it
        deadline = time.monotonic() + 10
        while _tmux("has-session", "-t", session).returncode == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _tmux("has-session", "-t", session).returncode != 0, _tmux.screen(session)
    finally:
        _tmux("kill-session", "-t", session)
        _tmux.kill_server()
