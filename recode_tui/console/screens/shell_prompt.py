"""`!` at a stop: one line of Python run in the run's namespace (pudb's shell, a state edit).

The line goes through the same runner and checks as node code. An expression
shows its value; a statement changes the namespace, and the agent journals it
so a replay, a resume or a fork runs it again at the same point. A refused or
raising line shows its one-line reason and changes nothing. The prompt stays
open for the next line; esc closes it. A value is shown whole, wrapped, in a box
that grows to most of the screen and scrolls (`tab` moves the focus into it).
"""

from __future__ import annotations

from typing import Awaitable, Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.signal import Signal
from textual.widgets import Input, Static

# (code) -> (ran, what to show): the app's way of running a line at the stop.
RunLine = Callable[[str], Awaitable[tuple[bool, str]]]


class ShellPrompt(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Close", id="shell.close")]

    def __init__(self, run_line: RunLine) -> None:
        super().__init__()
        self.run_line = run_line
        self.result = ""  # what the last line gave, as the result box shows it
        # Published with that text once a line's answer is shown.
        self.answered: Signal[str] = Signal(self, "answered")

    def compose(self) -> ComposeResult:
        with Vertical(id="shell-box"):
            yield Static(Text.assemble(("Run a line in the run's namespace", "bold"),
                                       "   an expression shows its value; a statement is journaled   (esc closes)"))
            yield Input(placeholder="e.g. len(seen)  ·  target = 'mug 1'  ·  places.append('shelf 2')", id="shell-input")
            with VerticalScroll(id="shell-result-box", can_focus=True):
                yield Static("", id="shell-result")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        code = event.value.strip()
        if not code:
            return
        ok, text = await self.run_line(code)
        self.result = text
        self.query_one("#shell-result", Static).update(Text(text, style="green" if ok else "red"))
        self.answered.publish(text)
        if ok:
            event.input.value = ""
