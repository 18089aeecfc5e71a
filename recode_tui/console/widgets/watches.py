"""Watch expressions: Python expressions re-evaluated in the namespace at every stop (pdb's `display`).

The list sits above the variables and is hidden while empty. Values are
computed by the run's code runner (the sandbox worker by default), in a worker
of this widget, so a slow expression never holds up the stop or the keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Awaitable, Callable

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widgets import DataTable

Evaluate = Callable[[str], Awaitable[tuple[str, str]]]

EXPRESSION_WIDTH = 26
TYPE_WIDTH = 12


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


class WatchList(DataTable):
    """One row per watch: the expression, its type and its value now (or the error it raised)."""

    BINDINGS = [
        Binding("x,delete", "remove", "Remove watch", id="watches.remove"),
        Binding("b", "break_on_change", "Break on change", id="watches.break",
                tooltip="A `changes` breakpoint on the selected watch (again: remove it)"),
    ]

    @dataclass
    class Changed(Message):
        """A watch was added or removed; `expressions` are the watches now."""

        expressions: tuple[str, ...]

    @dataclass
    class BreakOnChange(Message):
        """The person wants the run to stop when this watch's value changes."""

        expression: str

    def __init__(self, expressions: list[str] | None = None, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)
        self.expressions: list[str] = list(expressions or [])
        self.breaking: set[str] = set()  # expressions an enabled `changes` breakpoint stops on
        self.values: dict[str, tuple[str, str, bool]] = {}  # expression -> (type, value or error, failed)
        self._at_last_stop: dict[str, tuple[str, str]] = {}  # expression -> (type, value) at the stop before
        self.changed: set[str] = set()  # watches whose value differs from the stop before

    def on_mount(self) -> None:
        self.display = bool(self.expressions)

    def on_resize(self) -> None:
        self.show_rows()

    def show_rows(self) -> None:
        """Lay the rows out again, cut to the pane's width (a handful of rows: cheap)."""
        cursor = self.cursor_row
        self.clear(columns=True)
        room = (self.size.width or 40) - 2 * 3 - 1  # one cell of padding each side of three columns
        types = [self.values.get(e, ("", "", False))[0] for e in self.expressions]
        type_width = min(TYPE_WIDTH, max([4, *map(len, types)]))
        longest = max((len(e) + 2 * (e in self.breaking) for e in self.expressions), default=10)
        expression_width = max(6, min(max(longest, len("expression")), EXPRESSION_WIDTH, int(room * 0.4)))
        value_width = max(6, room - expression_width - type_width)
        self.add_column("expression", key="expr", width=expression_width)
        self.add_column("type", key="type", width=type_width)
        self.add_column("value", key="value", width=value_width)
        for expression in self.expressions:
            kind, value, failed = self.values.get(expression, ("", "…", False))
            style = "red" if failed else ("bold yellow" if expression in self.changed else "")
            label = Text(_cut(expression, expression_width), style="bold")
            if expression in self.breaking:  # a `changes` breakpoint watches it too
                label = Text.assemble(("● ", "bold red"), _cut(expression, expression_width - 2), style="bold")
            self.add_row(
                label,
                Text(_cut(kind, type_width), style="red" if failed else "cyan"),
                Text(_cut(value, value_width), style=style or ("dim" if expression not in self.values else "")),
                key=expression,
            )
        if self.row_count:
            self.move_cursor(row=min(cursor, self.row_count - 1))
        self.display = bool(self.expressions)

    def show_breaking(self, expressions: set[str]) -> None:
        """Mark the watches whose value changing stops the run."""
        if expressions != self.breaking:
            self.breaking = set(expressions)
            self.show_rows()

    def add(self, expression: str) -> bool:
        """Watch one more expression; False when it is already watched."""
        expression = expression.strip()
        if not expression or expression in self.expressions:
            return False
        self.expressions.append(expression)
        self.show_rows()
        self.post_message(self.Changed(tuple(self.expressions)))
        return True

    def _selected(self) -> str | None:
        if not self.row_count:
            return None
        return self.coordinate_to_cell_key(Coordinate(self.cursor_row, 0)).row_key.value

    def action_break_on_change(self) -> None:
        expression = self._selected()
        if expression:
            self.post_message(self.BreakOnChange(expression))

    def action_remove(self) -> None:
        key = self._selected()
        if key is None:
            return
        if key in self.expressions:
            self.expressions.remove(key)
            self.values.pop(key, None)
        self.show_rows()
        self.post_message(self.Changed(tuple(self.expressions)))

    @work(group="watches", exclusive=True)
    async def evaluate_all(self, evaluate: Evaluate, new_stop: bool = True) -> None:
        """Recompute every watch, one after another, against the namespace as it is now.

        At a new stop, a value that differs from the previous stop's is marked
        (like a changed variable); a watch added or removed marks nothing new.
        """
        if new_stop:
            self._at_last_stop = {e: v[:2] for e, v in self.values.items()}
        for expression in list(self.expressions):
            try:
                kind, value = await evaluate(expression)
                result = (kind, value, False)
            except Exception as exc:  # noqa: BLE001 - the error is the watch's value
                text = str(exc).strip()
                result = ("error", text.splitlines()[0] if text else type(exc).__name__, True)
            if expression in self.expressions:  # not removed meanwhile
                self.values[expression] = result
        self.changed = {
            e for e in self.expressions
            if e in self._at_last_stop and e in self.values and self.values[e][:2] != self._at_last_stop[e]
        }
        self.show_rows()
