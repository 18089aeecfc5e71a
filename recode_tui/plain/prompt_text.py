"""The prompt as the plain terminal prints it: split into sections, highlighted, long sections folded."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator

FOLD_LINES = 12  # a prompt section longer than this is folded
FOLD_KEEP = 3  # lines of a folded section still shown
ALWAYS_OPEN = ("current function", "variables", "the code of this function failed", "error", "note")

_HEADING = re.compile(r"^#{1,3} \S")
_OPEN_TAG = re.compile(r"<execute>", re.I)
_CLOSE_TAG = re.compile(r"</execute>", re.I)


def _code_spans(text: str) -> Iterator[tuple[re.Match[str], re.Match[str]]]:
    """Each `<execute>` and the first `</execute>` after it. Two searches each, linear in the text: a
    lazy regex for the pair looked for a close after every unclosed `<execute>`, the square of it."""
    at = 0
    while (opening := _OPEN_TAG.search(text, at)) and (closing := _CLOSE_TAG.search(text, opening.end())):
        yield opening, closing
        at = closing.end()


@dataclass
class Section:
    heading: str
    lines: list[str]

    @property
    def folds(self) -> bool:
        title = self.heading.lstrip("# ").lower()
        return len(self.lines) > FOLD_LINES and not any(title.startswith(k) for k in ALWAYS_OPEN)


def prompt_sections(prompt: str) -> list[Section]:
    sections = [Section("", [])]
    for line in prompt.splitlines():
        if _HEADING.match(line):
            sections.append(Section(line, []))
        else:
            sections[-1].lines.append(line)
    if not sections[0].lines or not any(l.strip() for l in sections[0].lines):
        sections.pop(0)
    return sections


def _tokens(text: str) -> list[tuple[Any, str]]:
    """Pygments tokens: Python inside <execute> blocks and code-looking lines, plain prose elsewhere."""
    from pygments import lex
    from pygments.lexers import PythonLexer
    from pygments.token import Token

    python = PythonLexer(stripnl=False, ensurenl=False)
    out: list[tuple[Any, str]] = []
    position = 0
    for opening, closing in _code_spans(text):
        out.extend(_prose(text[position:opening.start()]))
        out.append((Token.Keyword.Pseudo, opening.group(0)))
        out.extend(lex(text[opening.end():closing.start()], python))
        out.append((Token.Keyword.Pseudo, closing.group(0)))
        position = closing.end()
    out.extend(_prose(text[position:]))
    return out


def _prose(text: str) -> list[tuple[Any, str]]:
    from pygments.token import Token

    out: list[tuple[Any, str]] = []
    for line in text.splitlines(keepends=True):
        variable = re.match(r"^(- )(\w+)( \([^)]*\))(:.*)$", line.rstrip("\n"))
        if variable:
            out += [(Token.Text, variable.group(1)), (Token.Name.Variable, variable.group(2)),
                    (Token.Keyword.Type, variable.group(3)), (Token.Text, variable.group(4) + "\n")]
        elif re.match(r"^</?think>", line.strip()):
            out.append((Token.Comment, line))
        else:
            out.append((Token.Text, line))
    return out


def render_prompt(prompt: str, folded: bool = True) -> tuple[list[tuple[Any, str]], int]:
    """Highlighted tokens of a prompt, long sections folded; and how many lines were folded away."""
    from pygments.token import Token

    tokens: list[tuple[Any, str]] = []
    hidden = 0
    for section in prompt_sections(prompt):
        if section.heading:
            tokens.append((Token.Generic.Heading, section.heading + "\n"))
        lines = section.lines
        if folded and section.folds:
            shown = lines[:FOLD_KEEP]
            hidden += len(lines) - len(shown)
            tokens.extend(_tokens("\n".join(shown) + "\n"))
            tokens.append((Token.Comment, f"  … {len(lines) - len(shown)} more lines folded (F2 in the editor shows the whole prompt)\n\n"))
        else:
            tokens.extend(_tokens("\n".join(lines) + "\n"))
    return tokens, hidden
