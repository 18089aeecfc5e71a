"""Opening an eval's journal in the console never writes the eval's folder (a toy episode played by its gold
answers: a resume of `--llm demo` on the toy world falls back to the person, its demo script looked up
for the recode agent)."""

from __future__ import annotations

import os
from pathlib import Path

from agent.sessions.debug_settings import SETTINGS_FILE
from agent.sessions.journal_read import read_journal
from tests.eval.helpers import run_main

from .helpers import notifications
from .page import toy_console

ROOT = Path(__file__).resolve().parents[2]


def contents(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


async def test_an_eval_journal_opened_in_the_console_carries_on_in_a_copy(tmp_path: Path, toy_env) -> None:
    out = tmp_path / "eval"
    done = run_main(["eval", "--env", "toy", "--games", "coin-1", "--agent", toy_env.AGENT, "--llm", "gold",
                     "-o", str(out), "--no-progress"], dict(os.environ), cwd=ROOT)  # the command line, in-process
    assert done.returncode == 0, done.stderr
    [journal] = [p for p in (out / "journals").iterdir() if (p / "journal.jsonl").is_file()]
    before = contents(out)
    sessions = tmp_path / "sessions"

    async with toy_console(agent=toy_env.AGENT, sessions_dir=sessions, resume=journal) as page:
        assert not page.app.session_control.busy
        copy = page.app.session_control.session.folder
        assert copy.parent == sessions
        assert page.finished is not None and page.finished.success  # the eval's run, rebuilt
        assert any("never written" in n.message for n in notifications(page.app))
        await page.add_breakpoint("action ^take")
        await page.work_done("settings")  # its debug.json write
        assert (copy / SETTINGS_FILE).is_file()
    assert contents(out) == before  # the eval's folder: not one byte changed, no debug.json
    header = read_journal(copy).header
    assert header.parent.folder == str(journal) and header.parent.at == "copy"
    assert read_journal(copy).finished["success"] is True
    assert [r for r in read_journal(copy).records] == read_journal(journal).records
