"""Reading a CodeAct answer: a thought and one code cell.

The same tags as ReCode's answers: `<think>...</think>` then
`<execute>...</execute>` (a person typing may give plain code). Unlike a
ReCode expansion, a cell is ordinary Python: it may loop over actions, call
`run()` anywhere and define functions (see `agent.agents.codeact.agent` for
what is kept between cells). It is refused only when it is empty, does not
compile, or fails the sandbox's static check (the runner's `check`).
"""

from __future__ import annotations

from typing import Callable

from agent.runtime.code import InvalidAnswer, UnparsableCode, parse_answer, safe_parse
from agent.runtime.verdict import Verdict

SKELETON = "<think>\n\n</think>\n<execute>\n\n</execute>\n"


def parse_cell(text: str, *, typed: bool, code_check: Callable[[str], str | None] | None) -> Verdict:
    """The cell of `text` (as the one block of the verdict), or why it cannot run."""
    try:
        parsed = parse_answer(text, allow_plain_code=typed)
    except InvalidAnswer as exc:
        return Verdict(False, message=str(exc))
    code = parsed.code
    if not code.strip():
        return Verdict(False, thought=parsed.thought, message=(
            "the cell is empty: put the code to run inside <execute>...</execute>"))
    try:
        statements = safe_parse(code).body
    except UnparsableCode as exc:
        return Verdict(False, thought=parsed.thought, message=str(exc.msg))
    except SyntaxError as exc:
        line = (exc.lineno or 1) + parsed.first_line - 1
        return Verdict(False, thought=parsed.thought, line=line,
                       message=f"syntax error on line {line}: {exc.msg}")
    if not statements:  # comments only: running it would spend a call and do nothing
        return Verdict(False, thought=parsed.thought, message=(
            "the cell is empty (comments only): put the code to run inside <execute>...</execute>"))
    refusal = code_check(code) if code_check is not None else None
    if refusal:
        return Verdict(False, thought=parsed.thought, message=refusal, notes=parsed.notes, refused_by_sandbox=True)
    return Verdict(True, blocks=(code,), thought=parsed.thought, notes=parsed.notes)
