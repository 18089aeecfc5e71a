"""Zooming the pane that holds the focus: one rule for the debug screen and the prompt workspace's screens."""

from __future__ import annotations

from typing import Iterable

from textual.screen import Screen
from textual.widget import Widget


def zoom_focused(screen: Screen, zoomable: Iterable[str]) -> None:
    """Zoom the pane holding the focus (the nearest of `zoomable`, by id), or restore the zoomed one:
    `z`/ctrl+t on the debug screen, ctrl+t in the prompt workspace and its comparison."""
    if screen.maximized is not None:
        screen.minimize()
        return
    ids = set(zoomable)
    widget = screen.focused
    while widget is not None and widget.id not in ids and not ids & set(widget.classes):
        widget = widget.parent if isinstance(widget.parent, Widget) else None
    if widget is None:
        screen.notify("Focus a pane first (tab moves the focus).", severity="warning")
        return
    screen.maximized = widget
