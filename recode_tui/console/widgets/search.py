"""Text search over a pane's lines (`/`): smart case, every match, the current one, wrapping around.

Pure and UI-free, so the panes only say what their lines are and how to show a
match; the `SearchBar` and the app's search actions do the rest.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Protocol, Sequence, runtime_checkable


@dataclass(frozen=True)
class Match:
    line: int
    start: int
    end: int


# Characters whose lower case is longer than one character (only "İ") are first
# mapped to one, so offsets in the lowered text are offsets in the real one.
_SAME_LENGTH = {0x130: "i"}

MAX_MATCHES = 10_000  # more are not counted: a 100k-line log searched per keystroke stays quick


def find_all(lines: Sequence[str], pattern: str, limit: int = MAX_MATCHES) -> list[Match]:
    """Occurrences of `pattern` in reading order, at most `limit` of them.

    Smart case: any capital makes it case-sensitive. The lines are searched as
    one text, which is what keeps a long log fast.
    """
    if not pattern:
        return []
    sensitive = pattern != pattern.lower()
    needle = pattern if sensitive else pattern.lower()
    text = "\n".join(lines)
    if sensitive:
        hay = text
    else:
        hay = (text.translate(_SAME_LENGTH) if "\u0130" in text else text).lower()
    found: list[Match] = []
    at = hay.find(needle)
    if at == -1:
        return found
    starts = list(accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
    while at != -1 and len(found) < limit:
        number = bisect_right(starts, at) - 1
        found.append(Match(number, at - starts[number], at - starts[number] + len(needle)))
        at = hay.find(needle, at + len(needle))
    return found


@runtime_checkable
class Searchable(Protocol):
    """A pane that can be searched: `/` searches the one holding the focus."""

    search_name: str  # shown in the search bar: "Environment", "Prompt"

    def search_lines(self) -> Sequence[str]: ...

    def search_origin(self) -> int:
        """The line a new search starts from (the top of the view, the cursor)."""
        ...

    def show_match(self, matches: Sequence[Match], current: Match | None) -> None:
        """Mark the matches and bring the current one into view; no matches clears the marks."""
        ...


class SearchPrompt(Protocol):
    """The line the person types the search in (`SearchBar`)."""

    @property
    def has_focus_within(self) -> bool: ...

    def open(self, pane_name: str) -> None:
        """Show the line for the pane named `pane_name`, with the focus in it."""
        ...

    def show_result(self, summary: str) -> None:
        """Say how many matches there are and which is current (`Search.summary`)."""
        ...


@dataclass
class Search:
    """One search over one pane: the pattern, its matches and which one is current."""

    target: Searchable
    pattern: str = ""
    matches: list[Match] = field(default_factory=list)
    index: int = -1

    def update(self, pattern: str) -> None:
        """A new pattern: the first match at or after the pane's origin becomes current."""
        self.pattern = pattern
        self.matches = find_all(self.target.search_lines(), pattern)
        origin = self.target.search_origin()
        self.index = next((i for i, m in enumerate(self.matches) if m.line >= origin), 0) if self.matches else -1
        self._show()

    def step(self, direction: int) -> None:
        """The next (1) or previous (-1) match, wrapping around; the pane's text is read again first."""
        if not self.pattern:
            return
        current = self.current
        self.matches = find_all(self.target.search_lines(), self.pattern)
        if not self.matches:
            self.index = -1
        elif current is None:
            self.index = 0 if direction > 0 else len(self.matches) - 1
        else:
            # matches are in reading order: the neighbour of where we were, wrapping past either end
            here, places = (current.line, current.start), [(m.line, m.start) for m in self.matches]
            if direction > 0:
                self.index = bisect_right(places, here) % len(places)
            else:
                self.index = (bisect_left(places, here) - 1) % len(places)
        self._show()

    def clear(self) -> None:
        self.pattern, self.matches, self.index = "", [], -1
        self._show()

    @property
    def current(self) -> Match | None:
        return self.matches[self.index] if 0 <= self.index < len(self.matches) else None

    def summary(self) -> str:
        """`3 of 17`, `no match`, or '' before anything is typed."""
        if not self.pattern:
            return ""
        if not self.matches:
            return "no match"
        total = f"{MAX_MATCHES}+" if len(self.matches) >= MAX_MATCHES else str(len(self.matches))
        return f"{self.index + 1} of {total}"

    def _show(self) -> None:
        self.target.show_match(self.matches, self.current)
