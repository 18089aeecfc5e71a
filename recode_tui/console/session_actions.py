"""The console's keys for sessions: rewind, fork, diff against the parent, the sessions list.

A mixin of `DebugScreen` (like `ModelActions`), so the screen module stays
about layout and engine messages; the work is `SessionControl`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding

from recode_tui.console.screen_host import DebugScreenHost

if TYPE_CHECKING:
    from recode_tui.console.session_control import SessionControl

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


class SessionActions(DebugScreenHost):
    """Actions over `self.session_control` (None when the run is not journaled)."""

    session_control: "SessionControl | None"

    def action_session(self, what: str) -> None:
        control = self.session_control
        if control is None:
            self.notify(
                "This run is not journaled: start the console with --sessions DIR (or the default).",
                severity="warning",
            )
            return
        getattr(control, what)()
