"""What an agent makes of one answer: accepted (with its blocks) or refused (with the reason).

Every agent's check returns a `Verdict`, and the one size rule (`oversized`) applies
before any agent's own check, so the stepper, the console's editor and the plain
mode treat every agent's answers alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_LINE = re.compile(r"\bline (\d+)")

# The most characters an answer may have: ~50k tokens, far beyond any real answer of any agent
# (a ReCode expansion is a few hundred). A bigger one is a runaway model; judging it would cost
# seconds and gigabytes, so it is refused on its size alone, before anything parses it.
MAX_ANSWER_CHARS = 200_000


@dataclass(frozen=True)
class Verdict:
    """What the agent would make of one answer."""

    accepted: bool
    blocks: tuple[str, ...] = ()  # the child nodes' code, when accepted
    thought: str = ""
    message: str = ""  # why it is refused ('' when accepted): the text the LLM is sent back
    line: int | None = None  # the line of the answer text where the problem is, when known
    notes: tuple[str, ...] = field(default_factory=tuple)  # worth telling, not a refusal
    refused_by_sandbox: bool = False
    # What an accepted answer will do, in the agent's own words (the editor's check line):
    # "Done: the step is finished", "a plan of 3 steps". '' for ReCode (children are counted).
    summary: str = ""

    @property
    def empty(self) -> bool:
        """Accepted with no code: the stub is skipped."""
        return self.accepted and not self.blocks

    @property
    def located_message(self) -> str:
        """The message with its line in front when the message itself does not name one."""
        if not self.message or self.line is None or _LINE.search(self.message):
            return self.message
        return f"line {self.line}: {self.message}"


def oversized(text: str) -> Verdict | None:
    """The refusal of an answer longer than `MAX_ANSWER_CHARS` (None when it is not): the one size rule,
    applied before any agent's own check (`Stepper.ask`, the console's editor, `judge_answer`)."""
    if len(text) <= MAX_ANSWER_CHARS:
        return None
    return Verdict(False, message=(
        f"the answer is {len(text):,} characters, over the limit of {MAX_ANSWER_CHARS:,}; "
        "answer again with only what this step needs"
    ))


def blank(text: str, source: str) -> Verdict | None:
    """The refusal of a model's empty answer (None for any other): the model ended at once, or a `stop`
    sequence matched the start of its answer. A person's or a script's empty answer is theirs to give
    (ReCode skips the stub); a model's is refused with its reason and asked again, like any bad answer."""
    if source != "model" or text.strip():
        return None
    return Verdict(False, message="the answer was empty; answer again, in the format asked for")
