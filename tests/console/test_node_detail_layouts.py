"""The node pane lays the screen out only when what it can scroll changes: a node whose lines fit
shown after another whose lines fit (a step from node to node, most stops) repaints the pane and lays
nothing out; lines that no longer fit are laid out with the scrollbar and the range to scroll.

A small app around the pane alone: the console's own stops show it the same way (`NodeDetail.show`).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult

from recode_tui.console.widgets.node_detail import NodeDetail

from .helpers import drawn


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield NodeDetail(id="detail")


def lines(count: int) -> Text:
    return Text("\n".join(f"line {n}" for n in range(count)))


async def test_a_node_of_fewer_lines_that_fit_lays_nothing_out_and_lines_that_overflow_scroll() -> None:
    app = Host()
    async with app.run_test(size=(40, 12)) as pilot:
        pane = app.query_one(NodeDetail)
        await drawn(app)
        height = pane.scrollable_content_region.height
        pane.update(lines(height - 1))
        await drawn(app)
        laid_out: list[object] = []
        app.screen.screen_layout_refresh_signal.subscribe(app.screen, laid_out.append, immediate=True)
        pane.update(lines(2))  # fewer lines, both fitting: what a person sees changes, the layout does not
        await drawn(app)
        assert not laid_out
        assert [pane.render_line(y).text.rstrip() for y in range(3)] == ["line 0", "line 1", ""]
        assert pane.max_scroll_y == 0 and not pane.show_vertical_scrollbar
        pane.update(lines(height + 5))  # more than fit: laid out for the scrollbar and the range to scroll
        await drawn(app)
        assert laid_out
        assert pane.show_vertical_scrollbar and pane.max_scroll_y == 5
        await pilot.press("end")
        assert pane.render_line(height - 1).text.rstrip() == f"line {height + 4}"
