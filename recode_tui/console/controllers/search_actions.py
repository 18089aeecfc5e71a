"""The console's `/`: find text in the focused pane (code tree, environment log, prompt).

`PaneSearch` is a controller the debug screen holds, owning the one search under
way: the bar reports what was typed (its messages reach the screen, which hands
them here), `Search` finds the matches, the searched pane shows them.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input

from recode_tui.console.widgets.search import Search, Searchable
from recode_tui.console.widgets.agent_view import AgentViewPane
from recode_tui.console.widgets.code_tree import CodeTreeView
from recode_tui.console.widgets.env_log import EnvLog
from recode_tui.console.widgets.prompt_view import PromptView
from recode_tui.console.widgets.search_bar import SearchBar

SEARCH_BINDINGS = [
    Binding("slash", "search", "Find", id="search.find", show=False,
            tooltip="Find text in the focused pane: code tree, environment log or prompt (else the log)"),
]


class PaneSearch:
    """`/` and the search bar's messages on one screen; one search at a time."""

    def __init__(self, screen: Screen[None]) -> None:
        self.screen = screen
        self.search: Search | None = None
        self.focus_before: Widget | None = None  # where the focus goes back to when the search closes

    def searched_pane(self) -> Searchable:
        """The searchable pane holding the focus, else the environment log."""
        widget: Widget | None = self.screen.focused
        while widget is not None:
            if isinstance(widget, (CodeTreeView, EnvLog, PromptView, AgentViewPane)):
                return widget
            widget = widget.parent if isinstance(widget.parent, Widget) else None
        return self.screen.query_one(EnvLog)

    def open(self) -> None:
        pane = self.searched_pane()
        if self.search is not None:
            self.search.clear()
        self.search = Search(pane)
        focused = self.screen.focused
        if not isinstance(focused, Input) or focused.id != "search-input":
            self.focus_before = focused
        self.screen.query_one(SearchBar).open(pane.search_name)

    def query(self, message: SearchBar.Query) -> None:
        if self.search is not None:
            self.search.update(message.text)
            self.screen.query_one(SearchBar).show_result(self.search.summary())

    def step(self, message: SearchBar.Step) -> None:
        if self.search is not None:
            self.search.step(message.direction)
            self.screen.query_one(SearchBar).show_result(self.search.summary())

    def close(self, message: SearchBar.Closed) -> None:
        search, self.search = self.search, None
        if search is None:
            return
        search.clear()
        before, self.focus_before = self.focus_before, None
        if before is not None and before.is_attached:
            before.focus()
        elif isinstance(search.target, Widget) and search.target.is_attached:
            search.target.focus()
