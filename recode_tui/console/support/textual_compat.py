"""Every use of Textual's private API, in one place, each behind a public-named hook.

Textual has no public hook for the things listed below that the console needs; the private
names below are the only way, so they are kept here and nowhere else, and
tests/console/test_textual_compat.py has one test per override that fails
when an upgrade changes it. pyproject.toml bounds Textual to 8.x for the same
reason: read the changelog for these names before raising the bound.

- `App._fatal_error` (with `App._exception` and `App._close_messages_no_wait`):
  the only hook for an unhandled exception. `FatalErrorHook` calls
  `on_fatal_error(error)` instead and ends the app the way Textual does.
- `Log._render_line_strip` (with `Log._render_line_cache`): the only place to
  style one line of a Log. `LineHookLog` calls `before_line(y)`/`after_line()`
  around it and keeps rendered lines cached even without a selection.
- `TextArea._on_key` (with `TextArea._restart_blink`): TextArea inserts typed
  text there, before any binding sees the key. `KeyFirstTextArea` offers the
  key to `key_first(event)` first.
- `DataTable._update_dimensions` (with `DataTable._clear_caches`): a row painted
  between `add_row` and the table's next idle is cached with the columns' old
  widths, and stays so after the widths grow (a half-drawn row: "+inst str").
  `FreshWidthsDataTable` drops the render caches once the widths are measured.
- `Log._update_size` (with `Log._update_maximum_width`, `Log._process_line`): Textual measures the
  widest line of each write in a thread worker, whose result lands after the write's layout and asks
  for another. `LineHookLog` measures them with the write.
- `ScrollView._size_updated`: called for every scrolling widget at every layout of the screen
  (a node's detail growing by a line, say); Textual's compares the parent's size with the
  widget's own inner size, which always differ, so it redraws the widget's scrollbars each time,
  and a scrollbar at the bottom of the screen makes the frame repaint every pane between it
  and the change. `SteadyScrollbars` passes it on only when what the scrollbars are drawn from
  (the sizes given, the content's size, the gutter, the overflow styles) changed.
- `Screen._screen_resized`: Textual lays the whole screen out again at every Resize event it gets,
  and a console's start brings three of the same size (the first layout's own, the app's first
  size, its next idle's): three layouts and their frames, one of them a full repaint.
  `SteadyScreen` lays out only when the size changed, as Textual's own screen resume does.
- `Screen._compositor_refresh` (with `Screen._compositor`, `Widget._repaint_required`): a repaint
  asked for during a layout (the thumb of a scrollbar the layout moved) reaches the screen only at the
  widget's next idle, so Textual draws one more frame for it, a tenth of a step's CPU. `SteadyScreen`
  draws what is pending in the frame being drawn (the frame that follows for it finds nothing to draw).
- `Screen.focused` (public, but Textual's reactive redeclared): Textual declares it to repaint the whole
  screen when the focus moves, a full frame (every row composed again, the screen's own lines drawn again)
  at each focus change, as dear as a boot's first frame. The widget that loses the focus and the one that
  gets it repaint themselves (`Widget._on_blur`/`_on_focus`), and the panes whose `:focus-within` styles
  change are restyled, so repainted. `SteadyScreen` declares it without the repaint.
- `Screen.refresh(layout=True)` (public, but what Textual's own callers rely on): Textual asks the screen
  for a layout with a repaint when widgets mount into it (`AwaitMount`, twice at a console's start), and
  the repaint draws the whole screen again (a full frame, the screen's own lines drawn again). The layout
  alone marks every widget it placed, moved, resized or hid for the frame, so `SteadyScreen` drops the
  repaint from a layout; a repaint asked for alone (a screen resumed, a modal gone) stays whole.
- `Strip.render` (with `Strip._render_cache`, `Strip._segments`, `Console._color_system`): where
  every line a widget draws becomes the characters sent to the terminal, and the only place all of
  them pass. `guard_terminal_output` makes it drop control characters from the text (a model's
  `\x1b]52;...` would write the clipboard, `\x1b[2J` clear the screen), the last wall behind
  `recode_tui.setup.shown`, which shows data's controls as visible escapes where it is built. A
  control character takes no cell, so dropping it moves nothing on the screen.
- `Stylesheet._parse_rules` (with `Stylesheet._variables`): where Textual parses one CSS source,
  cached per stylesheet, so every App instance parses the console's CSS and every widget's
  default CSS again (about an eighth of a console boot's CPU; tests boot hundreds).
  `share_css_parsing` keeps the parsed rules for the whole process, keyed by the CSS and the
  variables they were parsed with.
- `SyntaxAwareDocument.prepare_query` (public, but Textual's method replaced for every TextArea):
  a language's highlight query is compiled for each document, ~20 ms for Python at each answer
  editor opened. `share_highlight_queries` keeps the compiled queries for the whole process.
- `StylesCache.get_inner_outer` (in the private `textual._styles_cache`): Textual caches it with
  `lru_cache(1024)` on the instance method, so the cache's keys hold every widget's `StylesCache`, and
  with it every line the widget last drew, for 1,024 calls after the widget is gone (Textual issue
  6665). A console that opens and closes screens (a workspace, a diff, a run replaced by a resume)
  kept the lines of hundreds of gone widgets; a test worker ~12,000 objects per console test, which
  the garbage collector walked again at each collection. `unpin_styles_caches` caches the same
  result by the two colours it depends on, holding no widget's cache.
- `Screen._layout_required`, `_scroll_required`, `_repaint_required`, `_recompose_required`,
  `_dirty_widgets`, `_callbacks` and each node's `_message_queue`: whether the screen still has a frame
  or a message pending. `frame_pending` reads them so that tests wait frame by frame for a finished
  frame; Pilot's public `pause` sleeps until the process is idle instead (a third of the console
  tests' time).
- `Screen._compositor` (with `App._background_screens`): the cells of the frame now drawn.
  `screen_cells` reads them for tests that wait for a finished frame; Textual's public way,
  `App.export_screenshot`, makes an SVG of them, most of a screenshot's cost.
- `App._notifications`: the notifications on show. `notifications_on_show` lists them; Textual
  has no public list, and their toasts expire.
"""

