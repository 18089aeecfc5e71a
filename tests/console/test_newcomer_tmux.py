"""What a newcomer sees in a real terminal at 80x24 (tmux send-keys / capture-pane)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .terminal import Tmux, needs_tmux, pane_keys, recode_tui

pytestmark = [pytest.mark.heavy, needs_tmux]  # real ALFWorld and the sandbox worker, in tmux

FIRST_OBSERVATION = (
    "You are in the middle of a room. Looking quickly around you, you see a armchair 1, a coffeetable 2, "
    "a coffeetable 1, a diningtable 1, a drawer 1, a garbagecan 1, a sidetable 1, and a sofa 1."
)


def environment_pane(screen: str) -> str:
    """The text of the Environment pane (the right-hand box), its wrapped lines joined."""
    rows = [line for line in screen.splitlines() if line.count("│") >= 2]
    title = next((line for line in screen.splitlines() if "╭─ Environment" in line), None)
    if title is None:  # not drawn (yet)
        return ""
    column = title.index("╭─ Environment")
    parts = [row[column + 1 :].rstrip().rstrip("│").strip() for row in rows if len(row) > column]
    return re.sub(r"\s+", " ", " ".join(parts))


def test_first_observation_is_whole_after_v_and_a_resize_then_q_says_how_to_resume_and_exits_3(
        tmux: Tmux, tmp_path: Path) -> None:
    """The log hidden at start wraps to its width once shown, and again after a resize: nothing is cut. Then
    q on the unfinished run: the command to resume it, whole, and exit status 3 (one console for both)."""
    session = "log"
    tmux.start(session, (80, 24), recode_tui("tui", env=f"RECODE_TUI_SESSIONS={tmp_path}") + "; echo EXIT=$?; sleep 60")
    try:
        tmux.screen_showing(session, "paused", "Code tree")
        tmux.screen_showing(session, pane_keys(80), line=-1)
        tmux.keys(session, "v")
        tmux.screen_when(session, lambda s: "Environment" in s and FIRST_OBSERVATION in environment_pane(s),
                         "the whole first observation in the Environment pane")
        tmux("resize-window", "-t", session, "-x", "100", "-y", "30")  # the wide layout: a narrower log pane
        tmux.screen_when(session, lambda s: "Code tree" in s and "Environment" in s
                         and FIRST_OBSERVATION in environment_pane(s), "the tree and the whole first observation")

        tmux("resize-window", "-t", session, "-x", "80", "-y", "24")  # back to the newcomer's terminal
        tmux.screen_showing(session, pane_keys(80), line=-1)
        tmux.keys(session, "q")
        screen = tmux.screen_showing(session, "EXIT=")
        assert "EXIT=3" in screen  # paused, as the plain mode's exit status says
        folder = next(tmp_path.iterdir())
        assert "The run is not finished; its session is saved." in screen
        # The command is a line of its own (-J: the terminal's wrap undone), whole: a triple click copies it.
        lines = tmux.screen(session, "-J").splitlines()
        assert f"recode-tui tui --resume {folder}" in [line.strip() for line in lines], lines
    finally:
        tmux.kill_session(session)


def test_a_key_typed_as_q_closes_the_console_prints_nothing_after_the_resume_line(tmux: Tmux, tmp_path: Path) -> None:
    """q and then n at once (a quick hand): the console closes as for q alone. The n reached a screen that was
    closing and started a step that never ran; its coroutine was reported "never awaited", two lines of a
    Python warning under the resume command, in 4 of 4 tries before."""
    session = "quick-hand"
    tmux.start(session, (80, 24), recode_tui("tui", env=f"RECODE_TUI_SESSIONS={tmp_path}") + "; echo EXIT=$?; sleep 60")
    try:
        tmux.screen_showing(session, "paused", "Code tree")
        tmux.screen_showing(session, pane_keys(80), line=-1)
        tmux.keys(session, "q", "n")
        tmux.screen_showing(session, "EXIT=")
        lines = [line.strip() for line in tmux.screen(session, "-J").splitlines() if line.strip()]  # wraps undone
        resume = next(i for i, line in enumerate(lines) if line.startswith("recode-tui tui --resume"))
        assert lines[resume + 1:] == ["EXIT=3"], lines
    finally:
        tmux.kill_session(session)


def test_nothing_covers_the_editor_at_start_at_100x30(tmux: Tmux, tmp_path: Path) -> None:
    """No notice over the editor, its check line or the keys from the first frame to the first stop, nor in
    the seconds after it, when a notice posted at the stop would still show."""
    session = "start"
    tmux.start(session, (100, 30), recode_tui("tui", env=f"RECODE_TUI_SESSIONS={tmp_path}"))
    try:
        def covered(screen: str) -> bool:
            editor = screen.splitlines()[-10:]  # the editor, its check line and the keys
            return any("journal" in line.lower() or "▌" in line for line in editor)

        screen = tmux.screen_when(session, lambda s: covered(s) or "paused" in s, "the first stop")
        assert not covered(screen), screen
        for screen in tmux.screens_for(session, seconds=3):
            assert not covered(screen), screen
        folder = next(tmp_path.iterdir())
        tmux.screen_showing(session, f"session {folder.name}"[:30], line=1)  # the status line names the session
    finally:
        tmux.kill_session(session)
