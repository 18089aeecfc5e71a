"""The agent's own view (a bottom tab): its plan, its window, its turns or its cells.

The agent builds the content (`Stepper.view()`, plain data); this pane only
draws it, once per stop, and keeps the line the agent marked as current in
sight. An agent without a view (ReCode: its tree is its state) gets no tab.
Lines an agent shortened (a long observation's first line) open whole with
`enter`, and fold again with it.
"""

from __future__ import annotations

from typing import Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from agent.runtime.agent_view import AgentView
from recode_tui.console.widgets.search import Match

# How each kind of line the agent marks is drawn.
STYLES = {
    "current": "bold reverse",
    "heading": "bold",
    "added": "green",
    "removed": "red",
    "changed": "yellow",
    "cut": "italic magenta",
    "done": "green",
    "failed": "red",
    "muted": "dim",
}
EMPTY = "Nothing to show yet: the view appears at the first stop."


class AgentViewPane(VerticalScroll, can_focus=True):
    """One scrolling text of sections; `/` searches it like the log and the prompt."""

    search_name = "Agent view"
    BINDINGS = [Binding("enter", "toggle_whole", "Whole lines", id="agent-view.whole",
                        tooltip="Show the shortened lines (earlier observations) whole, or fold them again")]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.whole = False  # shortened lines shown whole (`enter`)
        self.shown_view: AgentView | None = None
        self.lines: list[str] = []  # the plain lines shown, for tests and search
        self._marks: list[str] = []
        self._found: set[int] = set()

    def compose(self) -> ComposeResult:
        yield Static(EMPTY, id="agent-view-text")

    def take_focus(self) -> bool:
        self.focus()
        return True

    def show(self, view: AgentView | None) -> bool:
        """Draw `view`; False (and nothing redrawn) when it is what is shown already."""
        if view == self.shown_view:
            return False
        self.shown_view = view
        lines: list[str] = []
        marks: list[str] = []
        for section in view.sections if view else ():
            if lines:
                lines.append("")
                marks.append("")
            lines.append(f"── {section.heading}")
            marks.append("section")
            for line in section.lines:
                for part in (line.full if self.whole and line.full else line.text).split("\n"):
                    lines.append(part)
                    marks.append(line.mark)
        self.lines, self._marks = lines, marks
        self._draw()
        current = next((i for i, mark in enumerate(marks) if mark == "current"), None)
        if current is not None:
            self.call_after_refresh(self._bring_into_view, current)
        return True

    def action_toggle_whole(self) -> None:
        """`enter`: every shortened line whole, or folded again; the view is redrawn at once."""
        self.whole = not self.whole
        view, self.shown_view = self.shown_view, None
        self.show(view)
        folded = sum(1 for section in view.sections for line in section.lines if line.full) if view else 0
        self.notify(f"{folded} shortened line(s) shown whole (enter folds them)" if self.whole
                    else "long lines folded (enter shows them whole)", timeout=2)

    def _draw(self) -> None:
        text = Text(no_wrap=False)
        for number, (line, mark) in enumerate(zip(self.lines, self._marks)):
            if number:
                text.append("\n")
            style = "bold underline" if mark == "section" else STYLES.get(mark, "")
            if number in self._found:
                style = f"{style} on dark_goldenrod".strip()
            text.append(line, style=style)
        self.query_one("#agent-view-text", Static).update(text if self.lines else EMPTY)

    def _row_of(self, index: int) -> int:
        """The screen row of line `index`, counting the rows wrapped lines above it take."""
        width = max(1, self.scrollable_content_region.width)
        return sum(max(1, -(-cell_len(line) // width)) for line in self.lines[:index])

    def _bring_into_view(self, index: int) -> None:
        row = self._row_of(index)
        height = max(1, self.scrollable_content_region.height)
        if not self.scroll_y <= row < self.scroll_y + height:
            self.scroll_to(y=max(0, row - 2), animate=False)

    # -- search (`/`) -------------------------------------------------------------------------

    def search_lines(self) -> Sequence[str]:
        return self.lines

    def search_origin(self) -> int:
        return 0

    def show_match(self, matches: Sequence[Match], current: Match | None) -> None:
        self._found = {m.line for m in matches}
        self._draw()
        if current is not None:
            self.call_after_refresh(self._bring_into_view, current.line)
