"""Tables that fit the terminal: a table wider than the screen is split into several, each whole.

Rich shrinks a too-wide table by cutting cells (`100.…`, `put…`) or dropping columns; a reader then
cannot tell `put` from `puttwo`. Here a table keeps every cell whole: the columns that do not fit move
to a next table that repeats the row labels (the key columns). A pipe or a log gets `COLUMNS` when set,
else a width wide enough for one table.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # rich is imported where a table is drawn, not for `--help`
    from rich.console import JustifyMethod

# A bordered table's cost per column (a space each side and the rule on the left), and the right rule.
_PER_COLUMN = 3
_EDGE = 1


@dataclass(frozen=True)
class Col:
    """One column: its header and alignment; a key column (the row's label) is repeated in every part."""

    name: str
    justify: JustifyMethod = "right"
    key: bool = False


@dataclass
class Row:
    cells: list[str]
    style: str | None = None
    end_section: bool = False


@dataclass
class Layout:
    """A table's content, laid out by `tables(width)`."""

    title: str
    columns: list[Col]
    rows: list[Row] = field(default_factory=list)
    sections: list[int] = field(default_factory=list)  # a rule before these rows

    def add_row(self, *cells: str, style: str | None = None, end_section: bool = False) -> None:
        self.rows.append(Row(list(cells), style, end_section))

    def add_section(self) -> None:
        if self.rows:
            self.rows[-1].end_section = True

    def need(self, index: int) -> int:
        """The column's narrowest whole width: its longest cell line, and its header on one line."""
        lines = [line for row in self.rows for line in row.cells[index].splitlines()]
        return max([len(line) for line in lines] + [len(self.columns[index].name)])

    def parts(self, width: int) -> list[list[int]]:
        """Column indexes per table: the key columns in each, the others in order while they fit."""
        keys = [i for i, c in enumerate(self.columns) if c.key]
        base = _EDGE + sum(self.need(i) + _PER_COLUMN for i in keys)
        parts: list[list[int]] = []
        current: list[int] = []
        used = base
        for i, column in enumerate(self.columns):
            if column.key:
                continue
            cost = self.need(i) + _PER_COLUMN
            if current and used + cost > width:
                parts.append(current)
                current, used = [], base
            current.append(i)
            used += cost
        parts.append(current)
        return [sorted(keys + part) for part in parts]

    def tables(self, width: int) -> list[Any]:
        """One Rich table per part; every cell whole when the key columns and one more fit the width."""
        from rich.table import Table

        parts = self.parts(width)
        out = []
        for n, part in enumerate(parts):
            title = self.title if len(parts) == 1 else f"{self.title} (part {n + 1} of {len(parts)})"
            table = Table(title=title, title_justify="left")
            for i in part:
                column = self.columns[i]
                table.add_column(column.name, justify=column.justify, min_width=self.need(i))
            for row in self.rows:
                table.add_row(*(row.cells[i] for i in part), style=row.style, end_section=row.end_section)
            out.append(table)
        return out


def output_console(wide: int) -> Any:
    """The console to print on: the terminal's width; for a pipe or a log, `COLUMNS` or `wide`."""
    from rich.console import Console

    console = Console()
    if console.is_terminal:
        return console
    columns = os.environ.get("COLUMNS", "")
    return Console(width=int(columns) if columns.isdigit() and int(columns) > 0 else wide, force_terminal=False)


def print_layout(console: Any, layout: Layout) -> None:
    """Print the table, split to the console's width."""
    for table in layout.tables(console.width):
        console.print(table)
