"""WebShop in the real console in a real 80x24 terminal (tmux): a person answering as ReAct types
a `search[...]` action, steps, and sees the results page in the log and its clickables beside the
variables."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from .terminal import Tmux, needs_tmux

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.heavy, needs_tmux]


def test_a_person_searches_the_shop_at_80x24_and_sees_the_results(tmp_path) -> None:
    tmux = Tmux(f"recode-tui-webshop-{os.getpid()}")
    session = "shop"
    env = f"RECODE_TUI_CACHE={tmp_path / 'cache'} WEBSHOP_NOUNS=fallback"
    command = (f"cd {ROOT} && env -u COLUMNS -u LINES -u WEBSHOP_DATA {env} {sys.executable} -m recode_tui tui "
               f"--env webshop --game 0 --llm human --agent react --sessions {tmp_path / 'sessions'}")
    started = tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", command)
    assert started.returncode == 0, started.stderr
    try:
        screen = tmux.wait_for(session, "webshop 0")
        assert "steps 0/30" in screen.splitlines()[0]
        tmux("send-keys", "-t", session, "c")
        tmux.wait_for(session, "awaiting expansion")
        tmux.wait_for(session, "2  Action:")  # the editor holds the answer format
        tmux("send-keys", "-t", session, "C-a")  # the person replaces it with the whole answer
        tmux("send-keys", "-t", session, "-l", "Thought: search with the product's words")
        tmux("send-keys", "-t", session, "Enter")
        tmux("send-keys", "-t", session, "-l", "Action: search[color safe paraben free shampoo 16 fl oz]")
        tmux.wait_for(session, "one action: search[")  # the live check, as the person sees it
        tmux("send-keys", "-t", session, "C-s")
        tmux.wait_for(session, "answer accepted: search[")
        tmux("send-keys", "-t", session, "c")  # on to the next turn: the search is sent to the shop
        tmux.wait_for(session, "Act n2")  # the next turn's editor opens and takes the focus
        tmux.wait_for(session, "esc leave editor")  # the narrow key line speaks the editor's keys
        tmux("send-keys", "-t", session, "Escape")  # out of the editor: the step keys work again
        tmux.wait_for(session, "? keys")
        tmux("send-keys", "-t", session, "v")  # a narrow terminal swaps in the variables and the log
        tmux.wait_for(session, "Page actions")
        screen = tmux.wait_for(session, "Shampoo")  # the log re-wraps to its new width a redraw later
        assert "click[back to search]" in screen and "click[next >]" in screen, screen
        assert "[SEP]" in screen and "Shampoo" in screen, screen  # the results page in the environment log
        assert all(len(line) <= 80 for line in screen.splitlines())
    finally:
        tmux.kill_server()
