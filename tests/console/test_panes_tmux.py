"""Every pane's text read whole in a real terminal at 80x24 (tmux): what the environment said while
its pane was hidden, the variables' values, the help, the breakpoint forms and the sessions list."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from tests.rundiff.test_diff_fork import make_fork_and_parent

from .terminal import Tmux, needs_tmux

ROOT = Path(__file__).resolve().parents[2]

pytestmark = needs_tmux


@pytest.fixture
def tmux():
    server = Tmux(f"recode-tui-panes-{os.getpid()}")
    yield server
    server.kill_server()


def start(tmux: Tmux, session: str, args: str, sessions: Path) -> None:
    # Textual takes COLUMNS/LINES from the environment over the terminal's size: drop them
    command = f"cd {ROOT} && env -u COLUMNS -u LINES RECODE_TUI_SESSIONS={sessions} {sys.executable} -m recode_tui {args}"
    done = tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", command)
    assert done.returncode == 0, done.stderr


def box_text(screen: str, title: str) -> str:
    """The text of the box titled `title` (its rows between its side borders), its wrapped lines joined."""
    rows = screen.splitlines()
    top = next(i for i, row in enumerate(rows) if f"━ {title} " in row or f"─ {title} " in row)
    left = max(rows[top].find(f"━ {title} "), rows[top].find(f"─ {title} ")) - 1
    right = next(i for i in range(left + 1, len(rows[top])) if rows[top][i] in "╮┓")
    parts = []
    for row in rows[top + 1:]:
        if row[left:left + 1] not in ("│", "┃"):
            break
        parts.append(row[left + 1:right - 1].strip())  # the last column is the scrollbar's
    return re.sub(r"\s+", " ", " ".join(parts))


def test_the_log_hidden_while_the_run_went_on_reads_whole_and_values_end_in_an_ellipsis(tmux: Tmux, tmp_path) -> None:
    """The log is shown once (`v`) and hidden again; the run goes on; shown again, each observation is whole."""
    session = "hidden"
    start(tmux, session, "tui --llm demo --no-break", tmp_path)
    tmux.wait_for(session, "paused")
    tmux("send-keys", "-t", session, "v")
    tmux.wait_for_all(session, "Environment", "TASK put a vase", timeout=20)
    tmux("send-keys", "-t", session, "v")
    tmux.wait_for(session, "Code tree", timeout=20)
    tmux("send-keys", "-t", session, "c")
    tmux.wait_for(session, "episode won")
    tmux("send-keys", "-t", session, "v")
    screen = tmux.wait_for_all(session, "Environment", "instruction", timeout=20)
    log = box_text(screen, "Environment").strip()
    assert "You arrive at sidetable 1. On the sidetable 1, you see a creditcard 1, and a plate 2." in log, screen
    assert "You move the vase 1 to the sidetable 1." in log and log.endswith("══ WON (7 steps) ══"), screen
    # A value the pane cannot hold whole ends in `…`; none is cut at the pane's edge (a frame after it shows).
    tmux.wait_until(session, lambda s: any(re.search(r"instructi.*(put a vase in sidetable\.|put a[^┃│]*…)", line)
                                           for line in s.splitlines()), "the instruction whole or cut with …", timeout=20)
    tmux("send-keys", "-t", session, "z")  # the variables pane, zoomed: the values re-fit its width

    def refit(screen: str) -> bool:
        rows = screen.splitlines()
        return "Environment" not in screen and any(
            re.search(r"instruction +str +put a vase in sidetable\.", row) for row in rows) and any(
            re.search(r"observation +str +You are in the middle of a room\. Looking[^┃│]*…", row) for row in rows)

    tmux.wait_until(session, refit, "the zoomed pane's values whole, or cut with … at its wider edge", timeout=20)


def test_help_the_breakpoint_forms_and_the_sessions_list_read_whole_at_80x24(tmux: Tmux, tmp_path) -> None:
    parent, fork = make_fork_and_parent(tmp_path)  # a session and a fork of it: the list's `branch of`
    session = "reference"
    start(tmux, session, f"tui --llm demo --sessions {parent.parent}", parent.parent)
    tmux.wait_for(session, "paused")
    tmux("send-keys", "-t", session, "?")
    tmux.wait_for(session, "recode-tui — keys", timeout=20)
    tmux("send-keys", "-t", session, "End")
    screen = tmux.wait_for(session, "Human as the LLM", timeout=20)
    # Prose wrapped once, to the box: no row broken short before the box's edge.
    assert "Every stub expansion is on by default. A condition is a Python expression" in screen
    assert "over the variables, e.g. `action take .* if len(seen) > 2`." in screen, screen
    assert "every-stub · changes EXPR · note replan|re-injection  [if COND]" in screen, screen
    tmux("send-keys", "-t", session, "Escape")  # alone: esc and a key at once read as alt+key
    tmux.wait_until(session, lambda s: "Human as the LLM" not in s, "the help closed", timeout=20)
    tmux("send-keys", "-t", session, "B")
    screen = tmux.wait_for(session, "every stub expansion", timeout=20)
    assert "every-stub · changes EXPR · note replan|re-injection  [if COND]" in screen, screen  # the add box's forms
    tmux("send-keys", "-t", session, "S")
    screen = tmux.wait_for_all(session, "last activity", fork.name, timeout=20)
    assert f"↳ {parent.name} at" in screen, screen  # the session it branched from
    assert "unfinished" in screen and "cool-03 · scripted:test" in screen, screen


def test_f2_shows_the_observation_while_typing_and_the_tours_keys_do_what_the_readme_says(tmux: Tmux, tmp_path) -> None:
    """The README tour at 80x24: after `c` the editor has the keys; F2 shows the observation above it without
    taking them; `esc` then `r` shows the prompt, and nothing typed went into the answer but the answer."""
    session = "peek"
    start(tmux, session, "tui", tmp_path)
    tmux.wait_for(session, "paused")
    tmux("send-keys", "-t", session, "c")
    tmux.wait_for(session, "awaiting expansion", timeout=20)
    tmux("send-keys", "-t", session, "F2")
    tmux.wait_for(session, "Observation (peek)", timeout=20)
    tmux("send-keys", "-t", session, "-l", "fetch_vase()")
    screen = tmux.wait_for(session, "✓ 1 child node(s)", timeout=20)  # typed into the answer, the peek still shown
    peek = box_text(screen, "Observation (peek)")
    assert "you see a armchair 1, a coffeetable 2, a coffeetable 1, a diningtable 1, a drawer 1, a garbagecan 1, " \
           "a sidetable 1, and a sofa 1." in peek, screen
    assert "fetch_vase()" in screen and "Code tree" not in screen, screen
    tmux("send-keys", "-t", session, "F2")
    tmux.wait_for(session, "Code tree", timeout=20)
    tmux("send-keys", "-t", session, "Escape")
    tmux.wait_until(session, lambda s: "leave editor" not in s, "the focus out of the editor", timeout=20)
    tmux("send-keys", "-t", session, "r")
    screen = tmux.wait_for(session, "Prompt for n0", timeout=20)
    tmux("send-keys", "-t", session, "e")
    screen = tmux.wait_for(session, "leave editor", timeout=20)
    assert "✓ 1 child node(s)" in screen and "fetch_vase()r" not in screen and "fetch_vase()e" not in screen, screen
