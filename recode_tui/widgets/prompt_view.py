"""The exact prompt of the current (or the selected node's) expansion."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static, TextArea


class PromptView(Vertical):
    def compose(self) -> ComposeResult:
        yield Static("No prompt yet: a prompt appears when a stub is expanded.", id="prompt-title")
        yield TextArea("", id="prompt-text", read_only=True, soft_wrap=True, show_line_numbers=True)

    def on_mount(self) -> None:
        shown = getattr(self.app, "shown_prompt", None)
        if shown is not None:
            self.show(*shown)

    def show(self, title: str, prompt: str) -> None:
        self.query_one("#prompt-title", Static).update(title)
        area = self.query_one("#prompt-text", TextArea)
        if area.text != prompt:
            area.load_text(prompt)
