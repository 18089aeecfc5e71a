"""`w`: type a Python expression to watch; it is checked for syntax before it is added, and kept if refused."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


def syntax_problem(expression: str) -> str:
    """Why `expression` is not a Python expression ('' when it is)."""
    if not expression.strip():
        return "type an expression, e.g. len(seen) or observation[:60]"
    try:
        compile(expression.strip(), "<watch>", "eval")
    except SyntaxError as exc:
        return f"not an expression: {exc.msg} (column {exc.offset or 0}); fix it and press enter, esc cancels"
    return ""


class WatchPrompt(ModalScreen[str | None]):
    """Dismissed with a valid expression, or None (esc)."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="watch-prompt.cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(id="watch-prompt-box"):
            yield Static(Text.assemble(("Watch an expression", "bold"),
                                       "   evaluated in the namespace at every stop   (esc cancels)"))
            yield Input(placeholder="e.g. len(seen)  ·  observation[:60]  ·  obj in places", id="watch-input")
            yield Static("", id="watch-error")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        problem = syntax_problem(event.value)
        if problem:
            self.query_one("#watch-error", Static).update(Text(problem, style="red"))
            return  # the text stays in the input
        self.dismiss(event.value.strip())
