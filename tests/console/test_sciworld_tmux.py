"""ScienceWorld's boil/0 solved in the real console in a real terminal (tmux), typed as a person types."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from .terminal import Tmux, needs_tmux
from .test_sciworld_console import BOIL

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.heavy, needs_tmux, pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (.ci/run installs one)")]


def test_a_person_boils_water_in_the_console_in_tmux(tmp_path) -> None:
    tmux = Tmux(f"recode-tui-sciworld-{os.getpid()}")
    session = "boil"
    # Textual takes COLUMNS/LINES from the environment over the terminal's size: drop them
    command = (f"cd {ROOT} && env -u COLUMNS -u LINES {sys.executable} -m recode_tui tui --env sciworld "
               f"--game boil/0 --llm human --sessions {tmp_path}")
    started = tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "48", command)
    assert started.returncode == 0, started.stderr
    try:
        screen = tmux.wait_for(session, "TASK Your task is to boil water")
        assert "sciworld boil/0" in screen and "score 0/100" in screen.splitlines()[0]
        tmux("send-keys", "-t", session, "c")
        tmux.wait_for(session, "awaiting expansion")
        keys: list[str] = []
        for index, action in enumerate(BOIL):
            if index:
                keys += ["send-keys", "-t", session, "Enter", ";"]
            keys += ["send-keys", "-t", session, "-l", f'run("{action}")', ";"]
        tmux(*keys[:-1])
        tmux.wait_for(session, f"✓ {len(BOIL)} child node(s)")  # the live check, as the person sees it
        tmux("send-keys", "-t", session, "C-s")
        tmux.wait_for(session, f"expansion accepted: {len(BOIL)} child node(s)")
        tmux("send-keys", "-t", session, "c")
        screen = tmux.wait_for(session, "episode won")
        assert "score 100/100" in screen.splitlines()[0]  # the status line
        assert "score 75 → 100" in screen  # the environment log's last score change
        assert "WON" in screen
    finally:
        tmux.kill_server()
