"""The prompt workspace and the re-expansion comparison as SVG snapshots.

Fixed 160x48 terminal, cursor blink off, scripted LLMs named without a path, so nothing
machine-dependent is on screen (tests/console/shots.py). The flagged example is one of ALFWorld's
(the toy world has no examples); the comparison runs on the toy world with node code in-process.
Update with `pytest --snapshot-update`.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input, TextArea

from recode_tui.console.app import build_app
from recode_tui.console.workspace.compare import CompareScreen
from tests.settings import console_options

from .helpers import WIDE, queues_drained
from .page import ConsolePage, toy_app
from .shots import shots  # noqa: F401 - the fixture
from .test_workspace import BAD_EXAMPLE, DIRECT, edit, open_workspace_page, scripted


@pytest.mark.heavy
async def test_workspace_with_a_flagged_example(shots) -> None:
    async with ConsolePage.open(build_app(console_options(), scripted()), size=WIDE) as page:
        await page.step("continue")
        ws = await open_workspace_page(page)
        await edit(page.pilot, ws, BAD_EXAMPLE)
        ws.query_one("#ws-editor", TextArea).move_cursor((0, 0))
        await shots.match(page.pilot, "workspace")


async def test_reexpansion_side_by_side(shots, toy_env) -> None:
    async with ConsolePage.open(toy_app(scripted()), size=WIDE) as page:
        await page.step("continue")
        await page.step("next")  # the scripted answer is recorded for n0
        await page.select("n0")
        ws = await open_workspace_page(page)
        ws.query_one("#ws-llms", Input).value = "scripted, human"
        compare = await page.opened("ctrl+r")
        assert isinstance(compare, CompareScreen)
        compare.query_one("#cmp-text-2", TextArea).load_text(DIRECT)
        await queues_drained(page.app)  # the change is handled (its verdict is due after a typing pause) ...
        compare.column(2).refresh_verdict()  # ... and given now: the same verdict, not on a timer
        await shots.match(page.pilot, "comparison")


