"""Which widget of a pane takes the focus when a key brings the pane forward.

A tab's key (`O`, `e`, `r`, `B`, `a`) and the narrow layout's `v` move the focus into a
pane; the pane says which of its widgets gets it (the editor's text, the breakpoint
table, ...), so the view keys (controllers/view_actions.py) know no pane by its class.
"""

from __future__ import annotations

from typing import Iterable, Protocol, runtime_checkable


@runtime_checkable
class TakesFocus(Protocol):
    """A pane that puts the focus on its own widget when a key brings it forward."""

    def take_focus(self) -> bool:
        """Focus this pane's widget; False when it has none to focus now (no answer awaited, no variables)."""
        ...


def focus_first(widgets: Iterable[object]) -> None:
    """The first of `widgets` that is a pane able to take the focus now takes it."""
    for widget in widgets:
        if isinstance(widget, TakesFocus) and widget.take_focus():
            return

