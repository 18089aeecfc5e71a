"""How the console ends on a bug: one line on stderr, the traceback in a file, a non-zero exit.

Textual's default prints a screenful of traceback with locals and leaves the
exit code to the caller (ours returned 0). A mixin of `RecodeApp` replaces the
fatal-error hook: the traceback goes to `<sessions dir>/.crashes/`, and
`crash_line` is the one line the command line prints before exiting 1.
Journals, drafts and unsaved prompt edits are already on disk (each is
written as it changes), so nothing else needs saving here.

The hook itself is Textual's private `App._fatal_error`, reached through
`textual_compat.FatalErrorHook` (the one module that touches Textual's private
names); tests/console/test_workspace_crash.py and test_textual_compat.py fail
if an upgrade changes it.
"""

from __future__ import annotations

import os
import time
import traceback
from pathlib import Path

from recode_tui.console.run.hosts import ConsoleApp
from recode_tui.console.support.textual_compat import FatalErrorHook


def crash_folder(sessions_dir: Path | None = None) -> Path:
    """`.crashes` in the sessions folder the console was given (`--sessions`), else the default one."""
    from recode_tui.setup.places import sessions_dir_from

    return (sessions_dir if sessions_dir is not None else sessions_dir_from(None)) / ".crashes"


def write_crash_report(error: BaseException, folder: Path | None = None) -> Path | None:
    """The whole traceback in a new file; None when it cannot be written."""
    folder = folder or crash_folder()
    path = folder / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        text = "".join(traceback.format_exception(error))
        path.write_text(text, encoding="utf-8", errors="backslashreplace")  # a model's lone surrogate too
    except OSError:
        return None
    return path


def crash_line(error: BaseException, report: Path | None) -> str:
    text = str(error).strip().split("\n", 1)[0][:200]
    where = f"; traceback in {report}" if report is not None else ""
    return f"recode-tui: internal error: {type(error).__name__}: {text}{where}"


class CrashReport(FatalErrorHook):
    """Mixin for the App: an unhandled exception ends the app with `crash_line` set."""

    crash_line: str = ""

    def on_fatal_error(self, error: BaseException) -> None:
        control = self.session_control if isinstance(self, ConsoleApp) else None  # it knows the --sessions folder
        folder = crash_folder(control.sessions_dir if control is not None else None)
        self.crash_line = crash_line(error, write_crash_report(error, folder))
        self.bell()
