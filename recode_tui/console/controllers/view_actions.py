"""The console's view keys: a tab of the bottom pane, zoom a pane, swap the panes of a narrow terminal.

`PaneView` is a controller the debug screen holds: the state it changes is the
screen's own layout (the active tab, `Screen.maximized`, the `-data` class of
`#panes`, where the focus is), so it keeps a typed reference to that screen and
finds the panes by their classes; it changes nothing a pane shows.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import TabbedContent

from recode_tui.console.run.hosts import RunScreen
from recode_tui.console.widgets.agent_view import AgentViewPane
from recode_tui.console.widgets.code_tree import CodeTreeView
from recode_tui.console.widgets.env_log import EnvLog
from recode_tui.console.widgets.answer_editor import AnswerEditor
from recode_tui.console.widgets.observation_view import ObservationView
from recode_tui.console.widgets.variables import VariablesPane

VIEW_BINDINGS = [
    Binding("z,ctrl+t", "zoom", "Zoom", id="view.zoom", show=False,
            tooltip="Zoom the focused pane to the whole screen (ctrl+t also in the editor); again restores"),
    Binding("v", "swap_panes", "Panes", id="view.panes", show=False,
            tooltip="Below 100 columns: show the variables and log instead of the tree and node, or back"),
]


class PaneView:
    """Zoom (Textual's maximize) and the narrow layout's two pane pairs of one screen."""

    ZOOMABLE = ("code-tree", "detail", "vars", "env-log", "bottom")

    def __init__(self, screen: RunScreen) -> None:
        self.screen = screen

    def show_tab(self, tab: str) -> None:
        """`O`, `e`, `r`, `B`, `a`: a tab of the bottom pane, with the focus in it."""
        screen = self.screen
        if tab == "tab-agent" and not screen.query(AgentViewPane):
            screen.notify(f"{screen.engine.display_name} has no agent view: its tree is its state.",
                          severity="warning")
            return
        screen.query_one(TabbedContent).active = tab
        if tab == "tab-expand":
            for editor in screen.query(AnswerEditor):
                if editor.is_open:
                    editor.editor.focus()
        elif tab == "tab-breakpoints":
            for table in screen.query("#bp-table"):
                table.focus()
        elif tab == "tab-prompt":
            for area in screen.query("#prompt-text"):
                area.focus()
        elif tab == "tab-agent":
            screen.query_one(AgentViewPane).focus()
        elif tab == "tab-observation":
            screen.query_one(ObservationView).focus()

    def zoom(self) -> None:
        """Zoom the pane holding the focus, or restore the zoomed one."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
            return
        widget = screen.focused
        while widget is not None and widget.id not in self.ZOOMABLE:
            widget = widget.parent if isinstance(widget.parent, Widget) else None
        if widget is None:
            screen.notify("Focus a pane first (tab moves the focus).", severity="warning")
            return
        screen.maximized = widget

    def swap_panes(self) -> None:
        """Narrow terminals show two panes above the editor: tree and node, or variables and log."""
        screen = self.screen
        panes = screen.query_one("#panes")
        if not screen.has_class("-narrow"):
            screen.notify("Every pane is shown at this width; z zooms the focused one.")
            return
        panes.toggle_class("-data")
        variables = screen.query_one(VariablesPane)
        data = screen.query_one(EnvLog) if variables.has_class("-no-variables") else variables.query_one("#vars-table")
        target = data if panes.has_class("-data") else screen.query_one(CodeTreeView)
        screen.call_after_refresh(target.focus)