from __future__ import annotations

from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from textual import events
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable, Log, TextArea

if TYPE_CHECKING:
    from textual.app import App
    from typing_extensions import Self  # typing's from Python 3.11 (pyproject allows 3.10)
    from textual.notifications import Notification

    class _AppHost(App[None]):
        """For the type checker: the App a mixin below is mixed into."""
else:
    _AppHost = object  # a plain mixin at run time

TEXTUAL_MAJOR = 8  # the major version these overrides are written against (pyproject: textual>=8,<9)


class FatalErrorHook(_AppHost):
    """App mixin: an unhandled exception goes to `on_fatal_error(error)`, then the app ends at once."""

    def on_fatal_error(self, error: BaseException) -> None:
        """Say what went wrong (override); the app is closed right after."""

    def _fatal_error(self) -> None:  # Textual's private hook (see the module docstring)
        error = getattr(self, "_exception", None)  # dynamic: Textual's private attribute, absent in some versions
        if error is None:
            super()._fatal_error()
            return
        self.on_fatal_error(error)
        app: Any = self
        app._close_messages_no_wait()  # private: how Textual's own `_fatal_error` ends the app


class SteadyScrollbars(ScrollView):
    """A scrolling widget whose scrollbars are redrawn when its sizes change, not at every layout."""

    _laid_out: tuple[object, ...] | None = None

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        styles = self.styles
        # Everything the scrollbars are drawn from: the sizes given, the content's own size (grown since,
        # say), the border and padding, and the styles that decide whether a scrollbar shows.
        laid_out = (size, virtual_size, container_size, self.virtual_size, styles.gutter, styles.overflow_x,
                    styles.overflow_y, styles.scrollbar_size_vertical, styles.scrollbar_size_horizontal)
        if laid_out == self._laid_out:
            return False  # as at the last layout: nothing to redraw, no resize to send
        self._laid_out = laid_out
        return super()._size_updated(size, virtual_size, container_size, layout)


class SteadyScreen(Screen[None]):
    """A screen laid out again at a Resize only when its size changed, and not repainted whole at a focus change."""

    # Textual's `focused` repaints the whole screen when it changes; the widgets focused and blurred
    # repaint themselves (and the panes whose `:focus-within` styles change are restyled, so repainted).
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        """A layout asked for with a repaint (Textual's, when widgets mount into the screen: a console's start
        asks twice) draws what the layout moved, not the whole screen: the layout marks every widget whose
        place or size changed (shown, hidden, moved) for the frame; the screen's own lines change only with
        its styles, which repaint it themselves."""
        if layout and not regions:
            repaint = False
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def _screen_resized(self, size: Size) -> None:  # Textual's private hook (see the module docstring)
        if size == self.outer_size:
            return  # laid out at this size already: a layout asked for since comes with the next frame
        super()._screen_resized(size)

    def _compositor_refresh(self) -> None:  # Textual's private frame (see the module docstring)
        # A repaint asked for while this frame was laid out (a scrollbar whose thumb the layout moved)
        # is drawn in it: Textual waits for the widget's next idle, then draws a frame for it alone.
        compositor: Any = getattr(self, "_compositor")  # dynamic: private
        pending = {widget for widget in compositor.visible_widgets
                   if getattr(widget, "_repaint_required")}  # dynamic: private
        if pending:
            compositor.update_widgets(pending)
        super()._compositor_refresh()


