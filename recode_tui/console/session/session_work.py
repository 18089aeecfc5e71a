"""The person's work in the open session, kept on disk: the draft being typed (draft.json) and the
breakpoints and watches (debug.json).

`WorkKeeper` belongs to the session control. Each file is written only when what
it holds changed, by a thread worker of the app; when writes overlap, the latest
wins (a lock per file). A failed write is handed to `report` (the session control
shows it once on the status line and in a notice).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

from agent.sessions.debug_settings import DebugSettings, read_debug_settings, write_debug_settings
from agent.runtime.breakpoints import Breakpoint
from agent.sessions.journal import write_draft
from agent.sessions.session import Session
from recode_tui.console.run.hosts import ConsoleApp


class WorkKeeper:
    """Writes a session's draft and debugging set-up when they change, in a thread."""

    def __init__(self, report: Callable[[str], None], shown_error: Callable[[], str]) -> None:
        self.report = report  # called on the app's thread with a write error
        self.shown_error = shown_error  # the error shown last: a draft error is not shown twice
        self.app: ConsoleApp | None = None
        self._latest_draft: tuple[Path, str, str] | None = None
        self._saved_draft: tuple[str, str] | None = None
        self._draft_lock = threading.Lock()
        self._saved_settings: tuple[Path, tuple] | None = None  # (folder, fingerprint) last written to debug.json
        self._latest_settings: tuple[Path, DebugSettings] | None = None
        self._settings_lock = threading.Lock()

    def reopened_draft(self, session: Session) -> dict[str, str]:
        """The draft a newly opened session kept (node id -> text), known as written already."""
        self._saved_draft = None
        draft = session.draft
        if not draft or not draft.get("node_id"):
            return {}
        node_id, text = draft["node_id"], draft.get("text", "")
        self._saved_draft = (node_id, text)
        return {node_id: text}

    def reopened_settings(self, session: Session) -> tuple[list[Breakpoint] | None, list[str] | None]:
        """The breakpoints and watches a resumed session kept (None, None: it kept none), known as
        written already; a line of debug.json that cannot be read is a note of the session."""
        settings, notes = read_debug_settings(session.folder)
        session.notes.extend(notes)
        if settings is None:
            return None, None
        self._saved_settings = (session.folder, settings.fingerprint())
        return settings.breakpoints, settings.watches

    def save_settings(self, app: ConsoleApp, folder: Path, settings: DebugSettings) -> None:
        """Write the breakpoints and watches to `folder`'s debug.json if they changed."""
        key = (folder, settings.fingerprint())
        if key == self._saved_settings:
            return
        self._saved_settings = key
        self._latest_settings = (folder, settings)
        self.app = app
        app.run_worker(self._write_latest_settings, thread=True, group="settings", exit_on_error=False)

    def _write_latest_settings(self) -> None:
        with self._settings_lock:  # the latest set-up wins, whichever thread gets here last
            if self._latest_settings is None:
                return
            error = write_debug_settings(*self._latest_settings)
        if error and self.app is not None:
            self.app.call_from_thread(self.report, error)

    def save_draft(self, app: ConsoleApp, folder: Path, node_id: str, text: str) -> None:
        """Write the expansion being typed to `folder`'s draft.json if it changed."""
        if (node_id, text) == self._saved_draft:
            return
        self._saved_draft = (node_id, text)
        self._latest_draft = (folder, node_id, text)
        self.app = app
        app.run_worker(self._write_latest_draft, thread=True, group="draft", exit_on_error=False)

    def _write_latest_draft(self) -> None:
        with self._draft_lock:  # the latest text wins, whichever thread gets here last
            if self._latest_draft is None:
                return
            error = write_draft(*self._latest_draft)
        if error and self.app is not None and error != self.shown_error():
            self.app.call_from_thread(self.report, error)
