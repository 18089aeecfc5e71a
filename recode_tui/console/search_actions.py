"""The console's `/`: find text in the focused pane (code tree, environment log, prompt).

A mixin of `DebugScreen` (like `SessionActions`): the bar reports what was typed,
`Search` finds the matches, the searched pane shows them.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Input

from recode_tui.console.screen_host import DebugScreenHost
from recode_tui.console.search import Search, Searchable
from recode_tui.console.widgets.agent_view import AgentViewPane
from recode_tui.console.widgets.code_tree import CodeTreeView
from recode_tui.console.widgets.env_log import EnvLog
from recode_tui.console.widgets.prompt_view import PromptView
from recode_tui.console.widgets.search_bar import SearchBar

SEARCH_BINDINGS = [
    Binding("slash", "search", "Find", id="search.find", show=False,
            tooltip="Find text in the focused pane: code tree, environment log or prompt (else the log)"),
]


class SearchActions(DebugScreenHost):
    """`/` and the search bar's messages; one search at a time."""

    _search: Search | None = None
    _focus_before: Widget | None = None  # where the focus goes back to when the search closes

    def _searched_pane(self) -> Searchable:
        """The searchable pane holding the focus, else the environment log."""
        widget: Widget | None = self.focused
        while widget is not None:
            if isinstance(widget, (CodeTreeView, EnvLog, PromptView, AgentViewPane)):
                return widget
            widget = widget.parent if isinstance(widget.parent, Widget) else None
        return self.query_one(EnvLog)

    def action_search(self) -> None:
        pane = self._searched_pane()
        if self._search is not None:
            self._search.clear()
        self._search = Search(pane)
        focused = self.focused
        if not isinstance(focused, Input) or focused.id != "search-input":
            self._focus_before = focused
        self.query_one(SearchBar).open(pane.search_name)

    def on_search_bar_query(self, message: SearchBar.Query) -> None:
        if self._search is not None:
            self._search.update(message.text)
            self.query_one(SearchBar).show_result(self._search.summary())

    def on_search_bar_step(self, message: SearchBar.Step) -> None:
        if self._search is not None:
            self._search.step(message.direction)
            self.query_one(SearchBar).show_result(self._search.summary())

    def on_search_bar_closed(self, message: SearchBar.Closed) -> None:
        search, self._search = self._search, None
        if search is None:
            return
        search.clear()
        before, self._focus_before = self._focus_before, None
        if before is not None and before.is_attached:
            before.focus()
        elif isinstance(search.target, Widget) and search.target.is_attached:
            search.target.focus()
