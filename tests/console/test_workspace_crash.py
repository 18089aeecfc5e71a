"""The prompt workspace after a "use this answer" pick, unsaved edits, and how a crash ends the console."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from agent.runtime import events as ev
from recode_tui.console.app import build_app
from recode_tui.console.workspace.compare import CompareScreen

from .helpers import SIZE, command, next_stop, notifications, started, wait_for
from .test_workspace import NEW_EXAMPLE, PUT, SCRIPTED, edit, open_workspace, scripted
from tests.settings import console_options


async def test_reexpanding_after_a_use_this_answer_pick_compares_instead_of_crashing() -> None:
    app = build_app(console_options(), scripted())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")  # n0 awaits its expansion
        ws = await open_workspace(pilot, app)
        ws.query_one("#ws-llms", Input).value = "scripted"
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), what="the comparison")
        await pilot.pause()
        stop = next_stop(app)
        await pilot.press("f1")  # use the scripted answer: the run goes on with it
        await wait_for(pilot, lambda: stop.done() and not app.debug_screen.driver.busy, what="the run to go on")
        assert app.debug_screen.agent.tree.root.llm_calls[-1].answer == SCRIPTED
        await command(pilot, app, "c")  # the next stub, find_vase, awaits
        assert isinstance(app.debug_screen.debugger.last_event, ev.LLMRequested)
        ws = await open_workspace(pilot, app)
        assert ws.query_one("#ws-llms", Input).value.startswith("scripted")  # the run's LLM, by its name
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), what="the second comparison")
        await pilot.pause()
        column = app.screen.column(1)
        assert column.candidate.source == "scripted" and "no answer for stub" in column.candidate.error
        assert app.is_running and app.return_code in (None, 0)


def test_an_unhandled_exception_in_the_console_exits_non_zero_with_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    """The real `recode-tui tui` entry point, run headless; a bug in the app ends it."""
    from textual.app import App

    from recode_tui.commands import cli
    from recode_tui.console.app import RecodeApp
    from recode_tui.console.session.session_control import SessionControl

    def broken(self, app, replace_run) -> None:
        raise RuntimeError("a bug in the console\nsecond line")

    monkeypatch.setattr(SessionControl, "attach", broken)
    monkeypatch.setattr(RecodeApp, "run", lambda self, **kw: App.run(self, headless=True, size=SIZE))
    code = cli.main(["tui", "--game", "put-01", "--llm", "demo", "--sessions", str(tmp_path)])
    err = capsys.readouterr().err
    assert code != 0
    assert err.count("\n") == 1 and "internal error: RuntimeError: a bug in the console" in err
    report = Path(err.rsplit("traceback in ", 1)[1].strip())
    assert "RuntimeError: a bug in the console" in report.read_text() and "broken" in report.read_text()


async def test_unsaved_prompt_edits_survive_a_crash_and_come_back_in_the_next_workspace(monkeypatch, tmp_path) -> None:
    import pytest

    from recode_tui.console.workspace import screen as workspace_screen

    monkeypatch.setenv("RECODE_TUI_PROMPTS", str(tmp_path / "prompts"))
    app = build_app(console_options(), scripted())
    from textual.worker import WorkerFailed

    with pytest.raises(WorkerFailed, match="the comparison broke"):
        async with app.run_test(size=SIZE) as pilot:
            await started(pilot, app)
            await command(pilot, app, "c")
            ws = await open_workspace(pilot, app)
            await edit(pilot, ws, NEW_EXAMPLE)

            def broken(*args, **kwargs):
                raise RuntimeError("the comparison broke")

            monkeypatch.setattr(workspace_screen, "fresh_llm", broken)
            ws.query_one("#ws-llms", Input).value = "scripted"
            await pilot.press("ctrl+r")  # the bug ends the console
            await wait_for(pilot, lambda: not app.is_running, what="the crash")
    assert app.return_code == 1

    again = build_app(console_options(), scripted())
    async with again.run_test(size=SIZE) as pilot:
        await started(pilot, again)
        ws = await open_workspace(pilot, again)
        assert ws.restored == [PUT] and "put_down" in ws.draft.text(PUT)
        assert any("are back" in n.message for n in notifications(again))
        ws.query_one("#ws-name", Input).value = "vases"
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert "put_down" in (tmp_path / "prompts" / "vases" / PUT).read_text()
        assert not ws._recovery().exists()  # saved as a set: nothing left to bring back


async def test_saving_a_set_with_flagged_examples_says_how_many_and_which(monkeypatch, tmp_path) -> None:
    from .test_workspace import BAD_EXAMPLE

    monkeypatch.setenv("RECODE_TUI_PROMPTS", str(tmp_path / "prompts"))
    app = build_app(console_options(), scripted())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        ws = await open_workspace(pilot, app)
        await edit(pilot, ws, BAD_EXAMPLE)
        ws.query_one("#ws-name", Input).value = "flagged"
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert (tmp_path / "prompts" / "flagged" / PUT).is_file()  # saved all the same
        note = next(n for n in notifications(app) if "saved to" in n.message)
        assert note.severity == "warning"
        assert "1 example flagged: put.txt #4" in note.message and "done = put_down(item)" in note.message
        assert "place" in note.message
