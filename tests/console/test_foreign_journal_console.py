"""The console resuming a journal from elsewhere says its code runs again in the sandbox."""

from __future__ import annotations

import os
from pathlib import Path

from tests.eval.helpers import run_main

from .helpers import SIZE, notifications, started
from .page import toy_app

ROOT = Path(__file__).resolve().parents[2]


async def test_resuming_a_journal_from_elsewhere_notifies_that_its_code_runs_in_the_sandbox(tmp_path: Path, toy_env) -> None:
    mail = tmp_path / "mail"
    played = run_main(["run", "--llm", "demo", "--game", "toy:coin-1", "--agent", toy_env.AGENT, "--quiet",
                       "--sessions", str(mail)], dict(os.environ), cwd=ROOT)  # the command line, in-process
    assert played.returncode == 0, played.stderr
    folder = next(mail.iterdir())
    app = toy_app(sessions_dir=tmp_path / "sessions", resume=folder)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)  # the resumed run is shown; the note came with its session
        note = next(n.message for n in notifications(app) if "from elsewhere" in n.message)
        assert "outside your sessions folder" in note and "runs again in the sandbox when it is resumed" in note
        assert f"recode-tui tui --open {folder}" in note
