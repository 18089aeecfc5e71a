"""The prompt workspace at 80x24 in a real terminal, as a person sees it: a key line
with its keys, the editor wide enough to read and zoomable, the token table whole, the rendered prompt
with rows, the focused pane's heavy border, and a comparison screen with its keys."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from .terminal import Tmux, needs_tmux

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.heavy, needs_tmux]

_tmux = Tmux(f"recode-tui-ws-{os.getpid()}")


def keys(session: str, *names: str) -> None:
    for name in names:
        _tmux("send-keys", "-t", session, name)


def test_the_prompt_workspace_is_usable_at_80x24() -> None:
    session = f"recode-tui-ws-{os.getpid()}"
    command = f"cd {ROOT} && env -u COLUMNS -u LINES {sys.executable} -m recode_tui tui --game put-01 --llm human"
    assert _tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", command).returncode == 0
    try:
        _tmux.wait_for_all(session, "solve(instruction, observation)", "paused")
        keys(session, "c")
        _tmux.wait_for(session, "Expand n0")
        keys(session, "Escape")  # out of the editor: the pane keys again
        _tmux.wait_until(session, lambda shown: "q quit" in shown.splitlines()[-1], "the pane keys")
        keys(session, "W")
        # the focused editor is drawn with a heavy border and its file's name
        screen = _tmux.wait_for_all(session, "^r re-expand", "Rendered prompt", "total", "┏━ alfworld/examples/put.txt")
        lines = screen.splitlines()
        assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
        key_line = lines[-1]
        for shown in ("^r re-expand", "^o save set", "^t zoom", "esc back", "f1 all keys"):
            assert shown in key_line, key_line
        editor_width = next(line for line in lines if "┏━ alfworld/examples/put.txt" in line)
        assert editor_width.rstrip().endswith("┓") and len(editor_width.split("┏")[1]) >= 40  # not 16-20 columns
        counts = [line for line in lines if line.lstrip().startswith(("rules", "actions", "examples", "total"))]
        assert len(counts) == 4 and not any("…" in line for line in counts)  # the token table whole
        assert "≈1,122" in screen  # a whole count, not `≈1,1…`
        rendered_top = next(n for n, line in enumerate(lines) if "Rendered prompt" in line)
        rendered_rows = [line for line in lines[rendered_top + 1:] if "│" in line and "╰" not in line]
        assert len(rendered_rows) >= 5, screen  # the rendered prompt gets rows
        keys(session, "C-t")  # zoom the editor: the whole width
        zoomed = _tmux.wait_until(session, lambda shown: "Rendered prompt" not in shown, "the editor zoomed")
        assert "3  - instruction (str): put some keychain on sofa." in zoomed
        keys(session, "C-t", "F1")  # back, then the keys: the workspace's own come first
        help_screen = _tmux.wait_for(session, "Prompt workspace (W)")
        assert "workspace.reexpand" in help_screen
        keys(session, "Escape")
        _tmux.wait_until(session, lambda shown: "Prompt workspace (W)" not in shown, "the help closed")
        keys(session, "C-r")  # re-expand with the person: the comparison
        compare = _tmux.wait_for_all(session, "Re-expansion of n0", "f1 use that answer")
        assert "F1..F1" not in compare and "F1 uses the answer" in compare
        assert "^s submit typed" in compare.splitlines()[-1]
    finally:
        _tmux.kill_server()
