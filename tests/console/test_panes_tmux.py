"""Every pane's text read whole in a real terminal at 80x24 (tmux): what the environment said while
its pane was hidden, the variables' values, the help, the breakpoint forms and the sessions list."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.rundiff.test_diff_fork import make_fork_and_parent

from .terminal import TOY_WORLD, Tmux, needs_tmux, pane_keys, recode_tui

pytestmark = [pytest.mark.heavy, needs_tmux]  # the sandbox worker (and real ALFWorld for the log's text), in tmux


def start(tmux: Tmux, session: str, args: str, sessions: Path, env: str = "") -> None:
    """`recode-tui ARGS` at 80x24, journaling into `sessions`, once its panes have the keys (`env`: more
    `NAME=value` for its process)."""
    tmux.start(session, (80, 24), recode_tui(args, env=f"RECODE_TUI_SESSIONS={sessions} {env}"))
    tmux.screen_showing(session, "paused")
    tmux.screen_showing(session, pane_keys(80), line=-1)


def box_text(screen: str, title: str) -> str:
    """The text of the box titled `title` (its rows between its side borders), its wrapped lines joined;
    empty while the box is not drawn."""
    rows = screen.splitlines()
    top = next((i for i, row in enumerate(rows) if f"━ {title} " in row or f"─ {title} " in row), None)
    if top is None:
        return ""
    left = max(rows[top].find(f"━ {title} "), rows[top].find(f"─ {title} ")) - 1
    right = next((i for i in range(left + 1, len(rows[top])) if rows[top][i] in "╮┓"), None)
    if right is None:
        return ""
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
    try:
        tmux.keys(session, "v")
        tmux.screen_showing(session, "Environment", "TASK put a vase")
        tmux.keys(session, "v")
        tmux.screen_when(session, lambda s: "Code tree" in s and "Environment" not in s, "the tree back")
        tmux.keys(session, "c")
        tmux.screen_showing(session, "episode won")
        tmux.keys(session, "v")

        def log_whole(screen: str) -> bool:
            log = box_text(screen, "Environment").strip()
            return ("You arrive at sidetable 1. On the sidetable 1, you see a creditcard 1, and a plate 2." in log
                    and "You move the vase 1 to the sidetable 1." in log and log.endswith("══ WON (7 steps) ══"))

        tmux.screen_when(session, lambda s: "instruction" in s and log_whole(s), "every observation whole in the log")
        # A value the pane cannot hold whole ends in `…`; none is cut at the pane's edge (a frame after it shows).
        tmux.screen_when(session, lambda s: any(re.search(r"instructi.*(put a vase in sidetable\.|put a[^┃│]*…)", line)
                                                for line in s.splitlines()), "the instruction whole or cut with …")
        tmux.keys(session, "z")  # the variables pane, zoomed: the values re-fit its width

        def refit(screen: str) -> bool:
            rows = screen.splitlines()
            return "Environment" not in screen and any(
                re.search(r"instruction +str +put a vase in sidetable\.", row) for row in rows) and any(
                re.search(r"observation +str +You are in the middle of a room\. Looking[^┃│]*…", row) for row in rows)

        tmux.screen_when(session, refit, "the zoomed pane's values whole, or cut with … at its wider edge")
    finally:
        tmux.kill_session(session)


def test_help_the_breakpoint_forms_and_the_sessions_list_read_whole_at_80x24(tmux: Tmux, tmp_path) -> None:
    parent, fork = make_fork_and_parent(tmp_path)  # a session and a fork of it: the list's `branch of`
    session = "reference"
    # the toy world's vase-1: the help, the forms and the list are the console's, whatever the game
    start(tmux, session, f"tui --game toy:vase-1 --llm gold --sessions {parent.parent}", parent.parent, TOY_WORLD)
    try:
        tmux.keys(session, "?")
        tmux.screen_showing(session, "recode-tui — keys")
        tmux.keys(session, "End")
        # Prose wrapped once, to the box: no row broken short before the box's edge.
        tmux.screen_showing(session, "Human as the LLM",
                            "Every stub expansion is on by default. A condition is a Python expression",
                            "over the variables, e.g. `action take .* if len(seen) > 2`.",
                            "every-stub · changes EXPR · note replan|re-injection  [if COND]")
        tmux.keys(session, "Escape")  # alone: esc and a key at once read as alt+key
        tmux.screen_when(session, lambda s: "Human as the LLM" not in s, "the help closed")
        tmux.keys(session, "B")
        # the add box's forms
        tmux.screen_showing(session, "every stub expansion", "every-stub · changes EXPR · note replan|re-injection  [if COND]")
        tmux.keys(session, "S")
        tmux.screen_showing(session, "last activity", fork.name,
                            f"↳ {parent.name} at",  # the session it branched from
                            "unfinished", "cool-03 · scripted:test")
    finally:
        tmux.kill_session(session)


def test_f2_shows_the_observation_while_typing_and_the_tours_keys_do_what_the_readme_says(tmux: Tmux, tmp_path) -> None:
    """The README tour at 80x24: after `c` the editor has the keys; F2 shows the observation above it without
    taking them; `esc` then `r` shows the prompt, and nothing typed went into the answer but the answer."""
    session = "peek"
    start(tmux, session, "tui --game toy:vase-1", tmp_path, TOY_WORLD)  # the toy world's put-01
    room = "You are in the middle of a room. Looking quickly around you, you see a coffeetable 1, a diningtable 1, a sidetable 1."
    try:
        tmux.keys(session, "c")
        tmux.screen_showing(session, "awaiting expansion")
        tmux.screen_showing(session, "esc leave editor", line=-1)
        tmux.keys(session, "F2")
        tmux.screen_showing(session, "Observation (peek)")
        tmux.text(session, "fetch_vase()")
        # typed into the answer, the peek still shown
        tmux.screen_when(session, lambda s: "✓ 1 child node(s)" in s and "fetch_vase()" in s and "Code tree" not in s
                         and room in box_text(s, "Observation (peek)"), "the answer typed below the whole observation")
        tmux.keys(session, "F2")
        tmux.screen_showing(session, "Code tree")
        tmux.keys(session, "Escape")
        tmux.screen_when(session, lambda s: "leave editor" not in s, "the focus out of the editor")
        tmux.keys(session, "r")
        tmux.screen_showing(session, "Prompt for n0")
        tmux.keys(session, "e")
        screen = tmux.screen_showing(session, "leave editor", "✓ 1 child node(s)")
        assert "fetch_vase()r" not in screen and "fetch_vase()e" not in screen, screen
    finally:
        tmux.kill_session(session)
