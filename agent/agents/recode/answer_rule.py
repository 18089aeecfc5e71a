"""The one rule for "would the engine accept this answer".

Every place that judges an answer before (or instead of) the engine calls
`judge_answer`: the engine itself, the console's answer editor (live, as
the person types), the plain mode's editor, the prompt workspace and the
few-shot checker. So a sandbox refusal shows wherever the answer is typed,
not only after it is submitted, and no two front ends disagree.

The rule, in order: the answer must hold an `<execute>` section (a person
typing may give plain code instead), its code must compile and follow the
structure rules (`agent.agents.recode.codeblocks.validate`), and unless the run is trusted
the whole code must pass the sandbox's static check (the whole code, not
block by block: a later block may read a name an earlier one binds).
"""

from __future__ import annotations

import re
from typing import Callable

from agent.agents.recode.codeblocks import validate
from agent.runtime.code import DEFAULT_HELPERS, InvalidAnswer, ParsedAnswer, parse_answer, safe_parse
from agent.runtime.verdict import Verdict, oversized
from agent.sandbox.checks import check_code

CodeCheck = Callable[[str], "str | None"]

_LINE = re.compile(r"\bline (\d+)")


def judge_answer(
    text: str,
    known_names: frozenset[str] | set[str],
    *,
    typed: bool,
    trusted: bool = False,
    code_check: CodeCheck | None = None,
) -> Verdict:
    """Judge `text` as the engine will.

    `known_names` are the names bound when the answer runs (variables and
    helpers). `typed`: a person wrote it, so plain code without tags is taken.
    `trusted`: the run executes code without the sandbox's static check.
    `code_check` is the check of the run's runner (it knows the names the
    sandbox holds); without one, the sandbox's check with `known_names`.
    """
    too_big = oversized(text)
    if too_big is not None:
        return too_big
    try:
        parsed = parse_answer(text, allow_plain_code=typed)
    except InvalidAnswer as exc:
        return Verdict(False, message=str(exc), line=_line_in(str(exc)))
    try:
        blocks = validate(parsed.code, known_names, parsed.first_line)
    except InvalidAnswer as exc:
        return Verdict(False, thought=parsed.thought, message=str(exc), line=_line_in(str(exc)), notes=parsed.notes)
    if not trusted:
        check = code_check if code_check is not None else _default_check(known_names)
        refusal = check(parsed.code)
        if refusal:
            return Verdict(
                False, thought=parsed.thought, message=refusal, line=_refused_line(parsed, check, refusal),
                notes=parsed.notes, refused_by_sandbox=True,
            )
    return Verdict(True, tuple(blocks), parsed.thought, notes=parsed.notes)


def _default_check(known: frozenset[str] | set[str]) -> CodeCheck:
    names = frozenset(known)
    return lambda code: check_code(code, names, DEFAULT_HELPERS)


def _line_in(message: str) -> int | None:
    match = _LINE.search(message)
    return int(match.group(1)) if match else None


def _refused_line(parsed: ParsedAnswer, check: CodeCheck, refusal: str) -> int | None:
    """The answer line of the first statement whose code, with what precedes it, is refused.

    A binary search over the statements (log n checks of a prefix, not one per statement:
    that made refusing a long answer quadratic, 16 s for 1,000 lines). A prefix that is
    refused stays refused as statements are added, so the search finds the first one.
    """
    try:
        body = safe_parse(parsed.code).body
    except SyntaxError:
        return None
    lines = parsed.code.splitlines()
    low, high = 0, len(body)  # the first refused prefix ends with body[high - 1]; none before body[low]
    if not body or not check("\n".join(lines[: body[-1].end_lineno or body[-1].lineno])):
        return None
    while high - low > 1:
        middle = (low + high) // 2
        stmt = body[middle - 1]
        if check("\n".join(lines[: stmt.end_lineno or stmt.lineno])):
            high = middle
        else:
            low = middle
    return body[high - 1].lineno + parsed.first_line - 1


__all__ = ["CodeCheck", "judge_answer"]
