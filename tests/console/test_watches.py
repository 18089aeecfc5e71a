"""Watch expressions in the console (`w`): re-evaluated at every stop, errors shown, removable."""

from __future__ import annotations

from textual.widgets import Input, Static

from recode_tui.console.screens.watch_prompt import WatchPrompt

from .helpers import SIZE, command, started, type_text, wait_for
from .test_pilot import add_breakpoint, demo_app


async def add_watch(pilot, app, expression: str) -> None:
    await pilot.press("w")
    await wait_for(pilot, lambda: isinstance(app.screen, WatchPrompt), what="the watch prompt")
    await type_text(pilot, expression)
    await pilot.press("enter")
    await pilot.pause()


def shown(app, expression: str) -> tuple[str, str]:
    """The watch's type and value, after checking that its row shows them (cut to the pane's width)."""
    table = app.debug_screen.variables.watches
    kind, value, _failed = table.values[expression]
    for cell, full in ((table.get_cell(expression, "type").plain, kind), (table.get_cell(expression, "value").plain, value)):
        assert cell == full or (cell.endswith("…") and full.startswith(cell[:-1])), (cell, full)
    return kind, value


async def test_watches_follow_the_namespace_from_stop_to_stop_and_a_moved_value_stands_out() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        watches = app.debug_screen.variables.watches
        assert not watches.display  # nothing watched: no room taken
        await add_watch(pilot, app, "places[:2]")
        await add_watch(pilot, app, "instruction.upper()")
        await add_watch(pilot, app, "open('notes.txt')")
        assert watches.display and watches.expressions == ["places[:2]", "instruction.upper()", "open('notes.txt')"]
        await wait_for(pilot, lambda: len(watches.values) == 3, what="three watch values")
        assert shown(app, "instruction.upper()") == ("str", "PUT A VASE IN SIDETABLE.")
        kind, value = shown(app, "places[:2]")
        assert kind == "error" and "NameError" in value and "places" in value
        assert "forbidden: open" in shown(app, "open('notes.txt')")[1]  # the sandbox checks apply
        assert watches.changed == set()  # nothing to compare with yet
        # The next stop binds `places`; the watch shows it without being asked, marked as moved.
        await add_breakpoint(pilot, app, "depth 2")
        await command(pilot, app, "c")
        await wait_for(pilot, lambda: shown(app, "places[:2]")[0] == "list[str]", what="places evaluated")
        assert shown(app, "places[:2]")[1].startswith("['armchair 1'")
        assert watches.changed == {"places[:2]"}
        assert watches.get_cell("places[:2]", "value").style == "bold yellow"
        assert watches.get_cell("instruction.upper()", "value").style != "bold yellow"
        await add_watch(pilot, app, "2 + 2")  # adding a watch is not a new stop: the marks stay
        await wait_for(pilot, lambda: "2 + 2" in watches.values, what="the new watch")
        assert watches.changed == {"places[:2]"}
        await command(pilot, app, "c")  # the next depth-2 node (command returns once its stop is shown)
        await wait_for(pilot, lambda: watches.changed == set(), what="the marks to clear")


async def test_a_bad_expression_is_refused_with_its_text_kept_and_x_removes_a_watch() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        watches = app.debug_screen.variables.watches
        await add_watch(pilot, app, "len(observation")
        assert isinstance(app.screen, WatchPrompt)  # refused: still open
        assert app.screen.query_one(Input).value == "len(observation"
        assert "not an expression" in str(app.screen.query_one("#watch-error", Static).render())
        await type_text(pilot, ")")
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, WatchPrompt)
        assert watches.expressions == ["len(observation)"]
        await wait_for(pilot, lambda: "len(observation)" in watches.values, what="the watch value")
        assert shown(app, "len(observation)")[0] == "int"
        await add_watch(pilot, app, "len(observation)")  # the same again: not added twice
        assert watches.expressions == ["len(observation)"]
        await pilot.press("w")
        await pilot.press("escape")  # cancelled: nothing added
        assert watches.expressions == ["len(observation)"]
        watches.focus()
        await pilot.press("x")
        await pilot.pause()
        assert watches.expressions == [] and watches.row_count == 0 and not watches.display


async def test_b_on_a_watch_breaks_when_its_value_changes_and_b_again_removes_it() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await add_watch(pilot, app, "len(seen)")
        watches = app.debug_screen.variables.watches
        watches.focus()
        await pilot.press("b")
        await pilot.pause()
        assert [bp.spec() for bp in app.debug_screen.debugger.breakpoints] == ["changes len(seen)"]
        assert watches.get_cell("len(seen)", "expr").plain == "● len(seen)"  # marked like a breakpoint line
        app.debug_screen.tree_view.focus()
        await command(pilot, app, "c")
        assert app.debug_screen.reason.startswith("breakpoint 1: `len(seen)` changes — <NameError"), app.debug_screen.reason
        await wait_for(pilot, lambda: shown(app, "len(seen)") == ("int", "0"), what="the watch's value")
        watches.focus()
        await pilot.press("b")
        await pilot.pause()
        assert app.debug_screen.debugger.breakpoints == []
        assert watches.get_cell("len(seen)", "expr").plain == "len(seen)"
        app.debug_screen.tree_view.focus()
        await command(pilot, app, "c")
        assert app.debug_screen.debugger.done  # nothing stops the demo any more
        await add_breakpoint(pilot, app, "changes len(seen)")  # from the list: the watch is marked too
        assert watches.get_cell("len(seen)", "expr").plain == "● len(seen)"
