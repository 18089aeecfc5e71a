"""Plain mode's safety net for typed work: the draft saved while typing, and SIGHUP/SIGTERM.

The console writes `draft.json` every 2 s when the text changed
(`agent.sessions.journal.DRAFT_SECONDS`); the plain mode does the
same here, so a SIGKILL or a lost ssh link costs at most the last two seconds.
SIGHUP (the terminal closed) and SIGTERM save the text at once, in the signal
handler, before anything touches a terminal that may be gone.

Nothing here imports Textual.
"""

from __future__ import annotations

import asyncio
import re
import signal
import sys
import threading
from pathlib import Path
from typing import Callable

from agent.sessions.journal import DRAFT_SECONDS, write_draft

STOP_SIGNALS: dict[int, str] = {signal.SIGTERM: "terminated (SIGTERM)"}
if sys.platform != "win32":
    STOP_SIGNALS[signal.SIGHUP] = "terminal closed (SIGHUP)"

_EXECUTE_CLOSE = re.compile(r"\s*</execute>", re.I)


def draft_cursor_offset(text: str) -> int:
    """Where typing stopped in a restored draft: the end of the last line before `</execute>`
    (the console's `draft_cursor`), as an offset into `text`."""
    lines = text.split("\n")
    closing = next((i for i, line in enumerate(lines) if _EXECUTE_CLOSE.match(line)), len(lines))
    row = max(0, closing - 1)
    return sum(len(line) + 1 for line in lines[:row]) + len(lines[row])


class DraftAutosave:
    """Writes the editor's text to the session's `draft.json` when it changed, every DRAFT_SECONDS.

    Writes run in a thread (an fsync must not stall typing); `save_now` is for a
    signal handler and writes at once. One lock orders them, so the newest text
    is the one left on disk.
    """

    def __init__(self, folder: Path, node_id: str, text: Callable[[], str], saved: str = "") -> None:
        self.folder, self.node_id, self._text = folder, node_id, text
        self._saved = saved  # the text already on disk (or prefilled, nothing worth writing)
        self._lock = threading.Lock()
        self._task: asyncio.Task[None] | None = None
        self.error = ""
        self.saves = 0

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._every_few_seconds())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _every_few_seconds(self) -> None:
        while True:
            await asyncio.sleep(DRAFT_SECONDS)
            text = self._text()
            if text != self._saved:
                await asyncio.to_thread(self._write, text)

    def save_now(self, text: str | None = None) -> str:
        """Write the text (default: the editor's) now if it is not on disk yet; the error text or ''."""
        text = self._text() if text is None else text
        if text != self._saved:
            self._write(text)
        return self.error

    def _write(self, text: str) -> None:
        with self._lock:
            self.error = write_draft(self.folder, self.node_id, text)
            if not self.error:
                self._saved = text
                self.saves += 1


def install_stop_signals(on_signal: Callable[[str], None]) -> Callable[[], None]:
    """Call `on_signal(how)` on SIGHUP/SIGTERM (in the event loop); returns the undo."""
    loop = asyncio.get_running_loop()
    installed = []
    for number, how in STOP_SIGNALS.items():
        try:
            loop.add_signal_handler(number, on_signal, how)
            installed.append(number)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no such signal here
            continue

    def undo() -> None:
        for number in installed:
            loop.remove_signal_handler(number)

    return undo
