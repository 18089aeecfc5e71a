"""Breakpoints and watches belong to the session: saved beside its journal, back on resume, kept across branches.

On the toy world, node code in-process (tests/console/page.py); a resume replays in the sandbox worker.
"""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import DataTable

from agent.sessions.debug_settings import SETTINGS_FILE
import pytest

from .helpers import SIZE, notifications, session_opened, started, worked
from .page import toy_app
from .test_pilot import add_breakpoint
from .test_sessions_console import branch, play_to_n2, select
from .test_watches import add_watch


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


def saved(folder: Path) -> dict:
    try:
        return json.loads((folder / SETTINGS_FILE).read_text())
    except (OSError, ValueError):
        return {}


def set_up(app) -> list[tuple[str, bool]]:
    return [(bp.spec(), bp.enabled) for bp in app.debug_screen.debugger.breakpoints]


async def test_a_resumed_session_brings_back_its_breakpoints_and_watches_and_an_unreadable_file_is_kept_aside(
        tmp_path: Path) -> None:
    app = toy_app(sessions_dir=tmp_path)
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
        await worked(pilot, "settings")  # written when the focus left the watch prompt
        assert len(saved(folder)["breakpoints"]) == 2 and saved(folder)["breakpoints"][0]["enabled"] is False
        assert saved(folder).get("watches") == ["instruction.split()[1]"]

    # Started as with --no-break: the session's own set-up wins.
    again = toy_app(sessions_dir=tmp_path, resume=folder, breakpoints=[])
    async with again.run_test(size=SIZE) as pilot:
        await session_opened(pilot, again)
        assert set_up(again) == expected
        watches = again.debug_screen.variables.watches
        assert watches.display and watches.expressions == ["instruction.split()[1]"]
        await worked(pilot, "watches")
        assert watches.values["instruction.split()[1]"][:2] == ("str", "a")
        assert [bp.number for bp in again.debug_screen.debugger.breakpoints] == [1, 2]

    # An unreadable debug.json is named, kept aside, and the breakpoints this start gives are used.
    (folder / SETTINGS_FILE).write_text('{"format": "recode.debug.v1", "breakpoints": [')
    third = toy_app(sessions_dir=tmp_path, resume=folder)
    async with third.run_test(size=SIZE) as pilot:
        await session_opened(pilot, third)  # the notes follow the replay's last stop
        assert any(f"{SETTINGS_FILE} is unreadable" in n.message and f"kept as {SETTINGS_FILE}.bad" in n.message
                   for n in notifications(third))
        assert set_up(third) == [("every-stub", True)]  # what this start gave
        assert (folder / f"{SETTINGS_FILE}.bad").read_text().endswith('"breakpoints": [')


async def test_watches_and_breakpoints_survive_a_rewind_and_go_with_the_branch(tmp_path: Path) -> None:
    app = toy_app(sessions_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await play_to_n2(pilot, app)
        app.debug_screen.tree_view.focus()  # out of the editor, where `w` is a letter
        await add_watch(pilot, app, "obj")
        await add_breakpoint(pilot, app, "depth 2")
        await worked(pilot, "watches")
        assert app.debug_screen.variables.watches.values["obj"][0] == "str"
        await select(pilot, app, "n1")
        await branch(pilot, app, "R")
        new = app.session_control.session.folder
        watches = app.debug_screen.variables.watches
        assert watches.expressions == ["obj"]  # the recomposed pane still watches it
        # rewound to before n1: obj is not bound yet, and the watch says so
        await worked(pilot, "watches")  # obj re-evaluated
        assert watches.values["obj"][0] == "error" and "NameError" in watches.values["obj"][1]
        assert set_up(app) == [("every-stub", True), ("depth 2", True)]
        await worked(pilot, "settings")  # the branch's debug.json
        assert saved(new).get("watches") == ["obj"]
        assert [b["spec"] for b in saved(new)["breakpoints"]] == ["every-stub", "depth 2"]
