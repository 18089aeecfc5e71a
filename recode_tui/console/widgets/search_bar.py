"""The search line (`/`): type to find in a pane, enter/↓ next, ↑ previous, esc closes.

It only says what the person typed and pressed, by messages; the app decides
which pane is searched and reports back the count with `show_result`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static


class SearchBar(Horizontal):
    BINDINGS = [
        Binding("escape", "close", "Close search", id="search.close"),
        Binding("down,ctrl+n", "step(1)", "Next match", id="search.next"),
        Binding("up,ctrl+p", "step(-1)", "Previous match", id="search.previous"),
    ]

    @dataclass
    class Query(Message):
        """The text to find changed."""

        text: str

    @dataclass
    class Step(Message):
        """Go to the next (1) or previous (-1) match."""

        direction: int

    class Closed(Message):
        """The person is done searching."""

    def compose(self) -> ComposeResult:
        yield Static("", id="search-label")
        yield Input(placeholder="find (smart case)   enter/↓ next · ↑ previous · esc closes", id="search-input")
        yield Static("", id="search-count")

    def open(self, pane_name: str) -> None:
        """Show the bar for `pane_name`, keeping the last text (selected, to type over or reuse)."""
        self.query_one("#search-label", Static).update(Text.assemble(("/", "bold"), f" {pane_name} "))
        self.display = True
        field = self.query_one(Input)
        field.focus()
        field.select_all()
        if field.value:
            self.post_message(self.Query(field.value))

    def show_result(self, summary: str) -> None:
        style = "bold red" if summary == "no match" else "bold"
        self.query_one("#search-count", Static).update(Text(summary, style=style))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Query(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Step(1))

    def action_step(self, direction: int) -> None:
        self.post_message(self.Step(direction))

    def action_close(self) -> None:
        self.display = False
        self.post_message(self.Closed())
