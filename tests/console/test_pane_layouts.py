"""The node pane, the environment log and the observation lay the screen out only when what they
can scroll changes: a node whose lines fit shown after another whose lines fit (a step from node to
node), a line written to a log that fits (a run's first steps), an observation as long as the last,
repaint the pane and lay nothing out; lines that no longer fit are laid out with the range to scroll,
a pane made smaller scrolls only as far as its lines go, and an observation that arrived while its
pane was hidden is laid out whole when the pane shows.

Small apps around each pane alone: the console's stops show them the same way (`NodeDetail.show`,
`EnvLog.apply`, which writes its lines, `ObservationView.apply`, which shows its text).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult

from recode_tui.console.widgets.env_log import EnvLog
from recode_tui.console.widgets.node_detail import NodeDetail
from recode_tui.console.widgets.observation_view import ObservationView

from .helpers import drawn


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield NodeDetail(id="detail")


class ObservationHost(App[None]):
    def compose(self) -> ComposeResult:
        yield ObservationView(id="observation")


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


async def test_an_observation_as_long_as_the_last_lays_nothing_out_and_one_shown_while_hidden_shows_whole() -> None:
    app = ObservationHost()
    async with app.run_test(size=(60, 16)):
        view = app.query_one(ObservationView)
        text = view.query_one("#observation-text")
        view.task_text, view.action, view.step, view.observation = "put a mug on the desk", "look", 1, "a room"
        view.show_text()
        await drawn(app)
        height = text.size.height
        laid_out: list[object] = []
        app.screen.screen_layout_refresh_signal.subscribe(app.screen, laid_out.append, immediate=True)
        view.step, view.observation = 2, "a desk"  # as many lines: the text changes, the layout does not
        view.show_text()
        await drawn(app)
        assert not laid_out and text.size.height == height and "step 2 > look" in view.text
        assert any("a desk" in text.render_line(y).text for y in range(height))
        view.observation = "a desk\na mug\na lamp"  # two lines more: laid out for them
        view.show_text()
        await drawn(app)
        assert laid_out and text.size.height == height + 2
        view.display = False
        await drawn(app)
        view.observation = "a desk\na mug\na lamp\na chair\na window"  # while hidden
        view.show_text()
        view.display = True
        await drawn(app)
        assert text.size.height == height + 4
        assert text.render_line(height + 3).text.rstrip() == "a window"
