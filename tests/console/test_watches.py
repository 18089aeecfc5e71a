"""Watch expressions in the console (`w`): re-evaluated at every stop, errors shown, removable.

On the toy world with node code in-process (tests/console/page.py): the watches are the console's.
The sandbox's checks on a watch are a test of the real sandbox (marked heavy).
"""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from agent.runtime.breakpoints import parse_breakpoint
from recode_tui.console.app import build_app
from recode_tui.console.screens.watch_prompt import WatchPrompt
from tests.settings import console_options

from .page import ConsolePage, toy_console
from .test_pilot import nested_model


async def watch(page: ConsolePage, expression: str) -> None:
    """`w`, the expression, enter; returns once the watches are evaluated (a refused one: the prompt stays)."""
    assert isinstance(await page.opened("w"), WatchPrompt)
    await page.type(expression)
    await page.press("enter")
    await page.work_done("watches")


async def go_on(page: ConsolePage) -> None:
    """`c` to the next stop, its watches evaluated."""
    await page.step("continue")
    await page.work_done("watches")


def cut_to_fit(cell: str, full: str) -> bool:
    """`cell` shows `full`, or its start cut with `…` to the column's width."""
    return cell == full or (cell.endswith("…") and full.startswith(cell[:-1]))


def shown(page: ConsolePage, expression: str) -> tuple[str, str]:
    """The watch's type and value, after checking that its row shows them (cut to the pane's width)."""
    table = page.variables.watches
    kind, value, _failed = table.values[expression]
    for cell, full in ((table.get_cell(expression, "type").plain, kind), (table.get_cell(expression, "value").plain, value)):
        assert cut_to_fit(cell, full), (cell, full)
    return kind, value


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


async def test_watches_follow_the_namespace_from_stop_to_stop_and_a_moved_value_stands_out() -> None:
    async with toy_console(nested_model(), breakpoints=[parse_breakpoint("depth 2")]) as page:
        watches = page.screen.variables.watches
        assert not watches.display  # nothing watched: no room taken
        await watch(page, "seen[:1]")
        await watch(page, "instruction.upper()")
        assert watches.display and watches.expressions == ["seen[:1]", "instruction.upper()"]
        assert len(watches.values) == 2
        assert shown(page, "instruction.upper()") == ("str", "PUT A VASE IN SIDETABLE.")
        kind, value = shown(page, "seen[:1]")
        assert kind == "error" and "NameError" in value and "seen" in value
        assert watches.changed == set()  # nothing to compare with yet
        # The next stop (a depth-2 node) binds `seen`; the watch shows it unasked, marked as moved.
        await go_on(page)
        assert shown(page, "seen[:1]")[0] == "list[str]"
        assert shown(page, "seen[:1]")[1].startswith("['You arrive at coffeetable 1")
        assert watches.changed == {"seen[:1]"}
        assert watches.get_cell("seen[:1]", "value").style == "bold yellow"
        assert watches.get_cell("instruction.upper()", "value").style != "bold yellow"
        await watch(page, "2 + 2")  # adding a watch is not a new stop: the marks stay
        assert "2 + 2" in watches.values
        assert watches.changed == {"seen[:1]"}
        await go_on(page)  # the next depth-2 node: seen is as it was
        assert watches.changed == set()


@pytest.mark.heavy
async def test_the_sandbox_checks_a_watch_as_it_checks_node_code(toy_game: str) -> None:
    async with ConsolePage.open(build_app(console_options(toy_game, "gold", breakpoints=[]))) as page:
        await watch(page, "open('notes.txt')")
        assert "forbidden: open" in shown(page, "open('notes.txt')")[1]


async def test_a_bad_expression_is_refused_with_its_text_kept_and_x_removes_a_watch() -> None:
    async with toy_console(nested_model(), breakpoints=[]) as page:
        app = page.app
        watches = page.variables.watches
        await watch(page, "len(observation")
        assert isinstance(app.screen, WatchPrompt)  # refused: still open
        assert app.screen.query_one(Input).value == "len(observation"
        assert "not an expression" in str(app.screen.query_one("#watch-error", Static).render())
        await page.type(")")
        await page.press("enter")
        await page.work_done("watches")
        assert not isinstance(app.screen, WatchPrompt)
        assert watches.expressions == ["len(observation)"]
        assert shown(page, "len(observation)")[0] == "int"
        await watch(page, "len(observation)")  # the same again: not added twice
        assert watches.expressions == ["len(observation)"]
        await page.press("w")
        await page.press("escape")  # cancelled: nothing added
        assert watches.expressions == ["len(observation)"]
        watches.focus()
        await page.press("x")
        assert watches.expressions == [] and watches.row_count == 0 and not watches.display


async def test_b_on_a_watch_breaks_when_its_value_changes_and_b_again_removes_it() -> None:
    async with toy_console(nested_model(), breakpoints=[]) as page:
        await watch(page, "len(seen)")
        watches = page.screen.variables.watches
        watches.focus()
        await page.press("b")
        assert [bp.spec() for bp in page.screen.debugger.breakpoints] == ["changes len(seen)"]
        marked = watches.get_cell("len(seen)", "expr").plain  # marked like a breakpoint line (`● len(s…` at 100x30)
        assert marked.startswith("● len") and cut_to_fit(marked, "● len(seen)"), marked
        page.screen.tree_view.focus()
        await go_on(page)
        assert page.reason.startswith("breakpoint 1: `len(seen)` changes — <NameError"), page.reason
        assert shown(page, "len(seen)") == ("int", "0")
        watches.focus()
        await page.press("b")
        assert page.screen.debugger.breakpoints == []
        unmarked = watches.get_cell("len(seen)", "expr").plain
        assert unmarked.startswith("len") and cut_to_fit(unmarked, "len(seen)"), unmarked
        page.screen.tree_view.focus()
        await page.step("continue")
        assert page.screen.debugger.done  # nothing stops the model any more
        await page.add_breakpoint("changes len(seen)")  # from the list: the watch is marked too
        marked = watches.get_cell("len(seen)", "expr").plain
        assert marked.startswith("● len") and cut_to_fit(marked, "● len(seen)"), marked
