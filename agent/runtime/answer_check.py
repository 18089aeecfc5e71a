"""The one submit rule for an answer, wherever a person submits one, in the agent's own words.

The console's answer editor, the prompt workspace's comparison columns, review mode and
the plain mode all ask `check_answer` what the agent would make of a text, so none of
them judges by another agent's rule and all of them say it alike:

- the size rule first (`oversized`), then an answer a model's max_tokens cut is judged as
  `Stepper.ask` judges it: the agent's `cut_answer` keeps the part that is whole by itself
  (its `cut_kept` says which), or refuses with `cut_missing`; then the agent's `judge`;
- an accepted answer is described by the agent (`describe_answer`, `Verdict.summary`), an
  empty one in its `AnswerWords`; an empty answer must be submitted twice (`needs_confirming`),
  and at the root it says that it gives up the whole task.

How an agent speaks of its answers is one record per agent, `AnswerWords` (its traits'
`Stepper.traits.answer_words`): the front ends hold no agent's words of their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.runtime.answer_words import AnswerWords
from agent.runtime.cut import cut_refusal
from agent.runtime.stepper import Stepper
from agent.runtime.verdict import Verdict, oversized


@dataclass(frozen=True)
class AnswerCheck:
    """What the agent makes of one submitted text, as every front end shows it."""

    ok: bool
    message: str  # the check line: why it is refused, or what it will do
    blocks: int = 0
    empty: bool = False  # accepted, and does nothing: submitting needs confirming
    line: int | None = None  # the line of the text the problem is on, when known
    cut: str = ""  # the text was cut at max_tokens: what the agent keeps of it, in its words

    @property
    def needs_confirming(self) -> bool:
        """Accepted but empty: a first submit only warns (`confirm_text`), a second one applies it."""
        return self.ok and self.empty


def check_answer(agent: Stepper, text: str, purpose: str, role: str = "", *, known: frozenset[str] = frozenset(),
                 typed: bool = True, cut_at: int | None = None, at_root: bool = False) -> AnswerCheck:
    """Judge `text` for a call of `purpose`/`role` exactly as the agent's run will.

    `typed`: a person wrote or edited it (the agent may take it more loosely); `cut_at`: the
    model's max_tokens cut it (a model's answer as it came); `at_root`: the call answers the
    root, so an empty answer gives up the whole task.
    """
    words = agent.traits.answer_words
    verdict = oversized(text)
    cut = ""
    if verdict is None and cut_at is not None:
        usable = agent.cut_answer(text, purpose, role)
        if usable is None:
            verdict = cut_refusal(cut_at, agent.cut_missing(purpose, role))
        else:
            text, cut = usable, f"cut at max_tokens={cut_at}: {agent.cut_kept(purpose, role)}"
    if verdict is None:
        verdict = agent.judge(text, purpose, role, typed=typed, known=known)
    return _check_of(agent, verdict, purpose, role, words, cut, at_root)


def _check_of(agent: Stepper, verdict: Verdict, purpose: str, role: str, words: AnswerWords, cut: str,
              at_root: bool) -> AnswerCheck:
    # What the agent makes of it first (a narrow check line wraps the rest), then that it was cut.
    if not verdict.accepted:
        return AnswerCheck(False, verdict.located_message + (f" ({cut})" if cut else ""), line=verdict.line, cut=cut)
    notes = "".join(f" · {note}" for note in (*verdict.notes, *((cut,) if cut else ())))
    described = agent.describe_answer(verdict, purpose, role) or verdict.summary
    if described:
        return AnswerCheck(True, f"{described}{notes}", len(verdict.blocks), cut=cut)
    if verdict.empty:
        return AnswerCheck(True, f"{words.empty_root if at_root else words.empty}{notes}", 0, empty=True, cut=cut)
    return AnswerCheck(True, f"{len(verdict.blocks)} child node(s){notes}", len(verdict.blocks), cut=cut)


def confirm_text(agent: Stepper, key: str, at_root: bool) -> str:
    """What a first submit of an empty answer says: what submitting it again with `key` does."""
    words = agent.traits.answer_words
    return f"{words.confirm_empty}: press {key} again to {words.gives_up_root if at_root else words.gives_up}"


class SubmitRule:
    """The one submit rule for the answers to one call: the agent's check, and an empty answer applied
    only when submitted twice as it is (every front end asks the same)."""

    def __init__(self, agent: Stepper, purpose: str, role: str = "", *, known: frozenset[str] = frozenset(),
                 at_root: bool = False) -> None:
        self.agent, self.purpose, self.role, self.known, self.at_root = agent, purpose, role, known, at_root
        self._confirmed: str | None = None  # the empty text submitted once already

    def check(self, text: str, *, typed: bool = True, cut_at: int | None = None) -> AnswerCheck:
        return check_answer(self.agent, text, self.purpose, self.role, known=self.known, typed=typed, cut_at=cut_at,
                            at_root=self.at_root)

    def refusal(self, text: str, key: str, *, typed: bool = True, cut_at: int | None = None) -> str:
        """Why submitting `text` with `key` does not go through ('' when it does): the agent's refusal,
        or (the first time an empty answer is submitted) the confirmation it needs."""
        check = self.check(text, typed=typed, cut_at=cut_at)
        if not check.ok:
            return check.message
        if check.needs_confirming and self._confirmed != text:
            self._confirmed = text
            return confirm_text(self.agent, key, self.at_root)
        return ""


def skeleton_cursor(agent: Stepper, skeleton: str) -> tuple[int, int]:
    """Where typing starts in the agent's skeleton: its words' place, else the end of the first line."""
    place = agent.traits.answer_words.skeleton_cursor
    lines = skeleton.split("\n")
    if place is not None and place[0] < len(lines):
        return place
    return 0, len(lines[0])
