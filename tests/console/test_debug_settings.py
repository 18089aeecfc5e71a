"""Breakpoints and watches belong to the session: saved beside its journal, back on resume, kept across branches.

On the toy world, node code in-process (tests/console/page.py); a resume replays in-process too.
"""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import DataTable

from agent.sessions.debug_settings import SETTINGS_FILE
import pytest

from .helpers import notifications
from .page import ConsolePage, toy_console
from .test_sessions_console import recorded_to_n2
from .test_watches import watch


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


def saved(folder: Path) -> dict:
    try:
        return json.loads((folder / SETTINGS_FILE).read_text())
    except (OSError, ValueError):
        return {}


def set_up(page: ConsolePage) -> list[tuple[str, bool]]:
    """The breakpoints as the list shows them: each one's spec and whether it is on."""
    return [(bp.spec(), bp.enabled) for bp in page.breakpoints]


async def test_a_resumed_session_brings_back_its_breakpoints_and_watches_and_an_unreadable_file_is_kept_aside(
        tmp_path: Path) -> None:
    async with toy_console(sessions_dir=tmp_path) as page:
        await page.add_breakpoint("action take if len(observation) > 3")
        table = page.screen.query_one("#bp-table", DataTable)
        table.focus()
        table.move_cursor(row=0)
        await page.press("space")  # every-stub off
        await watch(page, "instruction.split()[1]")
        folder = page.app.session_control.session.folder
        expected = [("every-stub", False), ("action take if len(observation) > 3", True)]
        assert set_up(page) == expected
        await page.work_done("settings")  # written when the focus left the watch prompt
        assert len(saved(folder)["breakpoints"]) == 2 and saved(folder)["breakpoints"][0]["enabled"] is False
        assert saved(folder).get("watches") == ["instruction.split()[1]"]

    # Started as with --no-break: the session's own set-up wins.
    async with toy_console(sessions_dir=tmp_path, resume=folder, breakpoints=[]) as page:
        assert set_up(page) == expected
        watches = page.variables.watches
        assert watches.display and watches.expressions == ["instruction.split()[1]"]
        await page.work_done("watches")
        assert watches.values["instruction.split()[1]"][:2] == ("str", "a")
        assert [bp.number for bp in page.breakpoints] == [1, 2]

    # An unreadable debug.json is named, kept aside, and the breakpoints this start gives are used.
    (folder / SETTINGS_FILE).write_text('{"format": "recode.debug.v1", "breakpoints": [')
    async with toy_console(sessions_dir=tmp_path, resume=folder) as page:  # the notes follow the replay's last stop
        assert any(f"{SETTINGS_FILE} is unreadable" in n.message and f"kept as {SETTINGS_FILE}.bad" in n.message
                   for n in notifications(page.app))
        assert set_up(page) == [("every-stub", True)]  # what this start gave
        assert (folder / f"{SETTINGS_FILE}.bad").read_text().endswith('"breakpoints": [')


async def test_watches_and_breakpoints_survive_a_rewind_and_go_with_the_branch(tmp_path: Path) -> None:
    async with toy_console(sessions_dir=tmp_path, resume=await recorded_to_n2(tmp_path)) as page:
        page.screen.tree_view.focus()  # out of the editor, where `w` is a letter
        await watch(page, "obj")
        await page.add_breakpoint("depth 2")
        await page.work_done("watches")
        assert page.variables.watches.values["obj"][0] == "str"
        await page.select("n1")
        await page.replaced("R")
        new = page.app.session_control.session.folder
        watches = page.variables.watches
        assert watches.expressions == ["obj"]  # the recomposed pane still watches it
        # rewound to before n1: obj is not bound yet, and the watch says so
        await page.work_done("watches")  # obj re-evaluated
        assert watches.values["obj"][0] == "error" and "NameError" in watches.values["obj"][1]
        assert set_up(page) == [("every-stub", True), ("depth 2", True)]
        await page.work_done("settings")  # the branch's debug.json
        assert saved(new).get("watches") == ["obj"]
        assert [b["spec"] for b in saved(new)["breakpoints"]] == ["every-stub", "depth 2"]
