"""The variables pane marks what a stop changed: a name is coloured at the stop that bound or changed it,
and plain again at the next stop that leaves it alone (its mark column and its colour alike)."""

from __future__ import annotations

from textual.widgets import DataTable

from .page import toy_console


async def test_a_name_marked_at_one_stop_is_plain_at_the_next_that_leaves_it_alone(toy_env) -> None:
    async with toy_console(breakpoints=[]) as page:
        table = page.variables.query_one("#vars-table", DataTable)
        assert page.variables.marks.get("observation") == "new"  # the run's first stop bound it
        assert "yellow" in str(table.get_cell("observation", "name").style)
        await page.step("next")
        assert page.variables.marks.get("observation") is None
        assert "yellow" not in str(table.get_cell("observation", "name").style)