class LineHookLog(Log, SteadyScrollbars):  # the mixin after: Textual reads CSS from the first base
    """A Log whose lines can be styled one at a time: `before_line(y)` runs before line `y` renders
    (set up the highlighter), `after_line()` after it. Rendered lines stay cached until `clear_line_cache`."""

    def before_line(self, y: int) -> None:
        """Prepare to render line `y` (override)."""

    def after_line(self) -> None:
        """Undo `before_line` (override)."""

    def clear_line_cache(self) -> None:
        """Forget rendered lines (their styling changed): they render again on the next refresh."""
        self._render_line_cache.clear()

    def _render_line_strip(self, y: int, rich_style: Any) -> Strip:
        # Log keeps rendered lines only while text is selected; keep them always
        # (highlighting a line costs ~0.5 ms, a full repaint 48 of them).
        cache = self.text_selection is None
        if cache and y in self._render_line_cache:
            return self._render_line_cache[y]
        self.before_line(y)
        try:
            line = super()._render_line_strip(y, rich_style)
        finally:
            self.after_line()
        if cache:
            self._render_line_cache[y] = line
        return line

    def _update_size(self, *args: Any, **kwargs: Any) -> Any:  # Textual's (updates, lines), typed as its worker's
        # Textual measures the widest new line in a thread worker, one per write, and sets the width it
        # finds from there: a worker's messages, and a second layout when that lands after the first.
        # Measured here, with the write: the width goes into the write's own layout.
        updates, lines = args
        if lines:
            self._update_maximum_width(updates, max(cell_len(self._process_line(line)) for line in lines))


class KeyFirstTextArea(TextArea, SteadyScrollbars):
    """A TextArea that offers each key to `key_first` before inserting typed text."""

    async def key_first(self, event: events.Key) -> bool:
        """Handle `event` before the text area does (override); True: handled, the text area skips it."""
        return False

    def restart_blink(self) -> None:
        """Show the cursor now and restart its blinking, as typing does."""
        self._restart_blink()

    async def _on_key(self, event: events.Key) -> None:  # Textual's private key handler
        if await self.key_first(event):
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)


class FreshWidthsDataTable(DataTable, SteadyScrollbars):
    """A DataTable whose rows are drawn again once new rows have set the columns' widths."""

    def _update_dimensions(self, new_rows: Any) -> None:  # Textual's private width pass, run when idle
        super()._update_dimensions(new_rows)
        self._clear_caches()  # rows rendered before the widths grew are not drawn from the cache
        self.refresh()


def textual_major() -> int:
    """The installed Textual's major version."""
    from importlib.metadata import version

    return int(version("textual").split(".")[0])


# C0 controls, DEL and C1 controls: what a terminal acts on instead of showing (None: dropped).
_CONTROLS: dict[int, None] = dict.fromkeys([*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)])
_GUARDED: list[bool] = []  # set once `Strip.render` is guarded
TEXTUAL_STRIP_RENDER = Strip.render  # Textual's own, as imported (tests compare the guarded one with it)


def without_controls(text: str) -> str:
    """`text` without the characters a terminal would act on (printable text comes back as it is)."""
    return text if text.isprintable() else text.translate(_CONTROLS)


def guard_terminal_output() -> None:
    """From now on no text a widget draws carries a terminal control: `Strip.render` drops them.

    Called once by the console package; calling it again changes nothing.
    """
    if _GUARDED:
        return
    from rich.color import ColorSystem

    def render(self: Strip, console: Any) -> str:  # Textual's `Strip.render`, with the text cleaned
        if self._render_cache is None:
            color_system = console._color_system or ColorSystem.TRUECOLOR  # private, as Textual reads it
            render_style = self.render_style
            self._render_cache = "".join(
                without_controls(text) if style is None
                else render_style(style, without_controls(text), color_system=color_system)
                for text, style, _ in self._segments
            )
        return self._render_cache

    setattr(Strip, "render", render)
    _GUARDED.append(True)


_PARSED: dict[tuple[Any, ...], Any] = {}  # (variables, Textual's cache key) -> the parsed rules, for this process
_SHARED_PARSING: list[bool] = []  # set once `Stylesheet._parse_rules` shares its results


