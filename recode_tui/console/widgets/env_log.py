"""The environment log: the task, then every action and observation in order.

A `Log` (virtual: it renders only the visible lines), written in batches, so it
keeps up with 100k lines. Actions stand out through a highlighter.

The log wraps long observations itself, to its width: it keeps every entry
unwrapped and wraps them again when its width changes (a resize, a narrow
terminal's `v` showing the hidden pane), so no line is cut at the pane's edge.
"""

from __future__ import annotations

import re
from bisect import bisect_right
import textwrap
from typing import Callable, Iterable, Sequence

from rich.highlighter import Highlighter
from rich.text import Text
from textual import events
from textual.geometry import Size

from agent.runtime import events as ev
from agent.runtime.event_text import finish_verdict
from recode_tui.console.widgets.search import Match
from recode_tui.console.support.textual_compat import LineHookLog

_ACTION = re.compile(r"^\s*\d+ > ")
INDENT = "      "
MATCH_STYLE = "black on yellow"  # `/` search: every match, and the current one
CURRENT_MATCH_STYLE = "black on dark_orange bold"


class _EnvHighlighter(Highlighter):
    def __init__(self) -> None:
        self.found: Sequence[tuple[int, int, bool]] = ()  # search matches on the line being drawn

    def highlight(self, text: Text) -> None:
        self._highlight_kind(text)
        for start, end, current in self.found:
            text.stylize(CURRENT_MATCH_STYLE if current else MATCH_STYLE, start, end)

    def _highlight_kind(self, text: Text) -> None:
        plain = text.plain
        if _ACTION.match(plain):
            text.stylize("bold cyan")
            head = plain.index(">")
            text.stylize("dim", 0, head)
        elif plain.startswith("TASK "):
            text.stylize("bold yellow")
        elif plain.startswith("══ WON"):
            text.stylize("bold green")
        elif plain.startswith("══"):
            text.stylize("bold red")


