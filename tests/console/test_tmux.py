"""The real console in a real terminal: tmux send-keys / capture-pane."""

from __future__ import annotations

import pytest

from .terminal import Tmux, editor_keys, needs_tmux, pane_keys, recode_tui

pytestmark = [pytest.mark.heavy, needs_tmux]


def test_console_in_tmux_updates_tree_and_log(tmux: Tmux) -> None:
    session = "demo"
    tmux.start(session, (160, 48), recode_tui("tui --game put-01 --llm demo --no-break"))
    try:
        # panes paint one after another: wait for a screen that shows them all, not the first frame
        tmux.screen_showing(session, "TASK put a vase in sidetable.", "solve(instruction, observation)", "paused")
        tmux.screen_showing(session, pane_keys(160), line=-1)  # the tree has the keys
        tmux.keys(session, "c")
        tmux.screen_showing(session, "WON",
                            "take vase 1 from diningtable 1",  # the log
                            "✓ m = re.search",  # the tree: finished nodes
                            "done", "episode won")
        tmux.keys(session, "q")
        assert tmux.ended(session), "q did not quit"
    finally:
        tmux.kill_session(session)


def test_solve_the_default_game_at_80x24_a_paste_speed_burst_then_typing(tmux: Tmux) -> None:
    """The smallest usual terminal: a person solves put-01 with the README's four steps. The first answer
    comes as a paste-speed burst ending in ctrl+s (the submit must see every key before it), the second
    typed, the live check read before ctrl+s."""
    session = "small"
    tmux.start(session, (80, 24), recode_tui("tui"))
    tmux.screen_showing(session, "solve(instruction, observation)", "paused")

    def step_to_expansion(node: str) -> None:
        tmux.screen_showing(session, pane_keys(80), line=-1)  # the tree has the keys: `c` is read
        tmux.keys(session, "c")
        tmux.screen_showing(session, *editor_keys(80), line=-1)
        tmux.screen_showing(session, f"Expand {node}")

    try:
        step_to_expansion("n0")
        tmux.screen_showing(session, "awaiting expansion", line=0)  # the status line, not wrapped
        tmux.screen_showing(session, "breakpoint 1: every stub expansion", line=1)
        burst: list[str] = []
        for line in ['fetch_vase()', 'run("go to sidetable 1")', 'run("move vase 1 to sidetable 1")']:
            burst += ["send-keys", "-t", session, "-l", line, ";", "send-keys", "-t", session, "Enter", ";"]
        tmux(*burst, "send-keys", "-t", session, "C-s")  # one tmux command: no pause before ctrl+s
        # every line submitted, and the tree has rows
        tmux.screen_showing(session, "expansion accepted: 3 child node(s)", 'run("move vase 1 to sidetable 1")')
        step_to_expansion("n1")
        tmux.screen_showing(session, "n1  stub")  # the node pane
        tmux.text(session, 'run("go to diningtable 1")')
        tmux.keys(session, "Enter")
        tmux.text(session, 'run("take vase 1 from diningtable 1")')
        tmux.screen_showing(session, 'run("take vase 1 from diningtable 1")', "✓ 2 child node(s)")  # the live check
        tmux.keys(session, "C-s")
        tmux.screen_showing(session, "expansion accepted: 2 child node(s)")
        tmux.screen_showing(session, pane_keys(80), line=-1)
        tmux.keys(session, "c")
        # the status line's two rows and the tree, all done, on one screen
        screen = tmux.screen_when(session, lambda shown: len(shown.splitlines()) > 1 and "done" in shown.splitlines()[0]
                                  and "episode won" in shown.splitlines()[1]
                                  and '✓ run("move vase 1 to sidetable 1")' in shown, "the run won, the tree done")
        lines = screen.splitlines()
        assert all(len(line) <= 80 for line in lines) and len(lines) <= 24
    finally:
        tmux.kill_session(session)
