"""How an agent speaks of its answers to a person: one record per agent (`Stepper.traits.answer_words`), so
every front end's editor says what the agent would, never another agent's words."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AnswerWords:
    """How an agent names its answers to a person, and where typing starts in its skeleton."""

    noun: str = "answer"  # one answer ("expansion", "turn"): "Turn refused", "No turn is awaited"
    empty: str = "empty: submitting gives no answer"  # the check line of an accepted answer that does nothing
    empty_root: str = "empty: submitting ends the whole task"  # the same at the root
    confirm_empty: str = "the answer is empty"  # said before "press KEY again to ..."
    gives_up: str = "submit it as it is"  # what the second submit of an empty answer does: "... again to ..."
    gives_up_root: str = "submit it and end the task"  # the same at the root
    format_hint: str = ""  # the editor header's word on the format ('' : the format shown in the skeleton)
    # The (row, column) where typing starts in the skeleton; None: the end of its first line.
    skeleton_cursor: tuple[int, int] | None = None
