"""Panes most runs never open are made the first time they show, and then show the run as it is.

The breakpoint list (its tab: `B` or a click on its title) and the review bar (a model's first
proposal) are not made at a console's start; what a person sees when they appear is what the
run holds by then (breakpoints added and hit before the list was ever opened).
"""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from agent.runtime.breakpoints import Breakpoint, BreakpointKind
from recode_tui.console.widgets.breakpoints import BreakpointsPane
from recode_tui.console.widgets.review_panel import ReviewBar

from .page import toy_console


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


async def test_the_breakpoint_list_opened_by_a_click_on_its_tab_shows_the_breakpoints_already_hit() -> None:
    """(The review bar's first proposal: test_pane_requests and test_models_console.)"""
    async with toy_console("gold", breakpoints=[Breakpoint(BreakpointKind.EVERY_LLM_CALL)]) as page:
        await page.step("continue")  # breakpoint 1 hits before the list was ever shown
        assert page.reason.startswith("breakpoint 1"), page.reason
        assert not page.screen.query(BreakpointsPane)  # nobody opened it: not made
        assert not page.screen.query(ReviewBar)  # no model proposes here: never made
        await page.pilot.click("#--content-tab-tab-breakpoints")
        table = page.screen.query_one("#bp-table", DataTable)
        assert [str(cell) for cell in table.get_row_at(0)][2:] == ["every stub expansion", "", "1"]
