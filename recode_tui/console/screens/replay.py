"""The cover shown while a session replays: progress, then either nothing or why it failed.

It is modal, so the step keys cannot reach the old agent while the new one is
being built. A failure stays on screen as one line (the full text, e.g. a
replay diff, below it); nothing is written to any journal.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import LoadingIndicator, Static

from recode_tui.console.run.hosts import Sessions


class ReplayScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "back", "Back", id="replay.back"),
        Binding("S", "sessions", "Sessions", id="replay.sessions"),
        Binding("c", "salvage", "Continue from the last good point", id="replay.salvage"),
        Binding("q", "app.quit", "Quit", id="replay.quit"),
    ]

    def __init__(self, title: str, control: Sessions, *, closable: bool = True) -> None:
        super().__init__()
        self.title_text = title
        self.control = control
        self.closable = closable  # False at start-up: there is no console run to go back to
        self.failed = ""  # the one-line error, once the replay failed
        self.salvageable = False  # a failed resume can go on from its last clean point (c)
        self._detail = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="replay-box"):
            yield Static(Text(self.title_text, style="bold"), id="replay-title")
            yield Static("replaying the journal against the game…", id="replay-line")
            yield LoadingIndicator(id="replay-spinner")
            with VerticalScroll(id="replay-detail"):
                yield Static("", id="replay-detail-text", markup=False)

    def fail(self, line: str, detail: str, *, salvage: bool = False) -> None:
        """Show why the replay stopped; the console (or the sessions list) is one key away."""
        self.failed = line
        self.salvageable = salvage
        self._detail = detail
        try:
            self._show_failure()
        except NoMatches:
            pass  # not composed yet: on_mount shows it

    def on_mount(self) -> None:
        if self.failed:  # the replay failed before this cover was on screen (an unreadable journal)
            self._show_failure()

    def _show_failure(self) -> None:
        line, detail, salvage = self.failed, self._detail, self.salvageable
        self.query_one("#replay-spinner").display = False
        self.query_one("#replay-line", Static).update(Text(f"✗ {line}", style="bold red"))
        hint = "esc back to the console · S sessions · q quit" if self.closable else "S sessions · q quit"
        if salvage:
            hint = "c continue from the last point that replayed cleanly, as a new branch · " + hint
        extra = detail.split("\n", 1)[1] if "\n" in detail else ""
        self.query_one("#replay-detail-text", Static).update(Text(f"{extra}\n\n{hint}".lstrip("\n")))

    def action_back(self) -> None:
        if self.failed and self.closable:
            self.dismiss()

    def action_salvage(self) -> None:
        if self.failed and self.salvageable:
            self.control.salvage()

    def action_sessions(self) -> None:
        if self.failed:
            self.control.open_list()
