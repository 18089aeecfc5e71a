"""The key line of a narrow terminal: the keys that matter where the focus is, each one whole.

Textual's footer lists every shown binding in one row and cuts the row at the
screen's edge (`^s Subm` at 80 columns), and in the editor it offers `esc Pause`
where Esc leaves the editor. Below the narrow width every screen with keys of its
own (the debug screen, the prompt workspace, the comparison) hides it and
shows this line instead: short labels, the keys of the focused place (the editor's
own keys while typing), the less needed ones left out first, `?` (all keys) always.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from rich.text import Text
from textual.widget import Widget


@dataclass(frozen=True)
class Key:
    """One entry: the keys to show, a short label, the action it greys with, and its rank (0 kept longest)."""

    keys: str
    label: str
    action: str = ""
    rank: int = 1


# Over the panes: stepping, the views, zoom, quit; `?` lists the rest (and this line's dropped ones).
PANE_KEYS = (
    Key("?", "keys", rank=0),
    Key("n s o u c", "step", "step", rank=0),
    Key("p", "pause", rank=3),
    Key("^s", "submit", "submit", rank=2),
    Key("b", "break", rank=4),
    Key("O", "obs", rank=2),  # the tab bar names it too ("O Observation")
    Key("e", "edit"),
    Key("r", "prompt"),
    Key("a", "agent", "agent"),
    Key("v", "panes"),
    Key("z ^t", "zoom"),
    Key("f2", "peek", rank=4),
    Key("q", "quit", rank=0),
)

# In the editor, printable keys type text: its own keys only.
EDITOR_KEYS = (
    Key("^s", "submit", "submit", rank=0),
    Key("esc", "leave editor", rank=0),
    Key("^t", "zoom", rank=0),
    Key("f2", "peek obs", rank=1),
    Key("^r", "reset", rank=2),
    Key("^a", "select all", rank=3),
    Key("f1", "all keys", rank=0),
)

# The prompt workspace (W): every key it has, as it is the whole screen's keys.
WORKSPACE_KEYS = (
    Key("^r", "re-expand", rank=0),
    Key("^o", "save set", rank=0),
    Key("^t", "zoom", rank=0),
    Key("tab", "next pane", rank=2),
    Key("esc", "back", rank=0),
    Key("f1", "all keys", rank=1),
)

# The diff of two runs (`D`, `tui --diff`).
DIFF_KEYS = (
    Key("n p", "next/prev diff", rank=0),
    Key("d", "divergence", rank=0),
    Key("t", "nodes/steps", rank=1),
    Key("esc", "back", rank=0),
)

# Two evaluations side by side: the episodes.
EVAL_DIFF_KEYS = (
    Key("↑↓", "episode", rank=1),
    Key("enter", "open its diff", rank=0),
    Key("esc", "quit", rank=0),
)

SEPARATOR = "  "


def compare_keys(columns: int, person: bool) -> tuple[Key, ...]:
    """The comparison screen's keys: an F-key per answer column, ctrl+s for a person's column."""
    choose = "f1" if columns == 1 else f"f1..f{columns}"
    return (
        Key(choose, "use that answer", rank=0),
        *((Key("^s", "submit typed", rank=0),) if person else ()),
        Key("^t", "zoom", rank=1),
        Key("tab", "next column", rank=2),
        Key("esc", "back", rank=0),
    )


def fitted(keys: tuple[Key, ...], width: int) -> list[Key]:
    """The keys that fit `width` in their order, the highest ranks dropped first."""
    chosen = list(keys)

    def size(items: list[Key]) -> int:
        return sum(len(k.keys) + 1 + len(k.label) for k in items) + len(SEPARATOR) * max(0, len(items) - 1)

    for rank in sorted({k.rank for k in keys if k.rank > 0}, reverse=True):
        if size(chosen) <= width:
            break
        chosen = [k for k in chosen if k.rank != rank]
    return chosen


class KeyLine(Widget):
    """One row of keys; `update` says where the focus is and which actions can act now."""

    COMPONENT_CLASSES = {"key-line--key", "key-line--label", "key-line--disabled"}
    DEFAULT_CSS = "KeyLine { height: 1; }"

    def __init__(self, keys: tuple[Key, ...] | None = None, **kwargs) -> None:
        """`keys`: a screen's own keys, always the same (the debug screen's follow the focus)."""
        super().__init__(**kwargs)
        self.keys = keys
        self.in_editor = False
        self.enabled: Callable[[str], bool] = lambda action: True
        self.has_agent_view = True

    def update(self, *, in_editor: bool, enabled: Callable[[str], bool], has_agent_view: bool) -> None:
        self.in_editor, self.enabled, self.has_agent_view = in_editor, enabled, has_agent_view
        self.refresh()

    def shown(self) -> list[Key]:
        """The keys the line shows now (tests read it)."""
        keys = self.keys if self.keys is not None else EDITOR_KEYS if self.in_editor else tuple(
            k for k in PANE_KEYS if k.action != "agent" or self.has_agent_view)
        return fitted(keys, self.size.width or 80)

    def render(self) -> Text:
        key_style = self.get_component_rich_style("key-line--key")
        label_style = self.get_component_rich_style("key-line--label")
        disabled = self.get_component_rich_style("key-line--disabled")
        line = Text(no_wrap=True, overflow="crop")
        for n, key in enumerate(self.shown()):
            if n:
                line.append(SEPARATOR)
            off = bool(key.action) and key.action != "agent" and not self.enabled(key.action)
            line.append(key.keys, disabled if off else key_style)
            line.append(" " + key.label, disabled if off else label_style)
        return line


__all__ = ["DIFF_KEYS", "EDITOR_KEYS", "EVAL_DIFF_KEYS", "KeyLine", "PANE_KEYS", "WORKSPACE_KEYS", "compare_keys",
           "fitted"]
