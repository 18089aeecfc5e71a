"""The console's view keys: a tab of the bottom pane, zoom a pane, swap the panes of a narrow terminal.

`PaneView` is a controller the debug screen holds: the state it changes is the
screen's own layout (the active tab, `Screen.maximized`, the `-data` class of
`#panes`), so it keeps a typed reference to that screen and names the parts of
the layout by their ids (recode.tcss). Which widget of a pane then takes the
focus the pane says itself (`TakesFocus`); it changes nothing a pane shows.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import TabbedContent

from recode_tui.console.run.hosts import RunScreen
from recode_tui.console.support.zoom import zoom_focused
from recode_tui.console.widgets.pane_focus import focus_first

VIEW_BINDINGS = [
    Binding("z,ctrl+t", "zoom", "Zoom", id="view.zoom", show=False,
            tooltip="Zoom the focused pane to the whole screen (ctrl+t also in the editor); again restores"),
    Binding("v", "swap_panes", "Panes", id="view.panes", show=False,
            tooltip="Below 100 columns: show the variables and log instead of the tree and node, or back"),
    # Function keys: they type nothing, so they act from the editor too (priority: before the editor sees them).
    Binding("f2", "peek", "Peek", id="view.peek", show=False, priority=True,
            tooltip="The observation at hand in the panes' place, the focus left where it is (the editor); again: back"),
    Binding("f3", "peek_more", "Peek more", id="view.peek-more", show=False, priority=True,
            tooltip="While peeking: the next page of the observation (from the top again at its end)"),
]


class PaneView:
    """Zoom (Textual's maximize) and the narrow layout's two pane pairs of one screen."""

    ZOOMABLE = ("code-tree", "detail", "vars", "env-log", "bottom")
    # the narrow layout's two pairs, in the order their panes take the focus (the variables: unless it has none)
    CODE_PANES = ("#code-tree",)
    DATA_PANES = ("#vars", "#env-log")

    def __init__(self, screen: RunScreen) -> None:
        self.screen = screen

    def show_tab(self, tab: str) -> None:
        """`O`, `e`, `r`, `B`, `a`: a tab of the bottom pane, with the focus in it."""
        screen = self.screen
        tabs = screen.query_one(TabbedContent)
        if not tabs.query(f"TabPane#{tab}"):  # only the agent's own view may be missing
            screen.notify(f"{screen.agent.traits.display_name} has no agent view: its tree is its state.",
                          severity="warning")
            return
        tabs.active = tab
        focus_first(tabs.get_pane(tab).walk_children())

    def peek(self) -> None:
        """`f2`: the observation at hand where the panes are (class `-peek`, recode.tcss), or the panes back.
        The focus stays: a person answering reads the observation while the editor keeps the keys."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
        screen.toggle_class("-peek")
        if screen.has_class("-peek"):
            screen.query_one("#peek").scroll_home(animate=False)

    def peek_more(self) -> None:
        """`f3`: the peek's next page; from its start once the end is shown."""
        screen = self.screen
        if not screen.has_class("-peek"):
            self.peek()
            return
        peek = screen.query_one("#peek")
        if peek.scroll_y >= peek.max_scroll_y:
            peek.scroll_home(animate=False)
        else:
            peek.scroll_page_down(animate=False)

    def zoom(self) -> None:
        """Zoom the pane holding the focus, or restore the zoomed one."""
        zoom_focused(self.screen, self.ZOOMABLE)

    def swap_panes(self) -> None:
        """Narrow terminals show two panes above the editor: tree and node, or variables and log."""
        screen = self.screen
        panes = screen.query_one("#panes")
        if not screen.has_class("-narrow"):
            screen.notify("Every pane is shown at this width; z zooms the focused one.")
            return
        panes.toggle_class("-data")
        shown = self.DATA_PANES if panes.has_class("-data") else self.CODE_PANES
        candidates = [pane for selector in shown for pane in screen.query(selector)]
        screen.call_after_refresh(focus_first, candidates)
