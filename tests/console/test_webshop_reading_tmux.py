"""WebShop played by hand in a real 80x24 terminal (tmux), read as a person reads it: the whole task on the
first screen, the focus visible, a long line never leaving the editor scrolled sideways, a toast never over
the editor or its check line, and the results page whole in the Observation tab."""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from .terminal import Tmux, needs_tmux

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.heavy, needs_tmux]

LONG_THOUGHT = "Thought: " + " ".join(["the shampoo must be color safe, paraben free and under twenty dollars"] * 2) + " END"


def wait_until(tmux: Tmux, session: str, shows, what: str, timeout: float = 40.0) -> str:
    """The screen once `shows(screen)` holds: a state, not a moment (a redraw may come a frame later)."""
    deadline = time.monotonic() + timeout
    screen = tmux.screen(session)
    while not shows(screen):
        if time.monotonic() > deadline:
            raise AssertionError(f"never {what}; the screen was:\n{screen}")
        time.sleep(0.2)
        screen = tmux.screen(session)
    return screen


def row_of(screen: str, text: str) -> int:
    return next(n for n, line in enumerate(screen.splitlines()) if text in line)


@contextmanager
def shop_at_80x24(tmp_path: Path) -> Iterator[tuple[Tmux, str]]:
    """`tui --env webshop --game webshop:0 --llm human --agent react` in a private 80x24 tmux, paused at its start."""
    tmux = Tmux(f"recode-tui-reading-{os.getpid()}")
    session = "shop"
    env = f"RECODE_TUI_CACHE={tmp_path / 'cache'} WEBSHOP_NOUNS=fallback"
    command = (f"cd {ROOT} && env -u COLUMNS -u LINES -u WEBSHOP_DATA {env} {sys.executable} -m recode_tui tui "
               f"--env webshop --game webshop:0 --llm human --agent react --sessions {tmp_path / 'sessions'}")
    started = tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", command)
    assert started.returncode == 0, started.stderr
    try:
        tmux.wait_for(session, "paused", timeout=90)
        yield tmux, session
    finally:
        tmux.kill_server()


def open_first_turn(tmux: Tmux, session: str) -> str:
    tmux("send-keys", "-t", session, "c")
    return tmux.wait_for(session, "2  Action:")


def test_the_first_screen_shows_the_whole_task_and_a_status_line_that_fits(tmp_path) -> None:
    with shop_at_80x24(tmp_path) as (tmux, session):
        screen = tmux.wait_for(session, "20.00 dollars")  # the task to its price limit
        assert "<think>" not in screen and "<execute>" not in screen, screen  # ReAct's run: no ReCode skeleton
        status = screen.splitlines()[:2]
        assert not any(line.rstrip().endswith("…") for line in status), status  # fitted, not cut
        screen = open_first_turn(tmux, session)
        status = screen.splitlines()[:2]
        assert not any(line.rstrip().endswith("…") for line in status), status


def test_a_toast_never_covers_the_editor_or_its_check_line(tmp_path) -> None:
    with shop_at_80x24(tmp_path) as (tmux, session):
        open_first_turn(tmux, session)
        tmux("send-keys", "-t", session, "Escape")
        tmux.wait_for(session, "? keys")
        tmux("send-keys", "-t", session, "c")  # a step key while an answer is awaited: a notice says so
        # ReAct's word for what is awaited, not ReCode's
        screen = wait_until(tmux, session, lambda screen: "Awaiting your turn" in screen and "1  Thought:" in screen,
                            "the notice beside the editor")
        assert row_of(screen, "Awaiting your turn") < row_of(screen, "Expansion  "), screen
        assert "1  Thought:" in screen and "2  Action:" in screen and "✗ line 2" in screen, screen


def test_the_focus_shows_and_a_long_line_leaves_every_lines_start_in_view(tmp_path) -> None:
    with shop_at_80x24(tmp_path) as (tmux, session):
        screen = open_first_turn(tmux, session)
        assert "┃ 1  Thought:" in screen, screen  # the editor has the focus, and shows it
        tmux("send-keys", "-t", session, "Escape")
        # The focus left the editor: its mark went, and the pane the focus went to is marked instead.
        wait_until(tmux, session, lambda screen: "┃ 1  Thought:" not in screen and "┏" in screen and "? keys" in screen,
                   "the focus shown on a pane")
        tmux("send-keys", "-t", session, "e")
        tmux.wait_for(session, "┃ 1  Thought:")
        tmux("send-keys", "-t", session, "C-a")
        tmux("send-keys", "-t", session, "-l", LONG_THOUGHT)
        screen = tmux.wait_for(session, "END")
        assert "1  Thought: the shampoo" in screen, screen
        tmux("send-keys", "-t", session, "Enter")
        tmux("send-keys", "-t", session, "-l", "Action: search[color safe paraben free shampoo 16 fl oz]")
        screen = tmux.wait_for(session, "one action: search[")
        assert "1  Thought: the shampoo" in screen and "Action: search[" in screen, screen


def test_the_results_page_is_read_whole_in_the_observation_tab(tmp_path) -> None:
    with shop_at_80x24(tmp_path) as (tmux, session):
        open_first_turn(tmux, session)
        tmux("send-keys", "-t", session, "C-a")
        tmux("send-keys", "-t", session, "-l", "Thought: search")
        tmux("send-keys", "-t", session, "Enter")
        tmux("send-keys", "-t", session, "-l", "Action: search[color safe paraben free shampoo 16 fl oz]")
        tmux.wait_for(session, "one action: search[")
        tmux("send-keys", "-t", session, "C-s")
        tmux.wait_for(session, "answer accepted: search[")
        tmux("send-keys", "-t", session, "c")
        tmux.wait_for(session, "Act n2")
        tmux("send-keys", "-t", session, "Escape")
        tmux.wait_for(session, "? keys")
        tmux("send-keys", "-t", session, "O")
        tmux.wait_for(session, "step 1 > search[")
        tmux("send-keys", "-t", session, "z")
        tmux.wait_for(session, "Back to Search")
        screen = tmux.wait_for(session, "$38.37")  # the page's last product's price: the whole page is on screen
        assert "Page 1 (Total results: 50)" in screen and "TASK please get me" in screen, screen
        assert all(len(line) <= 80 for line in screen.splitlines())
