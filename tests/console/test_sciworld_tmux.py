"""ScienceWorld's boil/0 solved in the real console in a real terminal (tmux), typed as a person types."""

from __future__ import annotations

import shutil

import pytest

from .terminal import Tmux, editor_keys, needs_tmux, pane_keys, recode_tui
from .test_sciworld_console import BOIL

pytestmark = [pytest.mark.heavy, needs_tmux, pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (.ci/run installs one)")]


def test_a_person_boils_water_in_the_console_in_tmux(tmux: Tmux, tmp_path) -> None:
    session = "boil"
    tmux.start(session, (160, 48), recode_tui(f"tui --env sciworld --game boil/0 --llm human --sessions {tmp_path}"))
    try:
        tmux.screen_showing(session, "TASK Your task is to boil water", "sciworld boil/0")
        tmux.screen_showing(session, "score 0/100", line=0)
        tmux.screen_showing(session, pane_keys(160), line=-1)
        tmux.keys(session, "c")
        tmux.screen_showing(session, "awaiting expansion")
        tmux.screen_showing(session, *editor_keys(160), line=-1)
        keys: list[str] = []
        for index, action in enumerate(BOIL):
            if index:
                keys += ["send-keys", "-t", session, "Enter", ";"]
            keys += ["send-keys", "-t", session, "-l", f'run("{action}")', ";"]
        tmux(*keys[:-1])
        tmux.screen_showing(session, f"✓ {len(BOIL)} child node(s)")  # the live check, as the person sees it
        tmux.keys(session, "C-s")
        tmux.screen_showing(session, f"expansion accepted: {len(BOIL)} child node(s)")
        tmux.screen_showing(session, pane_keys(160), line=-1)
        tmux.keys(session, "c")
        tmux.screen_showing(session, "episode won")
        tmux.screen_showing(session, "score 100/100", line=0)  # the status line
        tmux.screen_showing(session, "score 75 → 100", "WON")  # the environment log's last score change
    finally:
        tmux.kill_session(session)
