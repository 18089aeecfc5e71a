"""Panes most runs never open are made the first time they show, and then show the run as it is.

The breakpoint list (its tab: `B` or a click on its title), the review bar (a model's first
proposal), the search line (the first `/`) and F2's peek are not made at a console's start; what a person sees when they appear is what the
run holds by then (breakpoints added and hit before the list was ever opened).
"""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Input

from agent.runtime.breakpoints import Breakpoint, BreakpointKind
from recode_tui.console.widgets.breakpoints import BreakpointsPane
from recode_tui.console.widgets.key_footer import KeyFooter
from recode_tui.console.widgets.observation_view import ObservationView
from recode_tui.console.widgets.review_panel import ReviewBar
from recode_tui.console.widgets.search_bar import SearchBar

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
        assert not page.screen.query(SearchBar)  # nobody searched yet
        await page.pilot.click("#--content-tab-tab-breakpoints")
        table = page.screen.query_one("#bp-table", DataTable)
        assert [str(cell) for cell in table.get_row_at(0)][2:] == ["every stub expansion", "", "1"]


async def test_the_first_slash_makes_the_search_line_above_the_keys_with_the_focus_in_it() -> None:
    async with toy_console() as page:
        assert not page.screen.query(SearchBar)
        await page.press("/")
        bar = page.screen.query_one(SearchBar)
        assert bar.display and page.app.focused is bar.query_one(Input)
        assert bar.region.bottom == page.screen.query_one(KeyFooter).region.y  # in its place, above the keys
        await page.type("solve")  # the code tree has the focus: its root's line is found
        assert bar.query_one(Input).value == "solve" and "no match" not in str(bar.query_one("#search-count").render())


async def test_the_first_f2_makes_the_peek_showing_the_observation_at_hand_and_it_follows_the_run() -> None:
    async with toy_console() as page:
        screen = page.screen
        assert not screen.query("#peek")
        await page.press("f2")
        peek = screen.query_one("#peek", ObservationView)
        assert peek.display and peek.text == screen.observation_view.text and "TASK" in peek.text
        await page.press("f2")  # back
        await page.step("continue")  # the root's expansion: the editor opens
        await page.answer('run("go to diningtable 1")')
        while "step 1 >" not in screen.observation_view.text and not screen.debugger.done:
            await page.step("next")
        assert "step 1 > go to diningtable 1" in peek.text and peek.text == screen.observation_view.text
