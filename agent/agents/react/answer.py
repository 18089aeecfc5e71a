"""Reading a ReAct answer: a thought and exactly one action.

The format, shown to the model and as the editor's skeleton:

    Thought: what I know and what to do next
    Action: go to desk 1

Rules, each refusal a message the LLM is re-asked with: there must be one
`Action:` line, not two or more (the next actions belong to later turns),
and its text must not be empty (quotes, a `> ` mark and a final full stop
around it are dropped). The thought may span lines; an answer
without one is taken, with a note. Lines after the action (a model that
goes on to imagine the observation) are ignored, with a note.
"""

from __future__ import annotations

import re

from agent.runtime.verdict import Verdict

SKELETON = "Thought: \nAction: "
_ACTION = re.compile(r"^\s*(?:\*\*)?action(?:\*\*)?\s*:(?:\*\*)?\s*(.*)$", re.I)
ACTION_LINE = _ACTION  # what a line must be for an answer cut after it to be usable
_THOUGHT = re.compile(r"^\s*(?:\*\*)?thought(?:\*\*)?\s*:(?:\*\*)?\s*", re.I)
_THINK_TAGS = re.compile(r"</?think>", re.I)


def clean_action(text: str) -> str:
    """The action as sent: without quotes or backticks around it, a `> ` prompt mark or a final full stop."""
    action = text.strip().strip("`\"'").strip()
    if action.startswith(">"):
        action = action[1:].strip()
    return action.rstrip(".").rstrip()


def parse_react(text: str) -> Verdict:
    """The action and thought of `text`, or the reason it cannot be taken."""
    lines = text.splitlines()
    found = [(i, m) for i, line in enumerate(lines) if (m := _ACTION.match(line))]
    if not found:
        return Verdict(False, message="the answer has no action: end it with one line `Action: <one action>`")
    if len(found) > 1:
        listed = "; ".join(f"`{m.group(1).strip()}`" for _, m in found[:4])
        return Verdict(False, line=found[1][0] + 1, message=(
            f"the answer has {len(found)} actions ({listed}); give exactly one `Action:` line, "
            "the next ones come in later turns, after you see this one's observation"))
    index, match = found[0]
    action = clean_action(match.group(1))
    if not action:
        return Verdict(False, line=index + 1, message="the `Action:` line is empty: write the one action after it")
    thought = "\n".join(lines[:index])
    thought = _THINK_TAGS.sub("", _THOUGHT.sub("", thought.strip(), count=1)).strip()
    notes: list[str] = []
    if not thought:
        notes.append("no thought given")
    tail = " ".join(" ".join(lines[index + 1:]).split())
    if tail:
        shown = tail if len(tail) <= 60 else tail[:57] + "..."
        notes.append(f"the text after the action was ignored: {shown!r}")
    return Verdict(True, blocks=(action,), thought=thought, notes=tuple(notes))
