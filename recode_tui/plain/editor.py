"""The plain terminal's answer editor: the agent's answer skeleton, the one submit rule
(`agent.runtime.answer_check`, as the console's editor applies it), and prompt-toolkit's keys,
validator and validation line."""

from __future__ import annotations

from types import FunctionType
from typing import Any, Callable

from agent.runtime import events as ev
from agent.runtime.answer_check import skeleton_cursor

SUBMIT_KEY = "Esc Enter"
TOOLBAR_KEYS = ["Esc Enter submit", "F2 whole prompt", "↑↓ earlier answers", "Ctrl-R skeleton", "Ctrl-D pause"]


class Paused(Exception):
    """The person pressed Ctrl-D / Ctrl-C in the editor; `text` is what the editor held."""

    def __init__(self, text: str, how: str) -> None:
        super().__init__(how)
        self.text = text
        self.how = how


def skeleton_for(agent: Any, request: "ev.LLMRequested | None") -> tuple[str, int]:
    """The agent's answer format for a call and where typing starts in it (an offset)."""
    text = agent.answer_skeleton(request.purpose, request.role) if request is not None else ""
    row, column = skeleton_cursor(agent, text)
    return text, sum(len(line) + 1 for line in text.split("\n")[:row]) + column


def editor_key_bindings(reset: Callable[[], tuple[str, int]], unfold: Callable[[], None]) -> Any:
    """The editor's keys: Enter indents, Esc Enter submits, Ctrl-D/Ctrl-C pause (`Paused`), Tab/Shift-Tab
    indent, F2 calls `unfold` (print the whole prompt), Ctrl-R puts back the text and cursor `reset` gives."""
    from prompt_toolkit.filters import has_completions, is_searching
    from prompt_toolkit.key_binding import KeyBindings

    bindings = KeyBindings()

    @bindings.add("enter", filter=~has_completions & ~is_searching)
    def _newline(event: Any) -> None:
        """Enter: a new line, indented like this one, one level more after a colon."""
        buffer = event.current_buffer
        line = buffer.document.current_line_before_cursor
        indent = line[: len(line) - len(line.lstrip())]
        if line.rstrip().endswith(":"):
            indent += "    "
        buffer.insert_text("\n" + indent)

    @bindings.add("escape", "enter")
    def _submit(event: Any) -> None:
        """Judged at every submit: the same text again confirms an empty answer (prompt-toolkit would
        otherwise keep the last verdict of an unchanged text)."""
        from prompt_toolkit.buffer import ValidationState

        event.current_buffer.validation_state = ValidationState.UNKNOWN
        event.current_buffer.validate_and_handle()

    @bindings.add("c-d")
    def _pause(event: Any) -> None:
        event.app.exit(exception=Paused(event.current_buffer.text, "paused"))

    @bindings.add("c-c")
    def _interrupt(event: Any) -> None:
        event.app.exit(exception=Paused(event.current_buffer.text, "interrupted"))

    @bindings.add("f2")
    def _unfold(event: Any) -> None:
        from prompt_toolkit.application import run_in_terminal

        run_in_terminal(unfold)

    @bindings.add("c-r")
    def _reset(event: Any) -> None:
        """Back to the empty skeleton (the agent's answer format)."""
        text, cursor = reset()
        event.current_buffer.text = text
        event.current_buffer.cursor_position = cursor

    @bindings.add("s-tab")
    def _dedent(event: Any) -> None:
        buffer = event.current_buffer
        line = buffer.document.current_line
        cut = min(4, len(line) - len(line.lstrip(" ")))
        if cut:
            start = buffer.cursor_position - buffer.document.cursor_position_col
            buffer.text = buffer.text[:start] + buffer.text[start + cut:]
            buffer.cursor_position = max(start, buffer.cursor_position - cut)

    @bindings.add("tab")
    def _indent(event: Any) -> None:
        event.current_buffer.insert_text("    ")

    return bindings


def wrapping_validation(session: Any) -> None:
    """Let prompt-toolkit's validation line take the rows a refusal needs: it is one row high and
    cut at the edge (`the actions are: go to {`), and the reason is what the person must read."""
    from prompt_toolkit.filters import to_filter
    from prompt_toolkit.layout.containers import Window
    from prompt_toolkit.layout.controls import FormattedTextControl
    from prompt_toolkit.widgets.toolbars import ValidationToolbar

    for container in session.layout.walk():
        if isinstance(container, Window) and isinstance(container.content, FormattedTextControl) and \
                isinstance(container.content.text, FunctionType) and \
                container.content.text.__qualname__.startswith(ValidationToolbar.__name__):
            container.height = None
            container.wrap_lines = to_filter(True)


def answer_validator(check: Callable[[Any], None]) -> Any:
    from prompt_toolkit.validation import Validator

    class AnswerValidator(Validator):
        def validate(self, document: Any) -> None:
            check(document)

    return AnswerValidator()
