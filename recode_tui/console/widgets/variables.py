"""The executor namespace: one row per variable, changed rows marked, full value on select."""

from __future__ import annotations

from typing import Awaitable, Callable, Iterable

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Static

from agent.runtime import events as ev
from agent.runtime.varlist import VariableSummary
from recode_tui.console.support.textual_compat import FreshWidthsDataTable
from recode_tui.console.widgets.watches import WatchList
from recode_tui.setup.shown import shown

NAME_WIDTH = 18
TYPE_WIDTH = 12
VALUE_AT_LEAST = 12  # a narrow pane cuts the type and the name before a value gets fewer columns
FULL_VALUE_SHOWN = 20_000  # characters of a full value rendered in the viewer (wrapping costs)

NEW_MARK = Text("+", style="bold green")
CHANGED_MARK = Text("●", style="bold yellow")
SHELL_MARK = Text("!", style="bold magenta")  # changed by a line typed at the stop (`!`)
NO_MARK = Text(" ")


def _cut(text: str, width: int) -> str:
    if width <= 1:
        return ""
    return text if len(text) <= width else text[: width - 1] + "…"


class VariablesTable(FreshWidthsDataTable):
    """The variables' table; says when its width changes, so the pane fits the values to it again
    (the pane's own resize comes before the table has its new width)."""

    class Resized(Message):
        pass

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized())


