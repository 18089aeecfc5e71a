"""The environment log: the task, then every action and observation in order.

A `Log` (virtual: it renders only the visible lines), written in batches, so it
keeps up with 100k lines. Actions stand out through a highlighter.
"""

from __future__ import annotations

import re
import textwrap
from typing import Callable, Iterable, Sequence

from rich.highlighter import Highlighter
from rich.text import Text
from textual.widgets import Log

from agent import events as ev
from recode_tui.console.search import Match

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


class EnvLog(Log):
    """Every action and observation of the episode."""

    search_name = "Environment"

    def __init__(self, **kwargs) -> None:
        super().__init__(highlight=True, **kwargs)
        self.highlighter = _EnvHighlighter()
        self._found: dict[int, list[tuple[int, int, bool]]] = {}  # line -> search matches on it

    # Private Textual API, on purpose: `Log._render_line_strip` and its `_render_line_cache`
    # are the only place to highlight a line (Log has no public per-line hook).
    def _render_line_strip(self, y: int, rich_style):  # type: ignore[override]
        # Log keeps rendered lines only while text is selected; keep them always
        # (highlighting a line costs ~0.5 ms, a full repaint 48 of them).
        cache = self.text_selection is None
        if cache and y in self._render_line_cache:
            return self._render_line_cache[y]
        self.highlighter.found = self._found.get(y, ())
        try:
            line = super()._render_line_strip(y, rich_style)
        finally:
            self.highlighter.found = ()
        if cache:
            self._render_line_cache[y] = line
        return line

    # -- search (`/`) ----------------------------------------------------------------

    def search_lines(self) -> Sequence[str]:
        return self.lines

    def search_origin(self) -> int:
        return int(self.scroll_y)

    def show_match(self, matches: Sequence[Match], current: Match | None) -> None:
        self._found = {}
        for match in matches:
            self._found.setdefault(match.line, []).append((match.start, match.end, match == current))
        self._render_line_cache.clear()
        self.refresh()
        if current is not None:
            top = int(self.scroll_y)
            if not top <= current.line < top + self.size.height:
                self.scroll_to(y=max(0, current.line - self.size.height // 2), animate=False)

    def _wrap(self, text: str, indent: str = INDENT) -> list[str]:
        width = max(20, (self.size.width or 60) - 2)
        lines: list[str] = []
        for para in text.strip("\n").split("\n"):
            lines.extend(
                textwrap.wrap(para, width, initial_indent=indent, subsequent_indent=indent + "  ") or [indent]
            )
        return lines

    def lines_for(self, event: ev.Event) -> list[str]:
        match event:
            case ev.RunStarted():
                return [
                    *self._wrap(f"TASK {event.instruction}", ""),
                    *self._wrap(event.observation),
                ]
            case ev.ActionSent():
                return [f"{event.step:>3} > {event.action}"]
            case ev.ObservationReceived():
                return self._wrap(event.observation)
            case ev.RunFinished():
                verdict = "WON" if event.success else "FAILED"
                return [f"══ {verdict}: {event.reason} ({event.steps} steps) ══"]
        return []

    scores: Callable[[], Sequence[tuple[int, int, int]]] | None = None  # the env's (step, old, new) score changes

    def apply(self, events: Iterable[ev.Event]) -> None:
        lines: list[str] = []
        for event in events:
            lines.extend(self.lines_for(event))
            if isinstance(event, ev.ObservationReceived) and self.scores is not None:
                lines.extend(f"{INDENT}score {old} → {new}" for step, old, new in self.scores() if step == event.step)
        if lines:
            self.write_lines(lines)
