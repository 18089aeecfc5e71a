"""The console's `/`: find text in the focused pane (code tree, environment log, prompt).

`PaneSearch` is a controller the debug screen holds, owning the one search under
way: the bar reports what was typed (its messages reach the screen, which hands
them here), `Search` finds the matches, the searched pane shows them. A pane is
searched when it is `Searchable`; which pane is searched when the focus is in none,
and the bar to type in, the screen says (`SearchScreen`).
"""

from __future__ import annotations

from typing import Protocol

from textual.binding import Binding
from textual.widget import Widget

from recode_tui.console.widgets.search import Search, Searchable, SearchPrompt

SEARCH_BINDINGS = [
    Binding("slash", "search", "Find", id="search.find", show=False,
            tooltip="Find text in the focused pane: code tree, environment log or prompt (else the log)"),
]


class SearchScreen(Protocol):
    """What the search needs of the screen holding it (`DebugScreen`)."""

    @property
    def focused(self) -> Widget | None: ...

    @property
    def search_bar(self) -> SearchPrompt: ...

    @property
    def default_searchable(self) -> Searchable:
        """The pane searched when the focus is in no searchable one."""
        ...


class PaneSearch:
    """`/` and the search bar's messages on one screen; one search at a time."""

    def __init__(self, screen: SearchScreen) -> None:
        self.screen = screen
        self.search: Search | None = None
        self.focus_before: Widget | None = None  # where the focus goes back to when the search closes

    def searched_pane(self) -> Searchable:
        """The searchable pane holding the focus, else the screen's default (the environment log)."""
        widget: Widget | None = self.screen.focused
        while widget is not None:
            if isinstance(widget, Searchable):
                return widget
            widget = widget.parent if isinstance(widget.parent, Widget) else None
        return self.screen.default_searchable

    def open(self) -> None:
        pane = self.searched_pane()
        if self.search is not None:
            self.search.clear()
        self.search = Search(pane)
        bar = self.screen.search_bar
        if not bar.has_focus_within:  # `/` again from the bar keeps where the focus goes back to
            self.focus_before = self.screen.focused
        bar.open(pane.search_name)

    def query(self, text: str) -> None:
        if self.search is not None:
            self.search.update(text)
            self.screen.search_bar.show_result(self.search.summary())

    def step(self, direction: int) -> None:
        if self.search is not None:
            self.search.step(direction)
            self.screen.search_bar.show_result(self.search.summary())

    def close(self) -> None:
        search, self.search = self.search, None
        if search is None:
            return
        search.clear()
        before, self.focus_before = self.focus_before, None
        if before is not None and before.is_attached:
            before.focus()
        elif isinstance(search.target, Widget) and search.target.is_attached:
            search.target.focus()
