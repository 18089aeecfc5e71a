"""What a unit of hierarchical work (a Plan-and-Execute step, a ReCAP subtask) produced, as the
environment tells it, beside what the model claimed.

Both hierarchical text agents end a unit with `Done: <claim>` or `Failed: <why>`. The claim is
the model's word; later prompts must not show it as fact. A `UnitOutcome` keeps the actions the
unit sent and what the environment answered, what the agent holds afterwards (read from the
observations, `Holding`), and checks the claim against them:

- no action at all, or every action the unit sent failed: no observation supports the claim;
- its last action failed ("Nothing happens."): the environment contradicts it;
- it says the agent holds an object the observations say it does not hold: contradicted.

`text()` is how later prompts show the outcome: the environment's answers first, the claim
quoted and marked `(claim, ...)` when it is not borne out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# The environments' answers to an action that did nothing (the step is spent all the same).
FAILED_ANSWERS = (
    "Nothing happens.",  # ALFWorld
    "No known action matches that input.",  # ScienceWorld
)

_PICK = re.compile(r"^You pick up the (.+?) from the .+?\.", re.M)  # ALFWorld
_PUT = re.compile(r"^You (?:move|put) the (.+?) (?:to|in|on|into|onto|in/on) the (.+?)\.", re.M)
_TO_INVENTORY = re.compile(r"^You move the (.+?) to the inventory\.", re.M)  # ScienceWorld
_HOLD_WORD = re.compile(r"\b(?:hold|holds|holding|carrying)\b", re.I)
_CLAUSE_END = re.compile(r"[.;,]")
_OBJECT = re.compile(r"(?<![\w-])([a-z][a-z-]* \d+)", re.I)  # starts only where a word does: linear


def held_in_claim(claim: str) -> list[str]:
    """The objects a claim says are held ("holding the mug 1, ..." -> ["mug 1"]), clause by clause.

    In time linear in the claim, which is model text: one regex for it looked for an object after
    every "hold" to the clause's end, the square of a clause of repeated "hold"s.
    """
    names: list[str] = []
    for clause in _CLAUSE_END.split(claim):
        at = 0
        while (word := _HOLD_WORD.search(clause, at)) is not None:
            held = _OBJECT.search(clause, word.end())
            if held is None:
                break  # no object after this word: none after a later one in the clause either
            names.append(held.group(1))
            at = held.end()
    return names


def action_failed(observation: str) -> bool:
    """Whether the environment answered that the action did nothing."""
    text = observation.strip()
    return any(text.startswith(answer) for answer in FAILED_ANSWERS)


def failed_mark(observation: str) -> str:
    """The observation, marked when it says the action failed (the marker is what prompts show)."""
    text = observation.rstrip("\n")
    return f"{text}  [action failed: nothing changed]" if action_failed(text) else text


class Holding:
    """What the agent holds, as far as the observations say (ALFWorld's one object in hand,
    ScienceWorld's inventory): updated from each action's answer."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def update(self, observation: str) -> None:
        for name in _TO_INVENTORY.findall(observation):
            if name not in self.items:
                self.items.append(name)
        for name in _PICK.findall(observation):
            if name not in self.items:
                self.items.append(name)
        for name, where in _PUT.findall(observation):
            if where != "inventory" and name in self.items:
                self.items.remove(name)

    def text(self) -> str:
        return ", ".join(self.items) if self.items else "nothing"


@dataclass
class UnitOutcome:
    """A finished unit: the model's decision and claim, and what the environment answered in it."""

    kind: str = "failed"  # "done" or "failed"
    claim: str = ""  # the model's `Done:`/`Failed:` text, or the harness's reason
    exchanges: list[tuple[str, str]] = field(default_factory=list)  # (action, observation), oldest first
    holding: str = ""  # what the agent holds when the unit ended ("" when not tracked)
    by_harness: bool = False  # the claim is the harness's own words (a limit, the episode's end)

    def problem(self) -> str:
        """Why the environment does not bear out a `Done:` claim ('' when it does, or for a failure)."""
        if self.kind != "done" or self.by_harness:
            return ""
        if not self.exchanges:
            return "no action was sent in this part, so no observation supports it"
        if all(action_failed(obs) for _, obs in self.exchanges):
            return "every action of this part failed (the environment answered that nothing happened)"
        action, last = self.exchanges[-1]
        if action_failed(last):
            return f"the last action `{action}` failed: the environment answered \"{last.strip()}\""
        if self.holding:
            for name in held_in_claim(self.claim):
                if name.lower() not in [item.lower() for item in self.holding.split(", ")]:
                    return f"the observations say the agent holds {self.holding}, not {name}"
        return ""

    def text(self, limit: int = 0) -> str:
        """One line for later prompts: status, the environment's last answer, what is held, the claim
        (marked when the environment does not bear it out). `limit` > 0 cuts observations."""
        parts = [self.kind]
        if self.exchanges:
            action, obs = self.exchanges[-1]
            parts.append(f"last action `{action}` -> {_one_line(failed_mark(obs), limit)}")
        elif not self.by_harness:
            parts.append("no action sent")
        if self.holding:
            parts.append(f"holding: {self.holding}")
        problem = self.problem()
        if self.by_harness:
            parts.append(self.claim)
        elif problem:
            parts.append(f"(claim, not borne out: \"{self.claim}\"; {problem})")
        elif self.claim:
            parts.append(f"{'claim' if self.kind == 'done' else 'reason'}: \"{self.claim}\"")
        return "; ".join(parts)

    def full(self, limit: int = 0) -> str:
        """Every action of the unit with its answer, then the one-line outcome (the replanner's view)."""
        lines = [f"  > {action}\n    {_one_line(failed_mark(obs), limit)}" for action, obs in self.exchanges]
        return "\n".join(lines + [f"  outcome: {self.text(limit)}"])


def _one_line(text: str, limit: int = 0) -> str:
    flat = " ".join(text.split())
    if limit and len(flat) > limit:
        return flat[:limit] + "... [display cut]"
    return flat
