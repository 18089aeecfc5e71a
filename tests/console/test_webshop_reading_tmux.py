"""WebShop played by hand in a real 80x24 terminal (tmux), read as a person reads it: the whole task on the
first screen, the focus visible, a long line never leaving the editor scrolled sideways, a toast never over
the editor or its check line, and the results page whole in the Observation tab."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from .terminal import Tmux, editor_keys, needs_tmux, pane_keys, recode_tui

pytestmark = [pytest.mark.heavy, needs_tmux]

LONG_THOUGHT = "Thought: " + " ".join(["the shampoo must be color safe, paraben free and under twenty dollars"] * 2) + " END"


def row_of(screen: str, text: str) -> int:
    return next(n for n, line in enumerate(screen.splitlines()) if text in line)


@contextmanager
def shop_at_80x24(tmux: Tmux, tmp_path: Path) -> Iterator[str]:
    """`tui --env webshop --game webshop:0 --llm human --agent react` at 80x24, paused at its start, the panes
    with the keys: its session's name."""
    session = "shop"
    env = f"-u WEBSHOP_DATA RECODE_TUI_CACHE={tmp_path / 'cache'} WEBSHOP_NOUNS=fallback"
    tmux.start(session, (80, 24), recode_tui(f"tui --env webshop --game webshop:0 --llm human --agent react "
                                             f"--sessions {tmp_path / 'sessions'}", env=env))
    try:
        tmux.screen_showing(session, "paused")
        tmux.screen_showing(session, pane_keys(80), line=-1)
        yield session
    finally:
        tmux.kill_session(session)


def open_first_turn(tmux: Tmux, session: str) -> None:
    """`c`: the first turn's editor, with the answer's format, has the keys."""
    tmux.keys(session, "c")
    tmux.screen_showing(session, *editor_keys(80), line=-1)
    tmux.screen_showing(session, "1  Thought:", "2  Action:")


def leave_editor(tmux: Tmux, session: str) -> None:
    tmux.keys(session, "Escape")
    tmux.screen_showing(session, pane_keys(80), line=-1)


def test_a_person_reads_a_shop_turn_through_at_80x24(tmux: Tmux, tmp_path) -> None:
    """One console, one turn read as a person reads it; each part checks its own behaviour on the way."""
    with shop_at_80x24(tmux, tmp_path) as session:
        # The first screen shows the whole task, and a status line that fits, before and after `c`.
        screen = tmux.screen_showing(session, "20.00 dollars")  # the task to its price limit
        assert "<think>" not in screen and "<execute>" not in screen, screen  # ReAct's run: no ReCode skeleton
        status = screen.splitlines()[:2]
        assert not any(line.rstrip().endswith("…") for line in status), status  # fitted, not cut
        open_first_turn(tmux, session)
        tmux.screen_showing(session, "awaiting", line=0)
        status = tmux.screen(session).splitlines()[:2]
        assert not any(line.rstrip().endswith("…") for line in status), status

        # The focus shows: the editor's mark, then, out of it, the pane the focus went to is marked instead.
        tmux.screen_showing(session, "┃ 1  Thought:")
        tmux.keys(session, "Escape")
        tmux.screen_when(session, lambda screen: "┃ 1  Thought:" not in screen and "┏" in screen
                         and pane_keys(80) in screen.splitlines()[-1], "the focus shown on a pane")

        # A toast never covers the editor or its check line: a step key while an answer is awaited gets a
        # notice, in ReAct's word for what is awaited (not ReCode's), above the editor.
        tmux.keys(session, "c")
        screen = tmux.screen_showing(session, "Awaiting your turn", "1  Thought:", "2  Action:", "✗ line 2")
        assert row_of(screen, "Awaiting your turn") < row_of(screen, "Expansion  "), screen

        # A long line leaves every line's start in view: the editor never stays scrolled sideways.
        tmux.screen_showing(session, pane_keys(80), line=-1)
        tmux.keys(session, "e")
        tmux.screen_showing(session, "┃ 1  Thought:")
        tmux.screen_showing(session, *editor_keys(80), line=-1)
        tmux.keys(session, "C-a")
        tmux.text(session, LONG_THOUGHT)
        tmux.screen_showing(session, "END", "1  Thought: the shampoo")
        tmux.keys(session, "Enter")
        tmux.text(session, "Action: search[color safe paraben free shampoo 16 fl oz]")
        tmux.screen_showing(session, "one action: search[", "1  Thought: the shampoo", "Action: search[")

        # The results page is read whole in the Observation tab.
        tmux.keys(session, "C-s")
        tmux.screen_showing(session, "answer accepted: search[")
        tmux.screen_showing(session, pane_keys(80), line=-1)
        tmux.keys(session, "c")
        tmux.screen_showing(session, "Act n2")
        tmux.screen_showing(session, *editor_keys(80), line=-1)
        leave_editor(tmux, session)
        tmux.keys(session, "O")
        tmux.screen_showing(session, "step 1 > search[")
        tmux.keys(session, "z")
        # the page's last product's price: the whole page is on screen
        screen = tmux.screen_showing(session, "Back to Search", "$38.37", "Page 1 (Total results: 50)", "TASK please get me")
        assert all(len(line) <= 80 for line in screen.splitlines())
