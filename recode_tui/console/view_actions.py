"""The console's view keys: zoom a pane, swap the panes of a narrow terminal.

A mixin of `DebugScreen`, kept apart so the screen module stays about layout
and the engine's messages.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widget import Widget

VIEW_BINDINGS = [
    Binding("z,ctrl+t", "zoom", "Zoom", id="view.zoom", show=False,
            tooltip="Zoom the focused pane to the whole screen (ctrl+t also in the editor); again restores"),
    Binding("v", "swap_panes", "Panes", id="view.panes", show=False,
            tooltip="Below 100 columns: show the variables and log instead of the tree and node, or back"),
]


class ViewActions:
    """Actions over the debug screen's panes."""

    ZOOMABLE = ("code-tree", "detail", "vars", "env-log", "bottom")
    maximized: Widget | None  # the Screen's own (a reactive); declared here for the type checker only

    def action_zoom(self) -> None:
        """Zoom the pane holding the focus (Textual's maximize), or restore the zoomed one."""
        if self.maximized is not None:
            self.minimize()  # type: ignore[attr-defined]
            return
        widget = self.focused  # type: ignore[attr-defined]
        while widget is not None and getattr(widget, "id", None) not in self.ZOOMABLE:
            widget = widget.parent
        if widget is None:
            self.notify("Focus a pane first (tab moves the focus).", severity="warning")  # type: ignore[attr-defined]
            return
        self.maximized = widget

    def action_swap_panes(self) -> None:
        """Narrow terminals show two panes above the editor: tree and node, or variables and log."""
        panes = self.query_one("#panes")  # type: ignore[attr-defined]
        if not self.has_class("-narrow"):  # type: ignore[attr-defined]
            self.notify("Every pane is shown at this width; z zooms the focused one.")  # type: ignore[attr-defined]
            return
        panes.toggle_class("-data")
        variables = self.variables  # type: ignore[attr-defined]
        data = self.env_log if variables.has_class("-no-variables") else variables.query_one("#vars-table")  # type: ignore[attr-defined]
        target = data if panes.has_class("-data") else self.tree_view  # type: ignore[attr-defined]
        self.call_after_refresh(target.focus)  # type: ignore[attr-defined]
