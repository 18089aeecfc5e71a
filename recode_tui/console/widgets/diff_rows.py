"""Two runs aligned row by row: a virtual list, so 10k rows a side cost what the screen shows.

Each row is `mark  A's text │ B's text`; only the visible lines are rendered
(`render_line`), never one widget per row. The cursor row is posted as
`DiffRows.Selected` so the screen fills its side panes.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

MARKS = {"equal": " ", "changed": "~", "only_a": "<", "only_b": ">"}
OP_STYLES = {"equal": Style(), "changed": Style(color="yellow"), "only_a": Style(color="red"),
             "only_b": Style(color="green")}
DIVERGENCE = Style(color="white", bgcolor="red", bold=True)
CURSOR = Style(reverse=True)
RULE = Style(dim=True)


@dataclass(frozen=True)
class Line:
    """One aligned row as text: its op (equal, changed, only_a, only_b) and each side's one-line text."""

    op: str
    left: str
    right: str


def _cell(text: str, width: int) -> str:
    if len(text) > width:
        return text[: max(0, width - 1)] + "…"
    return text.ljust(width)


class DiffRows(ScrollView, can_focus=True):
    """The aligned rows; `cursor` is the selected one, `marked` the divergence (or -1)."""

    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False, id="diff.up"),
        Binding("down,j", "move(1)", "Down", show=False, id="diff.down"),
        Binding("pageup", "move(-20)", show=False, id="diff.page-up"),
        Binding("pagedown", "move(20)", show=False, id="diff.page-down"),
        Binding("home", "go(0)", show=False, id="diff.home"),
        Binding("end", "go(-1)", show=False, id="diff.end"),
    ]

    cursor: reactive[int] = reactive(0, init=False)

    @dataclass
    class Selected(Message):
        """The cursor moved to row `index`."""

        index: int

    def __init__(self, lines: list[Line], marked: int = -1, **kwargs) -> None:
        super().__init__(**kwargs)
        self.lines = lines
        self.marked = marked

    def show(self, lines: list[Line], marked: int, cursor: int) -> None:
        """Another list (nodes or steps) in place of this one."""
        self.lines, self.marked = lines, marked
        self._size_rows()
        self.cursor = max(0, min(cursor, len(lines) - 1))
        self.refresh()

    def _size_rows(self) -> None:
        """One row a line, as wide as the pane (rows are cut with `…`, never scrolled sideways)."""
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.lines))

    def on_mount(self) -> None:
        self._size_rows()

    def on_resize(self) -> None:
        self._size_rows()

    def watch_cursor(self, old: int, new: int) -> None:
        self.scroll_to_region(Region(0, new, 1, 1), animate=False, immediate=True)
        self.refresh()
        self.post_message(self.Selected(new))

    def action_move(self, by: int) -> None:
        if self.lines:
            self.cursor = max(0, min(len(self.lines) - 1, self.cursor + by))

    def action_go(self, index: int) -> None:
        if self.lines:
            self.cursor = index % len(self.lines)

    def render_line(self, y: int) -> Strip:
        index = y + self.scroll_offset.y
        width = self.scrollable_content_region.width
        if index >= len(self.lines) or width < 8:
            return Strip.blank(width)
        line = self.lines[index]
        half = (width - 5) // 2
        mark = "!" if index == self.marked else MARKS.get(line.op, "?")
        style = OP_STYLES.get(line.op, Style())
        segments = [
            Segment(f"{mark} ", DIVERGENCE if index == self.marked else style),
            Segment(_cell(line.left, half), style),
            Segment(" │ ", RULE),
            Segment(_cell(line.right, width - half - 5), style),
        ]
        strip = Strip(segments, width)
        if index == self.cursor:
            strip = strip.apply_style(CURSOR)
        return strip
