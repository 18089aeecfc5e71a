"""One test per private Textual override (recode_tui/console/support/textual_compat.py): each fails when an
upgrade of Textual renames or changes what the override relies on."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widget import Widget

from recode_tui.console.support.textual_compat import (TEXTUAL_MAJOR, FatalErrorHook, KeyFirstTextArea, LineHookLog,
                                               SteadyScreen, frame_pending, notifications_on_show, screen_cells,
                                               textual_major)

from .helpers import drawn, key_pressed

ROOT = Path(__file__).resolve().parents[2]


def test_textual_is_bounded_to_the_major_version_the_overrides_are_written_for():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    [textual] = [d for d in deps if d.startswith("textual")]
    assert textual.endswith(f">={TEXTUAL_MAJOR}.0,<{TEXTUAL_MAJOR + 1}")
    assert textual_major() == TEXTUAL_MAJOR


class Crashing(FatalErrorHook, App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[BaseException] = []

    def on_fatal_error(self, error: BaseException) -> None:
        self.seen.append(error)

    def on_mount(self) -> None:
        raise ValueError("boom in a handler")


async def test_an_unhandled_exception_reaches_on_fatal_error_and_ends_the_app():
    app = Crashing()
    with pytest.raises(ValueError, match="boom in a handler"):  # the test harness re-raises it at the end
        async with app.run_test():
            pass  # the app fails as it mounts: leaving `run_test` raises what it raised
    assert [type(e) for e in app.seen] == [ValueError] and str(app.seen[0]) == "boom in a handler"
    assert app.return_code == 1  # Textual's own exit status for an unhandled exception


class CountingLog(LineHookLog):
    def __init__(self) -> None:
        super().__init__()
        self.rendered: list[int] = []
        self.open = 0

    def before_line(self, y: int) -> None:
        self.rendered.append(y)
        self.open += 1

    def after_line(self) -> None:
        self.open -= 1


class LogApp(App[None]):
    def compose(self) -> ComposeResult:
        yield CountingLog()


async def test_a_log_line_is_prepared_once_then_cached_until_the_cache_is_cleared():
    app = LogApp()
    async with app.run_test(size=(40, 10)) as pilot:
        log = app.query_one(CountingLog)
        log.write_lines(["first", "second"])
        await drawn(app)  # the frame of the write
        assert 0 in log.rendered and log.open == 0
        before = len(log.rendered)
        log.refresh()
        await drawn(app)  # a frame drawing the log again
        assert len(log.rendered) == before  # served from the cache
        log.clear_line_cache()
        log.refresh()
        await drawn(app)
        assert len(log.rendered) > before


class Shouting(KeyFirstTextArea):
    async def key_first(self, event: events.Key) -> bool:
        if event.key == "enter":
            self.insert("!")
            self.restart_blink()
            return True
        return False


class AreaApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Shouting()


async def test_a_key_reaches_key_first_before_the_text_area_inserts_it():
    app = AreaApp()
    async with app.run_test() as pilot:
        area = app.query_one(Shouting)
        area.focus()
        for key in ("a", "enter", "b"):  # as the terminal sends them, each handled before the next
            await key_pressed(app, key)
        assert area.text == "a!b"  # enter handled first: no newline inserted


async def test_the_variables_table_draws_rows_again_once_the_widths_are_measured() -> None:
    """The private width pass FreshWidthsDataTable hooks still exists, and a row added after a paint
    is drawn at the widths its own text needs (not at the header's)."""
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable

    from recode_tui.console.support.textual_compat import FreshWidthsDataTable

    assert callable(getattr(DataTable, "_update_dimensions")) and callable(getattr(DataTable, "_clear_caches"))
    calls = []

    class Probe(FreshWidthsDataTable):
        def _clear_caches(self) -> None:
            calls.append(1)
            super()._clear_caches()

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield Probe()

    app = Host()
    async with app.run_test(size=(80, 10)) as pilot:
        table = app.query_one(Probe)
        table.add_column("name", key="name")
        await pilot.pause()
        calls.clear()
        table.add_row("instruction_with_a_long_name", key="r")
        await pilot.pause()
        await pilot.pause()
        assert calls, "the width pass did not drop the render caches"
        assert "instruction_with_a_long_name" in "".join(s.text for s in table.render_line(1))


def test_the_guarded_strip_render_draws_what_textuals_own_does_minus_terminal_controls():
    """`guard_terminal_output` replaces `Strip.render` with a copy that cleans the text: it must draw
    exactly what Textual's own draws (a changed `Strip` fails here), and drop every control."""
    from rich.console import Console
    from rich.segment import Segment
    from rich.style import Style
    from textual.strip import Strip

    import recode_tui.console  # noqa: F401 - the package guards the output when imported
    from recode_tui.console.support.textual_compat import TEXTUAL_STRIP_RENDER

    console = Console(color_system="truecolor")
    segments = [Segment("plain "), Segment("bold", Style(bold=True)), Segment(" red", Style(color="red"))]
    assert Strip.render is not TEXTUAL_STRIP_RENDER
    assert Strip(segments).render(console) == TEXTUAL_STRIP_RENDER(Strip(segments), console)
    hostile = [Segment("a\x1b]52;c;aGk=\x07b"), Segment("\x1b[2J\x9b1m", Style(bold=True))]
    cleaned = [Segment("a]52;c;aGk=b"), Segment("[2J1m", Style(bold=True))]
    assert Strip(hostile).render(console) == TEXTUAL_STRIP_RENDER(Strip(cleaned), console)


def test_a_css_source_is_parsed_once_per_process_for_each_set_of_variables():
    """`share_css_parsing` keeps `Stylesheet._parse_rules`' results for every stylesheet of the process
    (every App has its own): a second app's stylesheet gets the same rules without parsing, and other
    variables (another theme) parse again, into their own values."""
    from textual.css.stylesheet import Stylesheet

    import recode_tui.console  # noqa: F401 - the package shares the parsing when imported

    css = "Static { color: $accent; }"
    first, second = Stylesheet(variables={"accent": "red"}), Stylesheet(variables={"accent": "red"})
    other = Stylesheet(variables={"accent": "blue"})
    for sheet in (first, second, other):
        sheet.add_source(css, read_from=("test", "shared"))
        sheet.parse()
    assert first.rules[0] is second.rules[0]  # parsed once
    assert other.rules[0] is not first.rules[0]
    assert {str(sheet.rules[0].styles.color) for sheet in (first, other)} == {"Color(255, 0, 0)", "Color(0, 0, 255)"}


async def test_a_layout_that_leaves_a_scrolling_widgets_sizes_alone_redraws_none_of_it() -> None:
    """`SteadyScrollbars` skips Textual's `_size_updated` when the sizes it is given are the last
    layout's: Textual's compares the parent's size with the widget's inner one and redraws the
    scrollbars at every layout of the screen. A real resize still reaches the widget."""
    from textual.widgets import Static

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("one line", id="above")
            yield LineHookLog()

    app = Host()
    async with app.run_test(size=(40, 12)) as pilot:
        log = app.query_one(LineHookLog)
        log.write_lines([f"line {n}" for n in range(50)])
        await pilot.pause()
        redraws: list[bool] = []
        bar = log.vertical_scrollbar
        redraw = bar.refresh
        bar.refresh = lambda *a, **k: (redraws.append(True), redraw(*a, **k))[1]  # type: ignore[method-assign]
        for _ in range(3):  # layouts that change nothing of the log's
            app.query_one("#above", Static).update("the same line")
            await pilot.pause()
        assert not redraws
        await pilot.resize_terminal(50, 10)
        await pilot.pause()
        assert redraws and log.size.width == 50 and bar.window_size == log.scrollable_content_region.height


async def test_a_logs_width_is_measured_with_its_write_not_in_a_worker() -> None:
    """`LineHookLog._update_size`: Textual measures a write's widest line in a thread worker, and the width
    it sets lands after the write's layout (a second one); here it is set by the write itself."""

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield LineHookLog()

    app = Host()
    async with app.run_test(size=(40, 12)):
        log = app.query_one(LineHookLog)
        log.write_lines(["short", "a line of twenty-nine cells.."])
        assert log.virtual_size.width == 29 and not list(app.workers)


async def test_a_resize_to_the_size_the_screen_has_lays_nothing_out_again() -> None:
    """`SteadyScreen._screen_resized`: Textual lays a screen out at every Resize, a console's start brings
    three of one size; here only a new size is laid out."""
    from textual.geometry import Size
    from textual.widgets import Static

    app = hosting_a_steady_screen(lambda: [Static("steady")])
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        screen = app.screen
        layouts: list[object] = []
        screen.screen_layout_refresh_signal.subscribe(screen, layouts.append)
        screen.post_message(events.Resize(Size(40, 12), Size(40, 12)))
        await pilot.pause()
        assert not layouts
        await pilot.resize_terminal(50, 10)
        await pilot.pause()
        assert layouts and screen.outer_size == Size(50, 10)


async def test_a_scrollbar_a_layout_moved_is_drawn_in_that_layouts_frame_not_in_one_of_its_own() -> None:
    """`SteadyScreen._compositor_refresh`: a layout that grows a pane moves its scrollbar's thumb, which
    asks for a repaint after the frame is drawn: Textual draws a second frame for it alone. Here the
    layout's frame draws it, once, and no frame follows for it."""
    from textual.widgets import Static

    app = hosting_a_steady_screen(lambda: [Static("one line", id="above"), LineHookLog()])
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        log = app.screen.query_one(LineHookLog)
        log.write_lines([f"line {n}" for n in range(30)])
        await pilot.pause()
        bar = log.vertical_scrollbar
        painted: list[int] = []
        draw = bar.render_lines
        bar.render_lines = lambda crop: (painted.append(bar.window_virtual_size), draw(crop))[1]  # type: ignore[method-assign]
        log.write_lines([f"more {n}" for n in range(30)])  # the thumb shrinks: the log is twice as long
        await pilot.pause()
        assert painted == [60]


async def test_a_focus_change_repaints_the_two_widgets_it_moves_between_not_the_whole_screen() -> None:
    """`SteadyScreen.focused`: Textual repaints the whole screen when the focus moves (a full frame: the
    screen's own lines behind every pane drawn again, every row composed again); here the widget that lost
    it and the one that got it repaint themselves, each with its focus border (what a person sees)."""
    from textual.widgets import Static

    from tests.console.helpers import drawn

    class Pane(Static, can_focus=True):
        DEFAULT_CSS = "Pane { height: 4; border: round blue; } Pane:focus { border: heavy red; }"

    app = hosting_a_steady_screen(lambda: [Pane("one", id="one"), Pane("two", id="two"),
                                           Static("elsewhere", id="elsewhere")])
    async with app.run_test(size=(30, 14)):
        await drawn(app)
        screen = app.screen
        screen.set_focus(screen.query_one("#one"))
        await drawn(app)
        screen_lines = lines_drawn_by(screen)
        screen.set_focus(screen.query_one("#two"))
        await drawn(app)
        assert screen_lines == []
        rows = ["".join(segment.text for segment in line) for line in screen_cells(app)]
        assert rows[0].startswith("╭") and rows[4].startswith("┏")  # the heavy border moved to `two`
        assert "elsewhere" in rows[8]


async def test_widgets_mounted_into_the_screen_are_drawn_without_the_whole_screen_again() -> None:
    """`SteadyScreen.refresh`: Textual asks the screen for a layout and a repaint when widgets mount into it
    (twice at a console's start), and the repaint draws the screen's own lines and composes every row again;
    here the layout's frame draws what it placed or moved, and a removal shows what was beneath."""
    from textual.widgets import Static

    from tests.console.helpers import drawn

    app = hosting_a_steady_screen(lambda: [Static("first", id="first")])
    async with app.run_test(size=(30, 8)):
        await drawn(app)
        screen = app.screen
        screen_lines = lines_drawn_by(screen)
        await screen.mount(Static("second", id="second"), before="#first")
        await drawn(app)
        assert screen_lines == []
        rows = ["".join(segment.text for segment in line).rstrip() for line in screen_cells(app)]
        assert rows[:3] == ["second", "first", ""]
        await screen.query_one("#second").remove()
        await drawn(app)
        rows = ["".join(segment.text for segment in line).rstrip() for line in screen_cells(app)]
        assert rows[:2] == ["first", ""]


class Greeting(App[None]):
    def compose(self) -> ComposeResult:
        from textual.widgets import Static

        yield Static("hello there")


async def test_screen_cells_are_the_characters_the_screenshot_shows():
    app = Greeting()
    async with app.run_test(size=(20, 2)):
        await drawn(app)  # the first frame
        text = ["".join(segment.text for segment in line) for line in screen_cells(app)]
        assert text[0].startswith("hello there") and len(text) == 2
        assert "hello" in app.export_screenshot()


async def test_the_notifications_on_show_are_listed_until_cleared():
    app = Greeting()
    async with app.run_test() as pilot:
        app.notify("the draft is saved", title="Saved")
        await drawn(app)  # the toast on show
        assert [n.message for n in notifications_on_show(app)] == ["the draft is saved"]
        app.clear_notifications()
        await drawn(app)
        assert notifications_on_show(app) == []


def test_a_highlight_query_is_compiled_once_per_process_for_each_language_and_still_finds_each_documents_nodes():
    """`share_highlight_queries` keeps `SyntaxAwareDocument.prepare_query`'s results for the process (each
    editor opened compiled Python's highlight query again, ~20 ms): a second document of the language
    gets the same compiled query, another query compiles anew, and the shared query runs over the
    second document's own text."""
    from textual.widgets import TextArea
    from textual.widgets.text_area import SyntaxAwareDocument

    import recode_tui.console  # noqa: F401 - the package shares the queries when imported

    first, second = TextArea("x = 1", language="python").document, TextArea("y = 2", language="python").document
    assert isinstance(first, SyntaxAwareDocument) and isinstance(second, SyntaxAwareDocument)
    compiled = first.prepare_query("(identifier) @name")
    assert second.prepare_query("(identifier) @name") is compiled
    assert second.prepare_query("(integer) @number") is not compiled
    found = second.query_syntax_tree(compiled)
    assert [node.text for node in found["name"]] == [b"y"]


def test_the_inner_and_outer_styles_are_textuals_cached_by_colour_holding_no_styles_cache():
    """`unpin_styles_caches` replaces `StylesCache.get_inner_outer` (Textual's `lru_cache` on the method kept
    every widget's cache, with its drawn lines, as a key): the same styles as Textual's own function, from a
    cache whose keys are the colours alone."""
    import weakref

    from textual._styles_cache import StylesCache
    from textual.color import Color

    import recode_tui.console  # noqa: F401 - the package replaces the method when imported

    base, background = Color(10, 20, 30), Color(200, 100, 50, 0.5)
    cache = StylesCache()
    styles = cache.get_inner_outer(base, background)
    textuals = StylesCache.get_inner_outer.__wrapped__.func  # type: ignore[attr-defined]
    assert styles == textuals(None, base, background)
    assert StylesCache().get_inner_outer(base, background) is styles  # cached: one entry for any widget
    held = weakref.ref(cache)
    del cache
    assert held() is None


def lines_drawn_by(screen: Screen[Any]) -> list[int]:
    """The rows the screen draws of its own from now on (a whole-screen repaint draws every one of them)."""
    from textual.strip import Strip

    drawn_rows: list[int] = []
    draw = screen.render_line

    def drawing(y: int) -> Strip:
        drawn_rows.append(y)
        return draw(y)

    screen.render_line = drawing  # type: ignore[method-assign]
    return drawn_rows


def hosting_a_steady_screen(widgets: Callable[[], list[Widget]]) -> App[None]:
    """An app whose default screen is a `SteadyScreen` made of `widgets()`: laid out and drawn before
    `run_test` hands over (a screen pushed at mount can have its first, whole-screen frame still to come
    when the test's first `drawn` returns on a loaded machine)."""

    class Steady(SteadyScreen):
        def compose(self) -> ComposeResult:
            yield from widgets()

    class Host(App[None]):
        def get_default_screen(self) -> Screen[Any]:
            return Steady()

    return Host()


async def test_a_frame_is_pending_after_a_change_until_it_is_drawn_and_while_a_message_waits():
    """`frame_pending` reads the screen's flags for a coming frame and the widgets' message queues: what the
    tests' `drawn` waits out frame by frame instead of sleeping until the process is idle."""
    from textual.widgets import Static

    from tests.console.helpers import drawn, queues_drained

    app = Greeting()
    async with app.run_test(size=(20, 2)):
        await drawn(app)
        assert not frame_pending(app)
        app.query_one(Static).update("goodbye")  # a repaint for the next frame
        assert frame_pending(app)
        await drawn(app)
        assert not frame_pending(app) and screen_cells(app)[0][0].text.startswith("goodbye")
        app.query_one(Static).post_message(events.Callback(callback=lambda: None))  # a message not yet handled
        assert frame_pending(app)
        await queues_drained(app)
        assert not frame_pending(app)
