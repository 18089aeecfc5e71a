"""The prompt workspace at 80x24 in a real terminal, as a person sees it: a key line
with its keys, the editor wide enough to read and zoomable, the token table whole, the rendered prompt
with rows, the focused pane's heavy border, and a comparison screen with its keys."""

from __future__ import annotations

import pytest

from .terminal import Tmux, editor_keys, needs_tmux, pane_keys, recode_tui

pytestmark = [pytest.mark.heavy, needs_tmux]


def test_the_prompt_workspace_is_usable_at_80x24(tmux: Tmux) -> None:
    session = "workspace"
    tmux.start(session, (80, 24), recode_tui("tui --game put-01 --llm human"))
    try:
        tmux.screen_showing(session, "solve(instruction, observation)", "paused")
        tmux.screen_showing(session, pane_keys(80), line=-1)
        tmux.keys(session, "c")
        tmux.screen_showing(session, "Expand n0")
        tmux.screen_showing(session, *editor_keys(80), line=-1)
        tmux.keys(session, "Escape")  # out of the editor: the pane keys again
        tmux.screen_showing(session, "q quit", line=-1)
        tmux.keys(session, "W")
        # the focused editor is drawn with a heavy border and its file's name; the token table whole
        # (a whole count, not `≈1,1…`)
        screen = tmux.screen_when(session, lambda shown: all(text in shown for text in (
            "^r re-expand", "Rendered prompt", "┏━ alfworld/examples/put.txt", "≈1,122")) and len(
            [line for line in shown.splitlines() if line.lstrip().startswith(("rules", "actions", "examples", "total"))]
        ) == 4, "the workspace drawn, its token table whole")
        lines = screen.splitlines()
        assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
        key_line = lines[-1]
        for shown in ("^r re-expand", "^o save set", "^t zoom", "esc back", "f1 all keys"):
            assert shown in key_line, key_line
        editor_width = next(line for line in lines if "┏━ alfworld/examples/put.txt" in line)
        assert editor_width.rstrip().endswith("┓") and len(editor_width.split("┏")[1]) >= 40  # not 16-20 columns
        counts = [line for line in lines if line.lstrip().startswith(("rules", "actions", "examples", "total"))]
        assert len(counts) == 4 and not any("…" in line for line in counts)  # the token table whole
        rendered_top = next(n for n, line in enumerate(lines) if "Rendered prompt" in line)
        rendered_rows = [line for line in lines[rendered_top + 1:] if "│" in line and "╰" not in line]
        assert len(rendered_rows) >= 5, screen  # the rendered prompt gets rows
        tmux.keys(session, "C-t")  # zoom the editor: the whole width
        tmux.screen_when(session, lambda shown: "Rendered prompt" not in shown
                         and "3  - instruction (str): put some keychain on sofa." in shown, "the editor zoomed")
        tmux.keys(session, "C-t")  # back
        tmux.screen_showing(session, "Rendered prompt")
        tmux.keys(session, "F1")  # the keys: the workspace's own come first
        tmux.screen_showing(session, "Prompt workspace (W)", "workspace.reexpand")
        tmux.keys(session, "Escape")
        tmux.screen_when(session, lambda shown: "Prompt workspace (W)" not in shown, "the help closed")
        tmux.keys(session, "C-r")  # re-expand with the person: the comparison
        compare = tmux.screen_showing(session, "Re-expansion of n0", "f1 use that answer", "F1 uses the answer")
        assert "F1..F1" not in compare
        tmux.screen_showing(session, "^s submit typed", line=-1)
    finally:
        tmux.kill_session(session)
