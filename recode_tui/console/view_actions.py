"""The console's view keys: zoom a pane, swap the panes of a narrow terminal, and the
command palette's list of the console's own actions.

A mixin of `RecodeApp`, kept apart so the app module stays about layout and
the engine's messages.
"""

from __future__ import annotations

from typing import Iterable

from textual.app import SystemCommand
from textual.binding import Binding
from textual.screen import Screen

VIEW_BINDINGS = [
    Binding("z,ctrl+t", "zoom", "Zoom", id="view.zoom", show=False,
            tooltip="Zoom the focused pane to the whole screen (ctrl+t also in the editor); again restores"),
    Binding("v", "swap_panes", "Panes", id="view.panes", show=False,
            tooltip="Below 100 columns: show the variables and log instead of the tree and node, or back"),
]


class ViewActions:
    """Actions over the app's screen, panes and bindings."""

    ZOOMABLE = ("code-tree", "detail", "vars", "env-log", "bottom")

    def action_zoom(self) -> None:
        """Zoom the pane holding the focus (Textual's maximize), or restore the zoomed one."""
        screen = self.screen  # type: ignore[attr-defined]
        if screen.maximized is not None:
            screen.minimize()
            return
        widget = self.focused  # type: ignore[attr-defined]
        while widget is not None and getattr(widget, "id", None) not in self.ZOOMABLE:
            widget = widget.parent  # type: ignore[assignment]
        if widget is None:
            self.notify("Focus a pane first (tab moves the focus).", severity="warning")  # type: ignore[attr-defined]
            return
        screen.maximized = widget  # type: ignore[assignment]

    def action_swap_panes(self) -> None:
        """Narrow terminals show two panes above the editor: tree and node, or variables and log."""
        panes = self.query_one("#panes")  # type: ignore[attr-defined]
        if not self.screen.has_class("-narrow"):  # type: ignore[attr-defined]
            self.notify("Every pane is shown at this width; z zooms the focused one.")  # type: ignore[attr-defined]
            return
        panes.toggle_class("-data")
        app = self  # a RecodeApp
        target = app.variables.query_one("#vars-table") if panes.has_class("-data") else app.tree_view  # type: ignore[attr-defined]
        self.call_after_refresh(target.focus)  # type: ignore[attr-defined]

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """ctrl+p lists the console's own actions (from its bindings) before Textual's."""
        from recode_tui.console.palette import binding_commands

        if screen is self.screen_stack[0]:  # type: ignore[attr-defined]
            yield from binding_commands(self, self.BINDINGS, self.user_keymap)  # type: ignore[attr-defined]
        for command in super().get_system_commands(screen):  # type: ignore[attr-defined]
            if command.title not in ("Maximize", "Minimize"):  # `z` zooms (a whole pane)
                yield command