def share_css_parsing() -> None:
    """From now on a CSS source parsed once in this process (with the same variables) is not parsed again.

    Called once by the console package; calling it again changes nothing.
    """
    if _SHARED_PARSING:
        return
    from textual.css.stylesheet import Stylesheet

    parse_rules = Stylesheet._parse_rules  # Textual's own, private: see the module docstring

    def shared(self: Stylesheet, css: str, read_from: Any, is_default_rules: bool = False, tie_breaker: int = 0,
               scope: str = "") -> Any:
        variables = tuple(sorted(getattr(self, "_variables").items()))  # dynamic: private, what `$names` become
        key = (variables, css, read_from, is_default_rules, tie_breaker, scope)
        rules = _PARSED.get(key)
        if rules is None:
            rules = _PARSED[key] = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
        return rules

    setattr(Stylesheet, "_parse_rules", shared)
    _SHARED_PARSING.append(True)


_QUERIES: dict[tuple[Any, str], Any] = {}  # (tree-sitter language, query source) -> the compiled query, for this process
_SHARED_QUERIES: list[bool] = []  # set once `SyntaxAwareDocument.prepare_query` shares its results


def share_highlight_queries() -> None:
    """From now on a tree-sitter query compiled once in this process is not compiled again.

    Textual compiles a language's highlight query for every document a TextArea makes (~20 ms for
    Python: each editor of each console opened). A compiled query holds no document's state (a
    cursor runs it over a tree), so one serves every document of its language. Public names only,
    but it replaces a method of Textual's class, so it lives here. Called once by the console
    package; calling it again changes nothing.
    """
    if _SHARED_QUERIES:
        return
    from textual.widgets.text_area import SyntaxAwareDocument

    prepare_query = SyntaxAwareDocument.prepare_query

    def shared(self: SyntaxAwareDocument, query: str) -> Any:
        key = (self.language, query)
        compiled = _QUERIES.get(key)
        if compiled is None:
            compiled = _QUERIES[key] = prepare_query(self, query)
        return compiled

    setattr(SyntaxAwareDocument, "prepare_query", shared)
    _SHARED_QUERIES.append(True)


_UNPINNED: list[bool] = []  # set once `StylesCache.get_inner_outer` no longer holds its caches


def unpin_styles_caches() -> None:
    """From now on Textual's inner/outer background styles are cached by their colours alone, not by
    the widget's `StylesCache` too: a gone widget's drawn lines are freed with it.

    Textual's own function is called unchanged (it reads only the colours). Called once by the console
    package; calling it again changes nothing.
    """
    if _UNPINNED:
        return
    from textual._styles_cache import StylesCache  # private module: see the module docstring

    textuals = StylesCache.get_inner_outer.__wrapped__  # the function under Textual's `lru_cache`
    by_colours = lru_cache(1024)(partial(textuals, None))
    setattr(StylesCache, "get_inner_outer", staticmethod(by_colours))
    _UNPINNED.append(True)


def screen_cells(app: App[Any]) -> list[list[Any]]:
    """The screen's cells as Textual draws them now: each line's segments, what `export_screenshot` prints."""
    screen: Any = app.screen
    update = screen._compositor.render_update(full=True, screen_stack=getattr(app, "_background_screens"))  # dynamic: private
    return [list(line) for line in update.strips]


def frame_pending(app: App[Any]) -> bool:
    """The screen on show has work for a coming frame (a layout, a repaint, a recompose, a call queued
    for after the refresh) or a message still queued to the app or one of its widgets: what Pilot's
    idle wait waits out, read instead of waited for."""
    screen: Any = app.screen
    if (screen._layout_required or screen._scroll_required or screen._repaint_required  # dynamic: private
            or screen._recompose_required or screen._dirty_widgets or screen._callbacks):
        return True
    return any(not node._message_queue.empty() for node in (app, *screen.walk_children(with_self=True)))


def notifications_on_show(app: App[Any]) -> list[Notification]:
    """The notifications `app` shows now (its `notify` calls not yet expired or dismissed)."""
    return list(getattr(app, "_notifications"))  # dynamic: Textual's private list


__all__ = ["FatalErrorHook", "KeyFirstTextArea", "LineHookLog", "SteadyScreen", "SteadyScrollbars", "TEXTUAL_MAJOR",
           "frame_pending", "guard_terminal_output", "notifications_on_show", "screen_cells", "share_css_parsing",
           "share_highlight_queries", "textual_major", "unpin_styles_caches"]
