"""Word wrapping for the plain mode: styled text broken at spaces to the terminal's width.

A terminal wraps a long line wherever the column ends (`a drawe` / `r 1`); the plain mode's
lines are an observation, a prompt, a check message a person must read, so they break
between words, and a continued line keeps its line's indent (plus two) so it reads as one.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

Fragment = tuple[Any, str]  # (style or pygments token, text): both prompt-toolkit and pygments shapes

_PIECES = re.compile(r"(\n| +)")


def wrap_fragments(fragments: list[Fragment], width: int) -> list[Fragment]:
    """The fragments with a newline put before each word that would pass `width` (a word longer than
    a line is cut); styles stay on their text."""
    width = max(width, 20)
    out: list[Fragment] = []
    column = 0
    indent = 0
    line_start = True
    for style, text in fragments:
        for piece in _PIECES.split(text):
            if not piece:
                continue
            if piece == "\n":
                out.append((style, "\n"))
                column, indent, line_start = 0, 0, True
                continue
            if piece.isspace():
                if line_start:  # the line's own indent
                    indent = min(len(piece), width // 2)
                if column + len(piece) >= width:  # spaces at the edge: the break instead
                    out.append((style, "\n" + " " * _hang(indent, width)))
                    column = _hang(indent, width)
                else:
                    out.append((style, piece))
                    column += len(piece)
                continue
            line_start = False
            while column + len(piece) > width:
                if column > _hang(indent, width):
                    out.append((style, "\n" + " " * _hang(indent, width)))
                    column = _hang(indent, width)
                    continue
                room = width - column
                out.append((style, piece[:room] + "\n" + " " * _hang(indent, width)))
                piece, column = piece[room:], _hang(indent, width)
            out.append((style, piece))
            column += len(piece)
    return out


def _hang(indent: int, width: int) -> int:
    return min(indent + 2, width // 2)


def wrap_text(text: str, width: int) -> str:
    """Plain text wrapped as `wrap_fragments` does."""
    return "".join(t for _, t in wrap_fragments([("", text)], width))


def wrap_toolbar(parts: list[str], width: int, separator: str = " · ") -> str:
    """Toolbar entries on as many lines as they need, never cut inside an entry."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + len(separator) + len(part) <= width:
            lines[-1] += separator + part
        else:
            lines.extend(textwrap.wrap(part, width) or [""])
    return "\n".join(lines)


__all__ = ["wrap_fragments", "wrap_text", "wrap_toolbar"]
