"""The console's view keys: zoom a pane, swap the panes of a narrow terminal.

A mixin of `DebugScreen`, kept apart so the screen module stays about layout
and the engine's messages.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widget import Widget

from recode_tui.console.screen_host import DebugScreenHost

VIEW_BINDINGS = [
    Binding("z,ctrl+t", "zoom", "Zoom", id="view.zoom", show=False,
            tooltip="Zoom the focused pane to the whole screen (ctrl+t also in the editor); again restores"),
    Binding("v", "swap_panes", "Panes", id="view.panes", show=False,
            tooltip="Below 100 columns: show the variables and log instead of the tree and node, or back"),
]


class ViewActions(DebugScreenHost):
    """Actions over the debug screen's panes."""

    ZOOMABLE = ("code-tree", "detail", "vars", "env-log", "bottom")

    def action_zoom(self) -> None:
        """Zoom the pane holding the focus (Textual's maximize), or restore the zoomed one."""
        if self.maximized is not None:
            self.minimize()
            return
        widget = self.focused
        while widget is not None and getattr(widget, "id", None) not in self.ZOOMABLE:
            widget = widget.parent if isinstance(widget.parent, Widget) else None
        if widget is None:
            self.notify("Focus a pane first (tab moves the focus).", severity="warning")
            return
        self.maximized = widget

    def action_swap_panes(self) -> None:
        """Narrow terminals show two panes above the editor: tree and node, or variables and log."""
        panes = self.query_one("#panes")
        if not self.has_class("-narrow"):
            self.notify("Every pane is shown at this width; z zooms the focused one.")
            return
        panes.toggle_class("-data")
        variables = self.variables
        data = self.env_log if variables.has_class("-no-variables") else variables.query_one("#vars-table")
        target = data if panes.has_class("-data") else self.tree_view
        self.call_after_refresh(target.focus)
