"""The node pane and the environment log lay the screen out only when what they can scroll changes:
a node whose lines fit shown after another whose lines fit (a step from node to node), a line written
to a log that fits (a run's first steps), repaint the pane and lay nothing out; lines that no longer fit
are laid out with the range to scroll, and a pane made smaller scrolls only as far as its lines go.

Small apps around each pane alone: the console's stops show them the same way (`NodeDetail.show`,
`EnvLog.apply`, which writes its lines).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult

from recode_tui.console.widgets.env_log import EnvLog
from recode_tui.console.widgets.node_detail import NodeDetail

from .helpers import drawn


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield NodeDetail(id="detail")


class LogHost(App[None]):
    def compose(self) -> ComposeResult:
        yield EnvLog(id="env-log")


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


async def test_a_line_written_to_a_log_that_fits_lays_nothing_out_and_a_smaller_pane_scrolls_to_its_lines() -> None:
    app = LogHost()
    async with app.run_test(size=(40, 12)) as pilot:
        log = app.query_one(EnvLog)
        log.write_lines(["line 0", "line 1"])
        await drawn(app)
        height = log.scrollable_content_region.height
        laid_out: list[object] = []
        app.screen.screen_layout_refresh_signal.subscribe(app.screen, laid_out.append, immediate=True)
        log.write_lines(["line 2"])  # still fits: the line shows, the layout stays
        await drawn(app)
        assert not laid_out
        assert [log.render_line(y).text.rstrip() for y in range(4)] == ["line 0", "line 1", "line 2", ""]
        assert log.max_scroll_y == 0
        log.write_lines([f"line {n}" for n in range(3, height + 3)])  # more than fit: laid out, scrolled to the end
        await drawn(app)
        assert laid_out and log.max_scroll_y == 3
        assert log.render_line(height - 1).text.rstrip() == f"line {height + 2}"
        log.clear()
        log.write_lines(["line 0", "line 1"])
        await pilot.resize_terminal(40, 6)  # a smaller pane: nothing to scroll, as few lines as it has
        await drawn(app)
        assert 2 <= log.scrollable_content_region.height < height and log.max_scroll_y == 0
