"""The observation at hand, whole: the task, the last action and what the environment answered.

The environment log keeps every step but, at 80x24, shows a few rows of it; the
prompt holds the observation among everything else. This pane (a bottom tab, `O`)
shows only what a person must act on now, wrapped to the pane's width and
scrolled like any pane, so a WebShop results page is readable at any size (`z`
gives it the whole screen).
"""

from __future__ import annotations

from typing import Iterable

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from agent.runtime import events as ev
from agent.runtime.event_text import finish_verdict

EMPTY = "No observation yet: the task and the first observation appear when the run starts."


class ObservationView(VerticalScroll, can_focus=True):
    """The task and the latest observation, wrapped and scrollable; redrawn when a new one arrives."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.task_text = ""
        self.action = ""  # the action the observation answers ('' for the first one)
        self.step = 0
        self.observation = ""
        self.finished = ""  # how the run ended ('' while it runs)

    def compose(self) -> ComposeResult:
        yield Static(self.shown_text() if self.task_text or self.observation else EMPTY, id="observation-text")

    def take_over(self, other: ObservationView) -> None:
        """Show what `other` shows (a view made once the run is under way: F2's peek). Before mounting."""
        self.task_text, self.action, self.step = other.task_text, other.action, other.step
        self.observation, self.finished = other.observation, other.finished

    def take_focus(self) -> bool:
        self.focus()
        return True

    @property
    def text(self) -> str:
        """What the pane shows, as plain text (tests, search)."""
        return self.shown_text().plain

    def apply(self, events: Iterable[ev.Event]) -> None:
        """Take the newest observation of a batch of events; redraw once when anything changed."""
        changed = False
        for event in events:
            match event:
                case ev.RunStarted():
                    self.task_text, self.action, self.step = event.instruction, "", 0
                    self.observation, self.finished, changed = event.observation, "", True
                case ev.ObservationReceived():
                    self.action, self.step, self.observation, changed = event.action, event.step, event.observation, True
                case ev.RunFinished():
                    self.finished, changed = finish_verdict(event, "WON", "FAILED"), True
        if changed:
            self.show_text()
            self.scroll_home(animate=False)  # a new observation is read from its start

    def show_text(self) -> None:
        """Draw the text again; lay the screen out only when it takes another number of lines (the
        pane's scroll range changes with it): most observations of a run take as many as the last. A
        pane not on show (its tab behind another, F2's peek put away) is laid out as before: the layout
        when it shows places the text as it was last laid out."""
        shown = self.query_one("#observation-text", Static)
        lines, width = shown.content_size.height, shown.content_size.width
        shown.update(self.shown_text(), layout=False)
        if not width or shown.get_content_height(self.content_size, self.app.size, width) != lines:
            shown.refresh(layout=True)

    def shown_text(self) -> Text:
        if not self.task_text and not self.observation:
            return Text(EMPTY, style="dim")
        text = Text()
        text.append("TASK ", style="bold yellow")
        text.append(self.task_text.strip() + "\n\n")
        if self.action:
            text.append(f"step {self.step} > {self.action}\n", style="bold cyan")
        else:
            text.append("the first observation\n", style="bold cyan")
        text.append(self.observation.strip("\n"))
        if self.finished:
            text.append(f"\n\n══ {self.finished} ══", style="bold")
        return text
