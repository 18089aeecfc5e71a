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

from agent.sessions.journal_read import Journal
from agent.sessions.listing import last_activity, list_sessions
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


COLUMNS_SHOWN = ("", "session", "game", "result", "steps", "last activity", "LLM", "branch of")
# Where one line a row would not fit the table (80 columns; long branch names at 120) a row's columns are
# stacked: the session over its game and LLM and the session it branched from, the result over the steps,
# the day over the time.
NARROW_COLUMNS_SHOWN = ("", "session · game · LLM · ↳ branch of", "result", "last activity")

def wide_width(rows: list[SessionRow]) -> int:
    """The width one line a row takes: each column as wide as its widest cell or label, a cell's padding
    on each side, and a scrollbar's column."""
    cells = [("", "session", "game", "result", "steps", "last activity", "LLM", "branch of")] + [
        (" ", r.session_id, r.game, r.result, str(r.steps), activity_text(r.active), r.llm, r.parent) for r in rows]
    return sum(max(len(line[i]) for line in cells) + 2 for i in range(len(cells[0]))) + 1


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
        self.narrow = False  # a row's columns stacked (set when the rows are shown: one line a row does not fit)

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions-box"):
            yield Static(Text.assemble(("Sessions", "bold"), "  in ", shown(self.sessions_dir), "   ",
                                       ("enter resumes · u unfinished only · esc closes", "dim")), id="sessions-title")
            yield DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
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
        table.clear(columns=True)
        self.narrow = wide_width(rows) > (table.size.width or self.app.size.width - 6)
        for label in NARROW_COLUMNS_SHOWN if self.narrow else COLUMNS_SHOWN:
            table.add_column(label, key=label or "mark")
        for row in rows:
            here = self.current is not None and row.folder.resolve() == self.current.resolve()
            mark = Text("●" if here else " ", "bold cyan")
            session = shown(row.session_id, "bold" if here else "")  # a journal's text: shown, never markup
            result = Text(row.result, RESULT_STYLES.get(row.result, ""))
            if self.narrow:  # a row of lines stacked, so every column fits 80 columns whole
                session.append("\n")
                session.append_text(shown(f"{row.game} · {row.llm}", "dim"))
                if row.parent:
                    session.append("\n")
                    session.append_text(shown(f"↳ {row.parent}", "magenta"))
                result.append(f"\n{row.steps} steps")
                table.add_row(mark, session, result, activity_text(row.active).replace(" ", "\n"),
                              key=str(row.folder), height=3 if row.parent else 2)
                continue
            table.add_row(mark, session, shown(row.game), result, str(row.steps), activity_text(row.active),
                          shown(row.llm), shown(row.parent, "magenta"), key=str(row.folder))
        if not rows:
            self.query_one("#sessions-title", Static).update(
                Text.assemble("No sessions in ", shown(self.sessions_dir), " yet (esc closes)", style="bold")
            )
        self.loaded = True

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value:
            self.dismiss(Path(event.row_key.value))
