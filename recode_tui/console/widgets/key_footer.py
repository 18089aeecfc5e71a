"""The footer of the debug screen, the prompt workspace and its comparison: every shown key of the focused
place in one row, drawn by one widget.

Why not Textual's `Footer`: it is a widget per key (17 on the debug screen), rebuilt
whenever the keys change (the focus entering or leaving the editor, a key greying
at a stop): each rebuild mounts and styles every key again, which was about a sixth
of a console boot's CPU, a third of an answer's and two fifths of opening the prompt
workspace. This draws the same row (the same keys in the same order, the same colours,
a greyed key dimmed, `^p palette` at the right edge) as one `Text`, redrawn only when
what it shows changes. A key is still a click target (a greyed one rings the bell, as Textual's does), with its
tooltip on hover, in a terminal and in the browser (textual-serve).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget


@dataclass(frozen=True)
class FooterEntry:
    """One key as the footer shows it: what to press, what it does, whether it can act now."""

    key: str  # the key `simulate_key` presses on a click
    key_display: str
    description: str
    action: str
    disabled: bool
    tooltip: str = ""


def footer_entries(screen: Screen) -> tuple[tuple[FooterEntry, ...], FooterEntry | None]:
    """The keys `screen` offers now, in binding order (one per action, hidden ones left out), and the
    command palette's key (None without a palette)."""
    app = screen.app
    active = screen.active_bindings
    keys: dict[str, FooterEntry] = {}
    for _, binding, enabled, tooltip in active.values():
        if binding.show and binding.action not in keys:
            keys[binding.action] = FooterEntry(binding.key, app.get_key_display(binding), binding.description,
                                               binding.action, not enabled, tooltip)
    palette = None
    if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
        _, binding, enabled, tooltip = active[app.COMMAND_PALETTE_BINDING]
        palette = FooterEntry(binding.key, app.get_key_display(binding), binding.description, binding.action,
                              not enabled, binding.tooltip or binding.description)
    return tuple(keys.values()), palette


class KeyFooter(Widget):
    """The focused place's keys in one row (see the module docstring); styles in recode.tcss."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"key-footer--key", "key-footer--description", "key-footer--divider", "key-footer--hover"}
    DEFAULT_CSS = "KeyFooter { dock: bottom; height: 1; padding-right: 1; }"  # the palette key's right padding

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._keys: tuple[FooterEntry, ...] = ()
        self._palette: FooterEntry | None = None
        self._spans: list[tuple[int, int, FooterEntry]] = []  # cells each key takes in the row drawn last
        self._hovered: FooterEntry | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        """Redraw only when the keys or their greying changed (most binding refreshes change neither)."""
        if not self.is_attached or screen is not self.screen:
            return
        keys, palette = footer_entries(screen)
        if (keys, palette) != (self._keys, self._palette):
            self._keys, self._palette = keys, palette
            self.refresh()

    def shown(self) -> list[FooterEntry]:
        """The keys drawn in the row now, whole or cut at the palette's edge (tests read it)."""
        return [entry for _, _, entry in self._spans]

    def render(self) -> Text:
        key_style = self.get_component_rich_style("key-footer--key")
        description_style = self.get_component_rich_style("key-footer--description")
        hover = Style(bgcolor=self.get_component_rich_style("key-footer--hover").bgcolor)
        dim = Style(dim=True)
        width = self.size.width  # inside the right padding
        palette = Text(no_wrap=True, end="")
        if self._palette is not None:  # Textual's palette key: compact, after a divider, one cell from the edge
            entry = self._palette
            palette.append("▏", self.get_component_rich_style("key-footer--divider"))
            palette.append(entry.key_display, key_style)
            palette.append(f" {entry.description}", description_style)
        row = Text(no_wrap=True, overflow="crop", end="")
        spans: list[tuple[int, int, FooterEntry]] = []
        room = max(0, width - palette.cell_len)
        for entry in self._keys:
            start = row.cell_len
            if start >= room:
                break
            row.append(f" {entry.key_display} ", key_style)
            if entry.description:
                row.append(f"{entry.description} ", description_style)
            extra = (dim if entry.disabled else Style()) + (hover if entry == self._hovered else Style())
            if extra:
                row.stylize(extra, start, row.cell_len)
            spans.append((start, min(row.cell_len, room), entry))
        row.truncate(room, pad=True)
        if self._palette is not None:
            spans.append((room, width + 1, self._palette))  # its right padding is part of it
            if self._palette == self._hovered:
                palette.stylize(hover, 1)
        self._spans = spans
        return Text.assemble(row, palette, no_wrap=True, end="")

    def entry_at(self, x: int) -> FooterEntry | None:
        return next((entry for start, end, entry in self._spans if start <= x < end), None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """A click on a key presses it; on a greyed key it rings the bell (Textual's footer does both)."""
        entry = self.entry_at(event.x)
        if entry is None:
            return
        if entry.disabled:
            self.app.bell()
        else:
            self.app.simulate_key(entry.key)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover(self.entry_at(event.x))

    def on_leave(self, event: events.Leave) -> None:
        self._hover(None)

    def _hover(self, entry: FooterEntry | None) -> None:
        if entry != self._hovered:
            self._hovered = entry
            self.tooltip = (entry.tooltip or None) if entry is not None else None
            self.refresh()


__all__ = ["FooterEntry", "KeyFooter", "footer_entries"]
