"""The console's keys for sessions: rewind, fork, diff against the parent, the sessions list.

The work is the session control's (`session_control.SessionControl`, seen here
through `hosts.Sessions`); the debug screen's `action_session` calls `run_session_action`.
"""

from __future__ import annotations

from typing import Callable

from textual.binding import Binding
from textual.screen import Screen

from recode_tui.console.run.hosts import Sessions

SESSION_BINDINGS = [
    Binding("R", "session('rewind')", "Rewind", id="session.rewind", show=False,
            tooltip="A new branch session, stopped just before the selected node runs"),
    Binding("F", "session('fork')", "Fork", id="session.fork", show=False,
            tooltip="A new branch session at the selected stub's expansion, to answer it differently"),
    Binding("D", "session('diff_parent')", "Diff vs parent", id="session.diff-parent", show=False,
            tooltip="This branch (a fork, a rewind) side by side with the session it was made from"),
    Binding("S", "session('open_list')", "Sessions", id="session.list", show=False,
            tooltip="Recorded sessions with game, result and branches; enter resumes one"),
]


def session_commands(control: Sessions) -> dict[str, Callable[[], None]]:
    """The names `SESSION_BINDINGS` give `action_session`, and what each one does."""
    return {"rewind": control.rewind, "fork": control.fork, "diff_parent": control.diff_parent,
            "open_list": control.open_list}


def run_session_action(screen: Screen[None], control: Sessions | None, what: str) -> None:
    """`R`, `F`, `D`, `S`: the session control acts, or the screen says the run is not journaled."""
    if control is None:
        screen.notify(
            "This run is not journaled: start the console with --sessions DIR (or the default).",
            severity="warning",
        )
        return
    session_commands(control)[what]()
