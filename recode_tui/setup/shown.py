"""Text from data, as Rich shows it: never markup, never a terminal control.

A journal's game, a report's model label, a prompt file, a profile's name, the model's answer: any
of it may hold `[@click=app.quit]`, `[/oops]` or `\x1b]52;...`. Rich parses a plain `str` as markup
wherever a widget or a table takes one, and passes escapes through to the terminal; `shown` makes
it a `Text` (not parsed) with every control character escaped (`agent.runtime.safe_text`).
Every front end builds what it shows of data with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.runtime.safe_text import for_terminal

if TYPE_CHECKING:  # rich is imported when something is shown, not for `--help`
    from rich.text import Text


def shown(value: object, style: str = "", *, newlines: bool = False) -> Text:
    """`value` as text to show: not markup, its control characters escaped (newlines kept when `newlines`)."""
    from rich.text import Text

    return Text(for_terminal(str(value), newlines=newlines), style=style)
