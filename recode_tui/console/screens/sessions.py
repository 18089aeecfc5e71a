"""`S`: the recorded sessions, latest activity first, with game, result and the session each branched from.

Reading every journal takes a moment with many sessions, so the list is read
in a thread and filled in when ready. Enter resumes the highlighted session;
the one the console is in now is marked; `u` shows unfinished sessions only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from agent.sessions.journal import Journal, last_activity, list_sessions
from recode_tui.setup.shown import shown


@dataclass(frozen=True)
class SessionRow:
    """One session as the list shows it."""

    folder: Path
    session_id: str
    game: str
    result: str  # won | failed | unfinished | corrupt (the journal has a line that is not a record)
    steps: int
    llm: str
    parent: str  # "" or "<session> at <label>"
    active: float = 0.0  # last activity: the journal's last record or the draft's last save


def session_row(journal: Journal) -> SessionRow:
    finished = journal.finished
    result = "corrupt" if journal.problem else (
        "unfinished" if finished is None else ("won" if finished.get("success") else "failed"))
    steps = finished.get("steps", 0) if finished else sum(r.get("type") == "action" for r in journal.records)
    parent = journal.header.parent
    branch = f"{parent.session or '?'} at {parent.at or '?'}" if parent is not None else ""
    return SessionRow(journal.folder, journal.session_id, journal.header.game or "?", result, steps,
                      journal.llm_setup[0], branch, last_activity(journal.folder))


def activity_text(when: float) -> str:
    """Last activity as the list shows it: the time today, else the date and time."""
    if not when:
        return "?"
    same_day = time.strftime("%Y-%m-%d", time.localtime(when)) == time.strftime("%Y-%m-%d")
    return time.strftime("%H:%M:%S" if same_day else "%Y-%m-%d %H:%M", time.localtime(when))


RESULT_STYLES = {"won": "bold green", "failed": "bold red", "unfinished": "yellow", "corrupt": "bold red reverse"}


class SessionsScreen(ModalScreen[Path | None]):
    """Dismissed with the chosen session's folder, or None."""

    BINDINGS = [
        Binding("escape,q", "dismiss(None)", "Close", id="sessions.close"),
        Binding("u", "toggle_unfinished", "Unfinished only", id="sessions.unfinished"),
    ]

    def __init__(self, sessions_dir: Path, current: Path | None = None) -> None:
        super().__init__()
        self.sessions_dir = sessions_dir
        self.current = current
        self.rows: list[SessionRow] = []
        self.all_rows: list[SessionRow] = []
        self.unfinished_only = False
        self.loaded = False

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions-box"):
            yield Static(Text.assemble(("Sessions", "bold"), "  in ", shown(self.sessions_dir), "   ",
                                       ("enter resumes · u unfinished only · esc closes", "dim")), id="sessions-title")
            yield DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label in ("", "session", "game", "result", "steps", "last activity", "LLM", "branch of"):
            table.add_column(label, key=label or "mark")
        table.loading = True
        table.focus()
        self.load()

    @work(thread=True, group="sessions-list", exclusive=True)
    def load(self) -> None:
        rows = sorted((session_row(j) for j in list_sessions(self.sessions_dir)), key=lambda r: r.active, reverse=True)
        self.app.call_from_thread(self.show_rows, rows)

    def action_toggle_unfinished(self) -> None:
        if self.loaded:
            self.unfinished_only = not self.unfinished_only
            self.show_rows(self.all_rows)

    def show_rows(self, rows: list[SessionRow]) -> None:
        self.all_rows = rows
        rows = [r for r in rows if r.result == "unfinished"] if self.unfinished_only else rows
        self.rows = rows
        table = self.query_one(DataTable)
        table.loading = False
        table.clear()
        for row in rows:
            here = self.current is not None and row.folder.resolve() == self.current.resolve()
            table.add_row(
                Text("●" if here else " ", "bold cyan"),
                shown(row.session_id, "bold" if here else ""),  # a journal's text: shown, never markup
                shown(row.game),
                Text(row.result, RESULT_STYLES.get(row.result, "")),
                str(row.steps),
                activity_text(row.active),
                shown(row.llm),
                shown(row.parent, "magenta"),
                key=str(row.folder),
            )
        if not rows:
            self.query_one("#sessions-title", Static).update(
                Text.assemble("No sessions in ", shown(self.sessions_dir), " yet (esc closes)", style="bold")
            )
        self.loaded = True

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value:
            self.dismiss(Path(event.row_key.value))
