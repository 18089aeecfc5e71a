"""Breakpoints and watches belong to the session: saved beside its journal, back on resume, kept across branches."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import DataTable

from agent.sessions.debug_settings import SETTINGS_FILE
from recode_tui.console.app import build_app
from recode_tui.console.screens.replay import ReplayScreen

from .helpers import SIZE, notifications, started, wait_for
from .test_pilot import add_breakpoint
from .test_sessions_console import branch, play_to_n2, select
from .test_watches import add_watch
from tests.settings import console_options


def saved(folder: Path) -> dict:
    try:
        return json.loads((folder / SETTINGS_FILE).read_text())
    except (OSError, ValueError):
        return {}


def set_up(app) -> list[tuple[str, bool]]:
    return [(bp.spec(), bp.enabled) for bp in app.debug_screen.debugger.breakpoints]


async def resumed(pilot, app) -> None:
    await wait_for(pilot, lambda: app.session_control.session is not None and not app.session_control.busy
                   and not isinstance(app.screen, ReplayScreen) and app.debug_screen.shown.is_set(), what="the resumed session")


async def test_a_resumed_session_brings_back_its_breakpoints_and_watches_and_an_unreadable_file_is_kept_aside(
        tmp_path: Path) -> None:
    app = build_app(console_options(sessions_dir=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await add_breakpoint(pilot, app, "action take if len(observation) > 3")
        table = app.debug_screen.query_one("#bp-table", DataTable)
        table.focus()
        table.move_cursor(row=0)
        await pilot.press("space")  # every-stub off
        await add_watch(pilot, app, "instruction.split()[1]")
        folder = app.session_control.session.folder
        expected = [("every-stub", False), ("action take if len(observation) > 3", True)]
        assert set_up(app) == expected
        await wait_for(pilot, lambda: len(saved(folder).get("breakpoints", [])) == 2
                       and saved(folder)["breakpoints"][0]["enabled"] is False
                       and saved(folder).get("watches") == ["instruction.split()[1]"], what="debug.json")

    # Started as with --no-break: the session's own set-up wins.
    again = build_app(console_options(sessions_dir=tmp_path, resume=folder, breakpoints=[]))
    async with again.run_test(size=SIZE) as pilot:
        await resumed(pilot, again)
        assert set_up(again) == expected
        watches = again.debug_screen.variables.watches
        assert watches.display and watches.expressions == ["instruction.split()[1]"]
        await wait_for(pilot, lambda: watches.values.get("instruction.split()[1]", ("",))[0] == "str", what="the watch")
        assert watches.values["instruction.split()[1]"][1] == "a"
        assert [bp.number for bp in again.debug_screen.debugger.breakpoints] == [1, 2]

    # An unreadable debug.json is named, kept aside, and the breakpoints this start gives are used.
    (folder / SETTINGS_FILE).write_text('{"format": "recode.debug.v1", "breakpoints": [')
    third = build_app(console_options(sessions_dir=tmp_path, resume=folder))
    async with third.run_test(size=SIZE) as pilot:
        await resumed(pilot, third)
        def named() -> bool:  # the notes follow the replay's last stop
            return any(f"{SETTINGS_FILE} is unreadable" in n.message and f"kept as {SETTINGS_FILE}.bad" in n.message
                       for n in notifications(third))

        await wait_for(pilot, named, what="the note on the unreadable file")
        assert set_up(third) == [("every-stub", True)]  # what this start gave
        assert (folder / f"{SETTINGS_FILE}.bad").read_text().endswith('"breakpoints": [')


async def test_watches_and_breakpoints_survive_a_rewind_and_go_with_the_branch(tmp_path: Path) -> None:
    app = build_app(console_options(sessions_dir=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await play_to_n2(pilot, app)
        app.debug_screen.tree_view.focus()  # out of the editor, where `w` is a letter
        await add_watch(pilot, app, "obj")
        await add_breakpoint(pilot, app, "depth 2")
        await wait_for(pilot, lambda: app.debug_screen.variables.watches.values.get("obj", ("",))[0] == "str", what="obj")
        await select(pilot, app, "n1")
        await branch(pilot, app, "R")
        new = app.session_control.session.folder
        watches = app.debug_screen.variables.watches
        assert watches.expressions == ["obj"]  # the recomposed pane still watches it
        # rewound to before n1: obj is not bound yet, and the watch says so
        await wait_for(pilot, lambda: watches.values.get("obj", ("",))[0] == "error", what="obj re-evaluated")
        assert "NameError" in watches.values["obj"][1]
        assert set_up(app) == [("every-stub", True), ("depth 2", True)]
        await wait_for(pilot, lambda: saved(new).get("watches") == ["obj"], what="the branch's debug.json")
        assert [b["spec"] for b in saved(new)["breakpoints"]] == ["every-stub", "depth 2"]
