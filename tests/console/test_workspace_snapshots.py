"""The prompt workspace and the re-expansion comparison as SVG snapshots.

Fixed 160x48 terminal, cursor blink off, scripted LLMs named without a path,
so nothing machine-dependent is on screen. Update with `pytest --snapshot-update`.
"""

from __future__ import annotations

from recode_tui.console.app import build_app
from recode_tui.console.workspace.compare import CompareScreen
from textual.widgets import Input, TextArea

from .helpers import SIZE, command, select_node, started, wait_for
from .test_workspace import BAD_EXAMPLE, DIRECT, edit, open_workspace, scripted
from tests.settings import console_options


def test_workspace_with_a_flagged_example(snap_compare) -> None:
    app = build_app(console_options(), scripted())

    async def run_before(pilot) -> None:
        await started(pilot, app)
        await command(pilot, app, "c")
        ws = await open_workspace(pilot, app)
        await edit(pilot, ws, BAD_EXAMPLE)
        ws.query_one("#ws-editor", TextArea).move_cursor((0, 0))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_reexpansion_side_by_side(snap_compare) -> None:
    app = build_app(console_options(), scripted())

    async def run_before(pilot) -> None:
        await started(pilot, app)
        await command(pilot, app, "c")
        await command(pilot, app, "n")  # the scripted answer is recorded for n0
        await select_node(pilot, app, "n0")
        ws = await open_workspace(pilot, app)
        ws.query_one("#ws-llms", Input).value = "scripted, human"
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), what="the comparison")
        cmp = app.screen
        cmp.query_one("#cmp-text-2", TextArea).load_text(DIRECT)
        await pilot.pause(0.3)
        cmp.column(2).refresh_verdict()  # do not depend on the typing timer under load
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
