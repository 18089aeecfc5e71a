"""The prompt workspace after a "use this answer" pick, unsaved edits, and how a crash ends the console.

On the toy world with node code in-process (tests/console/page.py) and ReCode's prompt set with the
toy examples (test_workspace's `toy_prompts`); the crash at start-up goes through the real command line.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from textual.widgets import Input

import pytest

from agent.runtime import events as ev
from recode_tui.console.workspace.compare import CompareScreen

from .helpers import SIZE, notifications
from .page import ConsolePage
from .test_workspace import NEW_EXAMPLE, SCRIPTED, TOY_PUT, edit, open_workspace_page, toy_prompts, workspace_app

__all__ = ["toy_prompts"]  # the fixture, used here


async def test_reexpanding_after_a_use_this_answer_pick_compares_instead_of_crashing(toy_prompts: Path) -> None:
    async with ConsolePage.open(workspace_app(toy_prompts)) as page:
        app = page.app
        await page.step("continue")  # n0 awaits its expansion
        ws = await open_workspace_page(page)
        ws.query_one("#ws-llms", Input).value = "scripted"
        assert isinstance(await page.opened("ctrl+r"), CompareScreen)
        await page.command("f1")  # use the scripted answer: the run goes on with it
        assert page.screen.agent.tree.root.llm_calls[-1].answer == SCRIPTED
        await page.step("continue")  # the next stub, find_vase, awaits
        assert isinstance(page.screen.debugger.last_event, ev.LLMRequested)
        ws = await open_workspace_page(page)
        assert ws.query_one("#ws-llms", Input).value.startswith("scripted")  # the run's LLM, by its name
        cmp = await page.opened("ctrl+r")
        assert isinstance(cmp, CompareScreen)
        column = cmp.column(1)
        assert column.candidate.source == "scripted" and "no answer for stub" in column.candidate.error
        assert app.is_running and app.return_code in (None, 0)


def test_an_unhandled_exception_in_the_console_exits_non_zero_with_one_line(tmp_path: Path, monkeypatch, capsys,
                                                                           toy_game: str, node_code_in_process) -> None:
    """The real `recode-tui tui` entry point, run headless; a bug in the app ends it."""
    from textual.app import App

    from recode_tui.commands import cli
    from recode_tui.console.app import RecodeApp
    from recode_tui.console.session.session_control import SessionControl

    def broken(self, app, replace_run) -> None:
        raise RuntimeError("a bug in the console\nsecond line")

    monkeypatch.setattr(SessionControl, "attach", broken)
    monkeypatch.setattr(RecodeApp, "run", lambda self, **kw: App.run(self, headless=True, size=SIZE))
    code = cli.main(["tui", "--game", toy_game, "--llm", "gold", "--sessions", str(tmp_path)])
    err = capsys.readouterr().err
    assert code != 0
    assert err.count("\n") == 1 and "internal error: RuntimeError: a bug in the console" in err
    report = Path(err.rsplit("traceback in ", 1)[1].strip())
    assert "RuntimeError: a bug in the console" in report.read_text() and "broken" in report.read_text()


async def test_unsaved_prompt_edits_survive_a_crash_and_come_back_in_the_next_workspace(monkeypatch, tmp_path,
                                                                                        toy_prompts: Path) -> None:
    from textual.worker import WorkerFailed

    from recode_tui.console.workspace import screen as workspace_screen

    monkeypatch.setenv("RECODE_TUI_PROMPTS", str(tmp_path / "prompts"))
    app = workspace_app(toy_prompts)
    with pytest.raises(WorkerFailed, match="the comparison broke"):
        async with ConsolePage.open(app) as page:
            ws = await open_workspace_page(page)  # at the first stop, on the root stub (as the next console)
            await edit(page.pilot, ws, NEW_EXAMPLE)

            def broken(*args, **kwargs):
                raise RuntimeError("the comparison broke")

            monkeypatch.setattr(workspace_screen, "fresh_llm", broken)
            ws.query_one("#ws-llms", Input).value = "scripted"
            await page.pilot.press("ctrl+r")  # the bug ends the console (no wait on the queues of an app closing)
            with contextlib.suppress(WorkerFailed):  # the app's own exit raises it, below
                await page.app.workers.wait_for_complete([w for w in page.app.workers if w.group == "reexpand"])
    assert app.return_code == 1

    async with ConsolePage.open(workspace_app(toy_prompts)) as page:
        ws = await open_workspace_page(page)
        assert ws.restored == [TOY_PUT] and "put_down" in ws.draft.text(TOY_PUT)
        assert any("are back" in n.message for n in notifications(page.app))
        ws.query_one("#ws-name", Input).value = "vases"
        await page.press("ctrl+o")
        assert "put_down" in (tmp_path / "prompts" / "vases" / TOY_PUT).read_text()
        assert not ws._recovery().exists()  # saved as a set: nothing left to bring back
