"""The console resuming a journal from elsewhere says its code runs again in the sandbox."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .helpers import SIZE, notifications, started
from .page import toy_app

ROOT = Path(__file__).resolve().parents[2]


async def test_resuming_a_journal_from_elsewhere_notifies_that_its_code_runs_in_the_sandbox(tmp_path: Path, toy_env) -> None:
    mail = tmp_path / "mail"
    played = subprocess.run([sys.executable, "-m", "recode_tui", "run", "--llm", "demo", "--game", "toy:coin-1",
                             "--agent", toy_env.AGENT, "--quiet", "--sessions", str(mail)],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert played.returncode == 0, played.stderr
    folder = next(mail.iterdir())
    app = toy_app(sessions_dir=tmp_path / "sessions", resume=folder)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)  # the resumed run is shown; the note came with its session
        note = next(n.message for n in notifications(app) if "from elsewhere" in n.message)
        assert "outside your sessions folder" in note and "runs again in the sandbox when it is resumed" in note
        assert f"recode-tui tui --open {folder}" in note
