"""The exact prompt of the current (or the selected node's) expansion."""

from __future__ import annotations

from typing import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static, TextArea
from textual.widgets.text_area import Selection

from recode_tui.console.run.hosts import RunScreen
from recode_tui.console.support.textual_compat import SteadyScrollbars
from recode_tui.console.widgets.search import Match
from recode_tui.setup.shown import shown


class PromptText(TextArea, SteadyScrollbars):  # the mixin after: Textual reads CSS from the first base
    """The read-only prompt: Home and End go to its top and bottom (a line has nothing to move in); its
    scrollbar is redrawn when its sizes change, not at every layout of the screen (a frame each)."""

    BINDINGS = [
        Binding("home", "top", "Top", id="prompt.top", show=False),
        Binding("end", "bottom", "Bottom", id="prompt.bottom", show=False),
    ]

    def action_top(self) -> None:
        self.move_cursor((0, 0))
        self.scroll_home(animate=False)

    def action_bottom(self) -> None:
        last = self.document.line_count - 1
        self.move_cursor((last, len(self.document[last])))
        self.scroll_end(animate=False)


class PromptView(Vertical):
    """The prompt text, read-only; searchable with `/` (the match is selected)."""

    search_name = "Prompt"

    def compose(self) -> ComposeResult:
        """Made with the prompt its run's screen shows (the pane is made when first needed, see
        `PaneRoutes.make_prompt_view`), or none yet."""
        screen = self.screen
        on_show = screen.shown_prompt if isinstance(screen, RunScreen) else None
        if on_show is None:
            yield Static("No prompt yet: a prompt appears when a stub is expanded.", id="prompt-title")
            prompt = ""
        else:
            title, prompt = on_show
            yield Static(shown(title), id="prompt-title")  # it names the stub: model code
        yield PromptText(prompt, id="prompt-text", read_only=True, soft_wrap=True, show_line_numbers=True)

    def take_focus(self) -> bool:
        """`r`: the prompt's text takes the focus, to scroll, select and search it."""
        self.query_one("#prompt-text", TextArea).focus()
        return True

    def show(self, title: str, prompt: str) -> None:
        title_line = self.query_one_optional("#prompt-title", Static)
        if title_line is None:
            return  # not composed yet: its compose shows the screen's prompt, this one
        title_text = shown(title)  # it names the stub: model code
        if title_line.content != title_text:  # the same title again (each stop shows it): no re-layout
            title_line.update(title_text)
        area = self.query_one("#prompt-text", TextArea)
        if area.text != prompt:
            area.load_text(prompt)

    # -- search (`/`): the current match is selected -------------------------------------

    def search_lines(self) -> Sequence[str]:
        return self.query_one("#prompt-text", TextArea).document.lines

    def search_origin(self) -> int:
        return self.query_one("#prompt-text", TextArea).cursor_location[0]

    def show_match(self, matches: Sequence[Match], current: Match | None) -> None:
        area = self.query_one("#prompt-text", TextArea)
        if current is None:
            area.selection = Selection.cursor(area.selection.start)
            return
        area.selection = Selection((current.line, current.start), (current.line, current.end))
        area.scroll_cursor_visible(center=True)
