"""`L`: pick the LLM that answers from now on (human, demo, a profile, or any spec typed)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option


class LLMPicker(ModalScreen[str | None]):
    """Dismissed with the chosen spec (`human`, `demo`, `scripted:FILE`, `profile:NAME`) or None."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="llm-picker.cancel")]

    def __init__(self, choices: list[tuple[str, str]], current: str) -> None:
        super().__init__()
        self.choices = choices
        self.current = current

    def compose(self) -> ComposeResult:
        options = [
            Option(Text.assemble((spec or "", "bold"), "  ", (about, "dim")), id=spec or None, disabled=not spec)
            for spec, about in self.choices
        ]
        with Vertical(id="llm-picker-box"):
            yield Static(Text.assemble(("Switch the LLM", "bold"), f"   now: {self.current}   (esc cancels)"))
            yield OptionList(*options, id="llm-choices")
            yield Input(placeholder="or type a spec: scripted:FILE, journal:PATH, profile:NAME — enter",
                        id="llm-spec")

    def on_mount(self) -> None:
        option_list = self.query_one(OptionList)
        base = self.current.removeprefix("review:")
        for index, (spec, _) in enumerate(self.choices):
            if spec == base:
                option_list.highlighted = index
        option_list.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)
