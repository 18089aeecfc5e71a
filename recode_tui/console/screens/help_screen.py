"""`?`: every key binding with its id (for keymaps), and the breakpoint syntax."""

from __future__ import annotations

from typing import Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from recode_tui.console.widgets.breakpoints import ADD_HINT


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "Close", id="help.close")]

    def __init__(self, sections: Sequence[tuple[str, Sequence[BindingType]]], keymap: dict[str, str] | None = None) -> None:
        super().__init__()
        self.sections = sections
        self.keymap = keymap or {}
        self.rows: list[tuple[str, str, str]] = []  # (keys, what, id) of every binding listed

    def compose(self) -> ComposeResult:
        table = Table(box=None, expand=True, show_header=True, header_style="bold")
        table.add_column("key", style="bold cyan", no_wrap=True)
        table.add_column("what")
        table.add_column("id (for a keymap)", style="dim", no_wrap=True)
        for title, bindings in self.sections:
            table.add_row(Text(title, style="bold underline"), "", "")
            for entry in bindings:  # a class's BINDINGS may hold (key, action, description) tuples too
                binding = entry if isinstance(entry, Binding) else Binding(*entry)
                key = self.keymap.get(binding.id or "", binding.key)
                keys = ", ".join(self.app.get_key_display(Binding(k.strip(), "")) for k in key.split(","))
                table.add_row(keys, binding.description, binding.id or "")
                self.rows.append((keys, binding.description, binding.id or ""))
        with VerticalScroll(id="help-box"):
            yield Static(Text("recode-tui — keys  (esc closes)", style="bold"))
            yield Static(table)
            yield Static(
                Text.assemble(
                    ("\nBreakpoints", "bold underline"),
                    f"\n{ADD_HINT}\n",
                    # One line a paragraph: the box wraps it to its width (a hard break would wrap twice).
                    "Every stub expansion is on by default. A condition is a Python expression over the "
                    "variables, e.g. `action take .* if len(seen) > 2`. b on a tree node toggles a "
                    "breakpoint on its stub's function name.\n",
                    ("\nHuman as the LLM", "bold underline"),
                    "\nWhen a stub needs expanding, the Prompt tab shows the exact prompt and the editor "
                    "opens with a <think>/<execute> skeleton (plain code works too). The line under the "
                    "editor validates as you type; ctrl+s submits; a refused answer stays in the editor.",
                )
            )
