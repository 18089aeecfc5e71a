"""Opening an eval's journal in the console never writes the eval's folder (a toy episode played by its gold
answers: a resume of `--llm demo` on the toy world falls back to the person, its demo script looked up
for the recode agent)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agent.sessions.debug_settings import SETTINGS_FILE
from agent.sessions.journal_read import read_journal
from recode_tui.console.app import build_app

from .helpers import SIZE, notifications
from .page import toy_app
from .test_fork_paths import resumed
from .test_pilot import add_breakpoint

ROOT = Path(__file__).resolve().parents[2]


def contents(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


async def test_an_eval_journal_opened_in_the_console_carries_on_in_a_copy(tmp_path: Path, toy_env) -> None:
    out = tmp_path / "eval"
    done = subprocess.run(
        [sys.executable, "-m", "recode_tui", "eval", "--env", "toy", "--games", "coin-1", "--agent", toy_env.AGENT, "--llm", "gold",
         "-o", str(out), "--no-progress"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    [journal] = [p for p in (out / "journals").iterdir() if (p / "journal.jsonl").is_file()]
    before = contents(out)
    sessions = tmp_path / "sessions"

    app = toy_app(agent=toy_env.AGENT, sessions_dir=sessions, resume=journal)
    async with app.run_test(size=SIZE) as pilot:
        await resumed(pilot, app)
        copy = app.session_control.session.folder
        assert copy.parent == sessions
        assert app.debug_screen.agent.host.finished is not None and app.debug_screen.agent.host.finished.success  # the eval's run, rebuilt
        assert any("never written" in n.message for n in notifications(app))
        await add_breakpoint(pilot, app, "action ^take")
        await app.workers.wait_for_complete([w for w in app.workers if w.group == "settings"])  # its debug.json write
        assert (copy / SETTINGS_FILE).is_file()
    assert contents(out) == before  # the eval's folder: not one byte changed, no debug.json
    header = read_journal(copy).header
    assert header.parent.folder == str(journal) and header.parent.at == "copy"
    assert read_journal(copy).finished["success"] is True
    assert [r for r in read_journal(copy).records] == read_journal(journal).records