class EnvLog(LineHookLog):
    """Every action and observation of the episode."""

    search_name = "Environment"

    def __init__(self, **kwargs) -> None:
        super().__init__(highlight=True, **kwargs)
        self.env_highlighter = _EnvHighlighter()  # typed: `highlighter` is Log's, a plain Highlighter
        self.highlighter = self.env_highlighter
        self._found: dict[int, list[tuple[int, int, bool]]] = {}  # line -> search matches on it
        # Every entry as written, unwrapped: (text, indent), indent None for a line kept as is.
        self.entries: list[tuple[str, str | None]] = []
        self.entry_starts: list[int] = []  # the first log line of each entry
        self.wrapped_to = 0  # the width the lines are wrapped to; 0: not yet laid out

    # Log has no public per-line hook: `LineHookLog` (textual_compat) gives one.
    def before_line(self, y: int) -> None:
        self.env_highlighter.found = self._found.get(y, ())

    def after_line(self) -> None:
        self.env_highlighter.found = ()

    def take_focus(self) -> bool:
        self.focus()
        return True

    # -- search (`/`) ----------------------------------------------------------------

    def search_lines(self) -> Sequence[str]:
        return self.lines

    def search_origin(self) -> int:
        return int(self.scroll_y)

    def show_match(self, matches: Sequence[Match], current: Match | None) -> None:
        self._found = {}
        for match in matches:
            self._found.setdefault(match.line, []).append((match.start, match.end, match == current))
        self.clear_line_cache()
        self.refresh()
        if current is not None:
            top = int(self.scroll_y)
            if not top <= current.line < top + self.size.height:
                self.scroll_to(y=max(0, current.line - self.size.height // 2), animate=False)

    def wrap_width(self) -> int:
        """The width lines are wrapped to: the pane's, less a column for the scrollbar. A hidden pane
        (a narrow terminal's other view) has no width: its lines keep the width they were last wrapped
        to, and wrap again when it is shown at another."""
        if not self.size.width:
            return self.wrapped_to or 58
        return max(20, self.size.width - 2)

    @staticmethod
    def wrap(text: str, indent: str | None, width: int) -> list[str]:
        """One entry as log lines `width` wide. An entry without an indent (an action, a score, the end)
        is one line while it fits, and goes on under the log's indent when it does not."""
        if indent is None:
            if len(text) <= width and text.isprintable():
                return [text]
            return textwrap.wrap(text, width, subsequent_indent=INDENT) or [""]
        lines: list[str] = []
        for para in text.strip("\n").split("\n"):
            if len(para) + len(indent) <= width and para.isprintable():  # the usual short line: as textwrap would
                lines.append(indent + para.rstrip() if para.strip() else indent)
                continue
            lines.extend(
                textwrap.wrap(para, width, initial_indent=indent, subsequent_indent=indent + "  ") or [indent]
            )
        return lines

    def entries_for(self, event: ev.Event) -> list[tuple[str, str | None]]:
        """What an event adds to the log: (text, indent) entries, wrapped when written."""
        match event:
            case ev.RunStarted():
                return [(f"TASK {event.instruction}", ""), (event.observation, INDENT)]
            case ev.ActionSent():
                return [(f"{event.step:>3} > {event.action}", None)]
            case ev.ObservationReceived():
                return [(event.observation, INDENT)]
            case ev.RunFinished():
                return [(f"══ {finish_verdict(event, 'WON', 'FAILED')} ({event.steps} steps) ══", None)]
        return []

    scores: Callable[[], Sequence[tuple[int, float, float]]] | None = None  # the env's (step, old, new) score changes

    def apply(self, events: Iterable[ev.Event]) -> None:
        entries: list[tuple[str, str | None]] = []
        for event in events:
            entries.extend(self.entries_for(event))
            if isinstance(event, ev.ObservationReceived) and self.scores is not None:
                entries.extend((f"{INDENT}score {old} → {new}", None) for step, old, new in self.scores() if step == event.step)
        if not entries:
            return
        width = self.wrap_width()
        if self.size.width:
            self.wrapped_to = width
        lines: list[str] = []
        start = len(self.lines)
        for text, indent in entries:
            self.entry_starts.append(start + len(lines))
            lines.extend(self.wrap(text, indent, width))
        self.entries.extend(entries)
        self.write_lines(lines)

    # -- re-flow ----------------------------------------------------------------------

    def validate_virtual_size(self, size: Size) -> Size:
        """The scrollable height is at least the pane's own: a line written while the log fits (the
        start of every run, the whole of a short one) repaints that line and lays nothing out, where
        each new line changed the scrollable size and Textual laid the screen out for it (a quarter of
        such a step's CPU). Nothing scrolls either way, and the scrollbar draws the same."""
        return Size(size.width, max(size.height, self.scrollable_content_region.height))

    def on_resize(self, event: events.Resize) -> None:
        """A new width (a resize, or the hidden pane shown): wrap every entry again. Another height
        only: the scrollable height follows the pane's (`validate_virtual_size`)."""
        if self.size.width and self.wrap_width() != self.wrapped_to:
            self.reflow()
        else:
            self.virtual_size = Size(self.virtual_size.width, self.line_count)

    def reflow(self) -> None:
        """Every entry wrapped to the present width; the first entry in view stays in view."""
        width = self.wrap_width()
        self.wrapped_to = width
        if not self.entries:
            return
        at_end = self.is_vertical_scroll_end
        top = int(self.scroll_y)
        first = max(0, bisect_right(self.entry_starts, top) - 1)
        lines: list[str] = []
        starts: list[int] = []
        for text, indent in self.entries:
            starts.append(len(lines))
            lines.extend(self.wrap(text, indent, width))
        self.entry_starts = starts
        self._found = {}  # line numbers of search matches are stale: the next search step finds them again
        self.clear()
        self.write_lines(lines, scroll_end=False)
        if at_end:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
        else:
            self.scroll_to(x=0, y=starts[first], animate=False, immediate=True)
