"""The console under hostile input: where its crash report goes, and a slow answer check off its event loop."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from recode_tui.console.app import build_app

from .helpers import SIZE


async def test_a_crash_report_goes_to_the_sessions_folder_given_with_sessions(tmp_path: Path, monkeypatch) -> None:
    from recode_tui.console.session_control import SessionControl

    def broken(self, app) -> None:
        raise RuntimeError("a bug in the console")

    monkeypatch.setattr(SessionControl, "attach", broken)
    mine = tmp_path / "my-sessions"
    app = build_app("put-01", "demo", cursor_blink=False, sessions_dir=mine)
    with pytest.raises(RuntimeError, match="a bug in the console"):
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
    assert app.return_code == 1
    report = Path(app.crash_line.rsplit("traceback in ", 1)[1])
    assert report.parent == mine / ".crashes" and "RuntimeError: a bug in the console" in report.read_text()
    default = Path(os.environ["RECODE_TUI_SESSIONS"]) / ".crashes"  # the folder it went to before
    assert not default.exists() or not any(default.iterdir())