class VariablesPane(Vertical):
    """Watch expressions (when there are any), a table of variables, and the full value of the highlighted one.

    An agent that keeps no variables (ReAct, Plan-and-Execute, ReCAP) gives a `note` saying what it
    keeps instead; while its namespace is empty the note stands in for the empty table
    (the pane has the class `-no-variables`, recode.tcss).
    """

    def __init__(self, fetch_full: Callable[[str], Awaitable[str]], watches: list[str] | None = None,
                 note: str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self.fetch_full = fetch_full
        self.note = note
        self._watches = list(watches or [])  # the expressions the watch list starts with
        self.values: dict[str, VariableSummary] = {}
        self.marks: dict[str, str] = {}  # name -> "new" | "changed" since the previous stop
        self._snapshot: dict[str, VariableSummary] = {}
        self._selected: str | None = None
        self.full_text = ""  # what the value viewer shows
        self._shown: dict[str, tuple] = {}  # the cells on screen, per row
        self._choices: list[str] = []  # the environment's choices on show (none at first: the line is empty)

    def compose(self) -> ComposeResult:
        yield WatchList(self._watches, id="watches")
        table: DataTable = VariablesTable(id="vars-table", cursor_type="row", zebra_stripes=False)
        table.border_title = "Variables"
        yield table
        yield Static(self.note, id="vars-note")
        choices = Static("", id="env-choices", markup=False)
        choices.border_title = "Page actions"
        yield choices
        yield Static("", id="var-value-title")
        with VerticalScroll(id="var-value-box"):
            yield Static("", id="var-value", markup=False)

    @property
    def watches(self) -> WatchList:
        return self.query_one(WatchList)

    def take_focus(self) -> bool:
        """The table takes the focus; while the note stands in for it (no variables) the pane takes none."""
        if self.has_class("-no-variables"):
            return False
        self.query_one("#vars-table", DataTable).focus()
        return True

    def on_mount(self) -> None:
        table = self.query_one("#vars-table", DataTable)
        table.add_column(" ", key="mark", width=1)
        table.add_column("name", key="name")
        table.add_column("type", key="type")
        table.add_column("value", key="value")
        self.show_note()

    def show_note(self) -> None:
        """The note in place of the table while an agent that keeps no variables has none."""
        self.set_class(bool(self.note) and not self.values, "-no-variables")

    def show_choices(self, choices: list[str]) -> None:
        """What the environment accepts now (a WebShop page's search bar or clickables), one a line;
        hidden when the environment says nothing (class `-choices`, recode.tcss). Unchanged choices (most
        stops) redraw nothing: an update lays the screen out again."""
        if choices == self._choices:
            return
        self._choices = list(choices)
        self.query_one("#env-choices", Static).update(shown("\n".join(choices), newlines=True))  # click[buy now]: text
        self.set_class(bool(choices), "-choices")

    # -- updates ---------------------------------------------------------------

    def _widths(self) -> tuple[int, int, int]:
        """(name, type, value) widths that fill the table's width and no more: the other columns at
        their widths (at least their labels'), less a cell's padding on each side of all four, the mark
        and the scrollbar. A narrow pane narrows the type, then the name, before a value gets few columns."""
        table = self.query_one("#vars-table", DataTable)
        room = (table.size.width or 60) - 1 - 2 * 4 - 1
        name_w = max(4, min(max((len(n) for n in self.values), default=4), NAME_WIDTH))
        type_w = max(4, min(max((len(v.type) for v in self.values.values()), default=4), TYPE_WIDTH))
        short = VALUE_AT_LEAST - (room - name_w - type_w)
        if short > 0:
            cut = min(short, type_w - 4)
            type_w, short = type_w - cut, short - cut
            name_w -= max(0, min(short, name_w - 6))
        return name_w, type_w, max(4, room - name_w - type_w)

    def _row(self, summary: VariableSummary) -> tuple[Text, Text, Text, Text]:
        mark = self.marks.get(summary.name)
        marker = {"new": NEW_MARK, "changed": CHANGED_MARK, "shell": SHELL_MARK}.get(mark or "", NO_MARK)
        name_style = "bold yellow" if mark else "bold"
        name_w, type_w, value_w = self._widths()
        return (
            marker,
            shown(_cut(summary.name, name_w), name_style),  # names, types and values are data: never markup
            shown(_cut(summary.type, type_w), "cyan"),
            shown(_cut(summary.summary, value_w)),
        )

    def _put(self, summary: VariableSummary) -> None:
        table = self.query_one("#vars-table", DataTable)
        row = self._row(summary)
        if summary.name in table.rows:
            shown = self._shown.get(summary.name)
            for index, (key, value) in enumerate(zip(("mark", "name", "type", "value"), row)):
                # (Text's == ignores the style it was made with: a name's mark colour going is a change too)
                if shown is None or shown[index] != value or shown[index].style != value.style:  # the column re-fits
                    table.update_cell(summary.name, key, value, update_width=True)
        else:
            table.add_row(*row, key=summary.name)
        self._shown[summary.name] = row

    def apply(self, events: Iterable[ev.Event]) -> None:
        """Show the changes of a batch of events (while a command runs)."""
        for event in events:
            if not isinstance(event, (ev.VariablesChanged, ev.StatementRun)):
                continue
            shell = isinstance(event, ev.StatementRun)
            for change in event.changes:
                if change.change == "removed":
                    self._remove(change.name)
                    continue
                if shell:
                    self.marks[change.name] = "shell"
                else:
                    self.marks[change.name] = "new" if change.name not in self._snapshot else "changed"
                summary = VariableSummary(change.name, change.type, change.summary)
                self.values[change.name] = summary
                self._put(summary)
        self.show_note()

    def _remove(self, name: str) -> None:
        table = self.query_one("#vars-table", DataTable)
        self.values.pop(name, None)
        self.marks.pop(name, None)
        self._shown.pop(name, None)
        if name in table.rows:
            table.remove_row(name)

    def show(self, summaries: list[VariableSummary]) -> set[str]:
        """The namespace at a stop: mark what differs from the previous stop; return those names."""
        current = {s.name: s for s in summaries}
        self.marks = {}
        for name, summary in current.items():
            before = self._snapshot.get(name)
            if before is None:
                self.marks[name] = "new"
            elif before != summary:
                self.marks[name] = "changed"
        for name in [n for n in self.values if n not in current]:
            self._remove(name)
        self.values = dict(current)
        for summary in summaries:
            self._put(summary)
        self._snapshot = current
        self.show_note()
        if self._selected in current and self._selected in self.marks:
            self.load_full(self._selected)
        return set(self.marks)

    def on_variables_table_resized(self, message: VariablesTable.Resized) -> None:
        """Every value cut again to the table's new width (a zoom, `v`, a resized terminal)."""
        message.stop()
        for summary in self.values.values():
            self._put(summary)

    # -- the full value ----------------------------------------------------------

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.data_table is not self.query_one("#vars-table"):
            return
        name = event.row_key.value if event.row_key is not None else None
        if name:
            self._selected = name
            self.load_full(name)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.data_table is not self.query_one("#vars-table"):
            return
        self.query_one("#var-value-box").focus()

    @work(group="full-value", exclusive=True)
    async def load_full(self, name: str) -> None:
        summary = self.values.get(name)
        try:
            text = await self.fetch_full(name)
        except Exception as exc:  # noqa: BLE001 - the namespace may change under us
            text = f"<could not read {name}: {type(exc).__name__}: {exc}>"
        if len(text) > FULL_VALUE_SHOWN:
            text = text[:FULL_VALUE_SHOWN] + f"\n… [{len(text) - FULL_VALUE_SHOWN} more characters not shown]"
        kind = summary.type if summary else "?"
        self.query_one("#var-value-title", Static).update(
            Text.assemble((name, "bold"), " (", (kind, "cyan"), f") — {len(text)} chars")
        )
        self.full_text = text
        self.query_one("#var-value", Static).update(Text(text))
