"""Answers a model's `max_tokens` cut short: which part, if any, is a whole answer by itself.

A cut answer is the model's answer, not a server failure: asking the same
prompt again at temperature 0 gets the same cut. So it is judged like any
other answer. Each agent says which part of it stands on its own (ReCode's
code up to its last `</execute>`, ReAct's text through a complete `Action:`
line) with `Stepper.cut_answer`; with none, the answer is refused with
`cut_reason`, and the model is asked again with that reason.
"""

from __future__ import annotations

import re
from dataclasses import replace

from agent.llm import Completion
from agent.runtime.verdict import Verdict


def through_last(text: str, mark: str) -> str | None:
    """`text` up to and including its last `mark`, or None when it has none."""
    end = text.rfind(mark)
    return text[: end + len(mark)] if end >= 0 else None


def through_first_line(text: str, pattern: re.Pattern[str]) -> str | None:
    """`text` through the first line matching `pattern` that ended before the cut (its newline came),
    or None when no such line is whole."""
    start = 0
    while True:
        newline = text.find("\n", start)
        if newline < 0:
            return None
        if pattern.match(text[start:newline]):
            return text[: newline + 1]
        start = newline + 1


def whole_lines(text: str) -> str:
    """The lines of `text` that ended before the cut ('' when the cut came in the first line)."""
    head, newline, _ = text.rpartition("\n")
    return head + newline


def cut_verdict(completion: Completion, usable: str | None, missing: str) -> tuple[Completion, Verdict | None]:
    """A cut answer with its usable part as its text (the agent judges it next, `None` verdict), or
    unchanged with its refusal when nothing in it is usable."""
    if usable is None:
        return completion, cut_refusal(completion.cut_at or 0, missing)
    return replace(completion, text=usable, cut_rest=completion.text[len(usable):]
                   if completion.text.startswith(usable) else completion.text), None


def cut_refusal(cut_at: int, missing: str) -> Verdict:
    """The refusal of a cut answer with nothing usable: what was missing and what to do."""
    return Verdict(False, message=(
        f"the answer was cut at max_tokens={cut_at} {missing}; answer again, shorter (a brief thought)"
    ))
