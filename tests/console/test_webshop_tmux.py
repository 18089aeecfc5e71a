"""WebShop in the real console in a real 80x24 terminal (tmux): a person answering as ReAct types
a `search[...]` action, steps, and sees the results page in the log and its clickables beside the
variables."""

from __future__ import annotations

import pytest

from .terminal import Tmux, editor_keys, needs_tmux, pane_keys, recode_tui

pytestmark = [pytest.mark.heavy, needs_tmux]


def test_a_person_searches_the_shop_at_80x24_and_sees_the_results(tmux: Tmux, tmp_path) -> None:
    session = "shop"
    env = f"-u WEBSHOP_DATA RECODE_TUI_CACHE={tmp_path / 'cache'} WEBSHOP_NOUNS=fallback"
    tmux.start(session, (80, 24), recode_tui(f"tui --env webshop --game 0 --llm human --agent react "
                                             f"--sessions {tmp_path / 'sessions'}", env=env))
    try:
        tmux.screen_showing(session, "webshop 0")
        tmux.screen_showing(session, "steps 0/30", line=0)
        tmux.screen_showing(session, pane_keys(80), line=-1)
        tmux.keys(session, "c")
        tmux.screen_showing(session, "awaiting expansion", "2  Action:")  # the editor holds the answer format
        tmux.screen_showing(session, *editor_keys(80), line=-1)
        tmux.keys(session, "C-a")  # the person replaces it with the whole answer
        tmux.text(session, "Thought: search with the product's words")
        tmux.keys(session, "Enter")
        tmux.text(session, "Action: search[color safe paraben free shampoo 16 fl oz]")
        tmux.screen_showing(session, "one action: search[")  # the live check, as the person sees it
        tmux.keys(session, "C-s")
        tmux.screen_showing(session, "answer accepted: search[")
        tmux.screen_showing(session, pane_keys(80), line=-1)
        tmux.keys(session, "c")  # on to the next turn: the search is sent to the shop
        tmux.screen_showing(session, "Act n2")  # the next turn's editor opens and takes the focus
        tmux.screen_showing(session, *editor_keys(80), line=-1)  # the narrow key line speaks the editor's keys
        tmux.keys(session, "Escape")  # out of the editor: the step keys work again
        tmux.screen_showing(session, "? keys", line=-1)
        tmux.keys(session, "v")  # a narrow terminal swaps in the variables and the log
        # the log re-wraps to its new width a redraw later: the results page in the environment log
        screen = tmux.screen_showing(session, "Page actions", "Shampoo", "click[back to search]", "click[next >]", "[SEP]")
        assert all(len(line) <= 80 for line in screen.splitlines())
    finally:
        tmux.kill_session(session)
