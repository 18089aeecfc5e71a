"""The breakpoint list: enable/disable, hit counts, conditions; add one by typing its spec."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widgets import DataTable, Input, Static

from agent.runtime.breakpoints import parse_breakpoint
from agent.runtime.debugger import Debugger

ADD_HINT = ("add: stub NAME|RE · depth N · action RE · obs RE · error · invalid · every-stub · changes EXPR · "
            "note replan|re-injection  [if COND]")


class BreakpointsPane(Vertical):
    BINDINGS = [
        Binding("space", "toggle_enabled", "Enable/disable", id="breakpoints.toggle"),
        Binding("x,delete", "remove", "Remove", id="breakpoints.remove"),
        Binding("a", "add", "Add", id="breakpoints.add"),
    ]

    @dataclass
    class Changed(Message):
        """The breakpoint list changed (added, removed, toggled)."""

    def __init__(self, debugger: Debugger, **kwargs) -> None:
        super().__init__(**kwargs)
        self.debugger = debugger

    def compose(self) -> ComposeResult:
        yield DataTable(id="bp-table", cursor_type="row")
        yield Input(placeholder="e.g. action take .* if len(seen) > 2   (enter adds it; every form below)", id="bp-input")
        yield Static(ADD_HINT, id="bp-hint", markup=False)  # every form, wrapped: a one-line placeholder would cut it

    def take_focus(self) -> bool:
        """`B`: the list takes the focus, not the add box."""
        self.query_one("#bp-table", DataTable).focus()
        return True

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label, key in (("#", "number"), ("on", "on"), ("breakpoint", "what"), ("condition", "cond"), ("hits", "hits")):
            table.add_column(label, key=key)
        self.refresh_rows()

    def refresh_rows(self, highlight: int | None = None, select: int | None = None) -> None:
        """Redraw the rows, `highlight` (the one that just hit) in bold red.

        The cursor stays on the breakpoint the person put it on (or `select`): a
        hit only colours its row, so `x` never removes another one than chosen.
        """
        table = self.query_one(DataTable)
        keep = table.cursor_row
        chosen = self._selected() if select is None else select
        table.clear()
        for bp in self.debugger.breakpoints:
            hit = bp.number == highlight
            table.add_row(
                Text(str(bp.number), style="bold red" if hit else ""),
                Text("●" if bp.enabled else "○", style="bold red" if bp.enabled else "dim"),
                Text(bp.describe(), style="bold" if hit else ("" if bp.enabled else "dim")),
                bp.condition or "",
                str(bp.hit_count),
                key=str(bp.number),
            )
        index = next((i for i, b in enumerate(self.debugger.breakpoints) if b.number == chosen), None)
        if index is not None:
            table.move_cursor(row=index)
        elif table.row_count:  # the chosen one was removed: the row that took its place
            table.move_cursor(row=min(keep, table.row_count - 1))

    def _selected(self) -> int | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        try:
            key = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value
        except Exception:  # noqa: BLE001 - no row under the cursor
            return None
        return int(key) if key else None

    def action_toggle_enabled(self) -> None:
        """Not `action_toggle`: that name is Textual's own action (toggle an attribute), with another signature."""
        number = self._selected()
        if number is not None:
            self.debugger.toggle_breakpoint(number)
            self.refresh_rows()
            self.post_message(self.Changed())

    def action_remove(self) -> None:
        number = self._selected()
        if number is not None:
            self.debugger.remove_breakpoint(number)
            self.refresh_rows()
            self.post_message(self.Changed())

    def action_add(self) -> None:
        self.query_one(Input).focus()

    def add_spec(self, spec: str) -> bool:
        try:
            bp = self.debugger.add(parse_breakpoint(spec))
        except ValueError as exc:
            self.app.notify(str(exc), title="Breakpoint not added", severity="error")
            return False
        self.refresh_rows(select=bp.number)
        self.query_one(DataTable).focus()  # back to the list: the next `a` adds again, not types an a
        self.app.notify(f"breakpoint {bp.number}: {bp.describe()}", title="Breakpoint added")
        self.post_message(self.Changed())
        return True

    def on_key(self, event: events.Key) -> None:
        """Esc in the add box goes back to the list (and does not pause the run)."""
        if event.key == "escape" and self.query_one(Input).has_focus:
            event.stop()
            event.prevent_default()
            self.query_one(DataTable).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip() and self.add_spec(event.value):
            event.input.value = ""
