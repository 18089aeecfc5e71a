"""The review bar: what to do with a model's proposal shown in the editor.

Shown only while a proposal waits; the buttons post `Decided`, the app hands
the decision to the LLM control. Accept goes through the editor's submit, so
an edited proposal is validated like a typed answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Static


class ReviewBar(Horizontal):
    """Accept / Regenerate / Reject for the proposal in the editor."""

    @dataclass
    class Decided(Message):
        """The person chose `verb`: "accept", "regenerate" or "reject"."""

        verb: str

    def compose(self) -> ComposeResult:
        yield Static("", id="review-info")
        yield Button("Accept ⌃S", id="review-accept", variant="success")
        yield Button("Regenerate ⌃G", id="review-regenerate", variant="primary")
        yield Button("Reject ⌃O", id="review-reject", variant="error")

    def on_mount(self) -> None:
        self.display = False

    def show_proposal(self, model: str, round_: int) -> None:
        again = f" (round {round_})" if round_ > 1 else ""
        self.query_one("#review-info", Static).update(
            Text.assemble(("review ", "bold magenta"), f"{model}{again}: accept as is, edit then accept, "
                          "regenerate, or reject and type your own")
        )
        self.query_one("#review-reject", Button).disabled = False
        self.query_one("#review-regenerate", Button).disabled = False
        self.display = True

    def show_rejected(self) -> None:
        self.query_one("#review-info", Static).update(
            Text.assemble(("rejected ", "bold red"), "type your own answer; Accept (⌃S) applies it")
        )
        self.query_one("#review-reject", Button).disabled = True
        self.query_one("#review-regenerate", Button).disabled = True

    def hide(self) -> None:
        self.display = False

    def on_button_pressed(self, event: Button.Pressed) -> None:
        verb = (event.button.id or "").removeprefix("review-")
        if verb in ("accept", "regenerate", "reject"):
            event.stop()
            self.post_message(self.Decided(verb))
