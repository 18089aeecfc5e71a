"""Tables that fit the terminal: a table wider than the screen is split into several, each whole.

Rich shrinks a too-wide table by cutting cells (`100.…`, `put…`) or dropping columns; a reader then
cannot tell `put` from `puttwo`. Here a table keeps every cell whole: the columns that do not fit move
to a next table that repeats the row labels (the key columns), the parts as even as the columns allow
(never a last part of one lonely column). A pipe or a log gets `COLUMNS` when set, else no limit: a
file is read whole, so its tables are never split.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent.runtime.safe_text import for_terminal

if TYPE_CHECKING:  # rich is imported where a table is drawn, not for `--help`
    from rich.console import JustifyMethod

# A bordered table's cost per column (a space each side and the rule on the left), and the right rule.
_PER_COLUMN = 3
_EDGE = 1
UNSPLIT_WIDTH = 10_000  # a pipe or a log without COLUMNS: wide enough that no table is split


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
        lines = [line for row in self.rows for line in for_terminal(row.cells[index]).splitlines()]  # as shown
        return max([len(line) for line in lines] + [len(self.columns[index].name)])

    def parts(self, width: int) -> list[list[int]]:
        """Column indexes per table: the key columns in each, the others in order, as few parts as fit
        `width`, their widths as even as the columns allow."""
        greedy = self._fill(width)
        fewest = len(greedy)
        if fewest == 1:
            return greedy
        others = [self.need(i) + _PER_COLUMN for i, c in enumerate(self.columns) if not c.key]
        low, high = max(others, default=0), width  # the narrowest limit that still needs no more parts
        while low < high:
            middle = (low + high) // 2
            if len(self._fill(middle, keys_inside=False)) <= fewest:
                high = middle
            else:
                low = middle + 1
        balanced = self._fill(low, keys_inside=False)
        return balanced if all(self.width_of(part) <= width for part in balanced) else greedy

    def width_of(self, part: list[int]) -> int:
        """The drawn width of a table of these columns."""
        return _EDGE + sum(self.need(i) + _PER_COLUMN for i in part)

    def _fill(self, width: int, keys_inside: bool = True) -> list[list[int]]:
        """Fill parts in order up to `width` (the key columns' own width counted unless `keys_inside` is False)."""
        keys = [i for i, c in enumerate(self.columns) if c.key]
        base = _EDGE + sum(self.need(i) + _PER_COLUMN for i in keys) if keys_inside else 0
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

        from recode_tui.setup.shown import shown

        parts = self.parts(width)
        out = []
        for n, part in enumerate(parts):
            title = self.title if len(parts) == 1 else f"{self.title} (part {n + 1} of {len(parts)})"
            table = Table(title=shown(title), title_justify="left")  # cells and title hold data: never markup
            for i in part:
                column = self.columns[i]
                table.add_column(column.name, justify=column.justify, min_width=self.need(i))
            for row in self.rows:
                table.add_row(*(shown(row.cells[i], newlines=True) for i in part), style=row.style,
                              end_section=row.end_section)
            out.append(table)
        return out


def output_console(wide: int) -> Any:
    """The console to print on: the terminal's width; for a pipe or a log, `COLUMNS`, else no limit
    (`wide` at least): a file is read whole, so a table there is never split."""
    from rich.console import Console

    console = Console()
    if console.is_terminal:
        return console
    columns = os.environ.get("COLUMNS", "")
    return Console(width=int(columns) if columns.isdigit() and int(columns) > 0 else max(wide, UNSPLIT_WIDTH),
                   force_terminal=False)


def print_layout(console: Any, layout: Layout) -> None:
    """Print the table, split to the console's width."""
    for table in layout.tables(console.width):
        console.print(table)
