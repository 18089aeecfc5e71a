"""An agent's own state as a person reads it (the console's agent tab): plain data an agent's `view()` returns.

Apart from `agent.runtime.stepper` because it is part of what an agent
author writes against, with no stepping in it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ViewLine:
    """One line of an agent view. `mark` says what the line is, not how to draw it:
    "current" (the turn, step or item at hand), "added", "removed", "changed" (a plan diff),
    "cut" (a window's cut), "done", "failed", "muted" (context), "" (plain). `full`: the whole text
    when `text` is a shortened one (a long observation's first line); the console shows it on demand."""

    text: str
    mark: str = ""
    full: str = ""


@dataclass(frozen=True)
class ViewSection:
    heading: str
    lines: tuple[ViewLine, ...] = ()


@dataclass(frozen=True)
class AgentView:
    """An agent's own state as a person reads it (the console's agent tab): plain data, no UI."""

    title: str
    sections: tuple[ViewSection, ...] = ()

    def text(self) -> str:
        """The view as plain text (tests, a log): a heading line, then its lines indented."""
        parts: list[str] = []
        for section in self.sections:
            parts.append(f"## {section.heading}")
            parts += [f"  {line.text}" for line in section.lines]
        return "\n".join(parts)
