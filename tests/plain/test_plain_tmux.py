"""The plain mode in a real 80x24 terminal (tmux): lines break between words, an event line shows the
whole observation, a two-line refusal and the key line are shown whole.

Before: the terminal cut lines mid-word (`a drawe` / `r 1`), the event line ended `you see a laptop 1…`
(the vase, the task's object, hidden), the refusal kept one row (`the actions are: go to {`) and the key
line lost `Ctrl-D pause`.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest

from tests.console.terminal import Tmux, needs_tmux

ROOT = Path(__file__).resolve().parents[2]
SIZE = (80, 24)

pytestmark = [pytest.mark.heavy, needs_tmux]


class Plain:
    def __init__(self, tmp_path: Path) -> None:
        self.tmux, self.session = Tmux(f"recode-plain-{os.getpid()}"), "plain"
        command = (f"cd {ROOT} && env -u COLUMNS -u LINES RECODE_TUI_SESSIONS={tmp_path / 'sessions'} "
                   f"{sys.executable} -m recode_tui run --game put-01 --llm human --agent react; sleep 60")
        done = self.tmux("new-session", "-d", "-s", self.session, "-x", str(SIZE[0]), "-y", str(SIZE[1]), command)
        assert done.returncode == 0, done.stderr

    def screen(self, history: int = 0) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.session, *(("-S", f"-{history}") if history else ())).stdout

    def wait(self, *texts: str, timeout: float = 90.0, history: int = 0) -> str:
        """The first screen that shows every one of `texts` at once: a state, not the moment the first appears
        (the terminal paints an answer's rows and then the key line below them)."""
        deadline = time.monotonic() + timeout
        shown = ""
        while time.monotonic() < deadline:
            shown = self.screen(history)
            words = " ".join(shown.split())  # read as words: a wrapped line joins again
            if all(text in words for text in texts):
                return shown
            time.sleep(0.2)
        raise AssertionError(f"{texts!r} never appeared together; the screen was:\n{shown}")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.session, *keys)

    def text(self, text: str) -> None:
        self.tmux("send-keys", "-t", self.session, "-l", text)


def no_word_cut(screen: str) -> None:
    """No row is wider than the terminal, and no row ends inside a word the next row finishes."""
    rows = screen.splitlines()
    assert all(len(row) <= SIZE[0] for row in rows)
    for row, after in zip(rows, rows[1:]):
        if len(row) == SIZE[0] and row[-1].isalnum() and after[:1].isalnum():
            raise AssertionError(f"a word cut at the edge:\n{row}\n{after}")


def test_the_plain_mode_at_80x24_wraps_whole_words_and_shows_whole_observations_and_refusals(tmp_path):
    plain = Plain(tmp_path)
    try:
        room = "you see a armchair 1, a coffeetable 2, a coffeetable 1, a diningtable 1, a drawer 1"
        screen = plain.wait("Ctrl-D pause", room)  # the key line, whole, below the first observation
        no_word_cut(screen)
        plain.keys("C-e")
        plain.text(" look")
        plain.keys("Down", "End")
        plain.text(" fly to the moon")
        plain.keys("Escape", "Enter")
        # the refusal's first line, its second and third, and the key line drawn again below them
        screen = plain.wait("is not an action of alfworld", "examine {obj|recep}, look, inventory", "Ctrl-D pause")
        no_word_cut(screen)
        for _ in "fly to the moon":
            plain.keys("BSpace")
        plain.text("go to diningtable 1")
        plain.keys("Escape", "Enter")
        screen = plain.wait("a laptop 1, a pen 1, a plate 1, and a vase 1.", history=200)
        observation = re.search(r"observation 1: .*?vase 1\.", " ".join(screen.split()))
        assert observation and "…" not in observation.group(0)
    finally:
        plain.tmux.kill_server()
