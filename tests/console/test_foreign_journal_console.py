"""The console resuming a journal from elsewhere says its code runs again in the sandbox."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from recode_tui.console.app import build_app

from .helpers import SIZE, wait_for
from tests.settings import console_options

ROOT = Path(__file__).resolve().parents[2]


async def test_resuming_a_journal_from_elsewhere_notifies_that_its_code_runs_in_the_sandbox(tmp_path: Path) -> None:
    mail = tmp_path / "mail"
    played = subprocess.run([sys.executable, "-m", "recode_tui", "run", "--llm", "demo", "--game", "put-01", "--quiet",
                             "--sessions", str(mail)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert played.returncode == 0, played.stderr
    folder = next(mail.iterdir())
    app = build_app(console_options("put-01", "demo", sessions_dir=tmp_path / "sessions", resume=folder))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: any("from elsewhere" in n.message for n in app._notifications),
                       what="the note on a journal from elsewhere")
        note = next(n.message for n in app._notifications if "from elsewhere" in n.message)
        assert "outside your sessions folder" in note and "runs again in the sandbox when it is resumed" in note
        assert f"recode-tui tui --open {folder}" in note
