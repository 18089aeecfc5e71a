"""Hybrid review: a model proposes each expansion, a person decides what is applied.

`ReviewLLM` wraps any LLM. `complete` asks the model, then parks on a future
(like `HumanLLM`) until a UI calls `accept` (as proposed, or edited),
`regenerate` (ask the model again) or `reject` followed by `accept` of the
person's own text. The completion says what was proposed and who wrote what
was applied, so the journal keeps both. No UI imports: a front end learns of
a proposal through `on_proposal` and answers with the methods below.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Callable

from agent.llm import LLM, CallContext, Cancellable, Completion, LLMError, Usage, innermost

MODEL, EDITED, HUMAN = "model", "model+edited", "human"


@dataclass(frozen=True)
class Proposal:
    """What the person is asked to review: the model's answer to one prompt."""

    prompt: str
    context: CallContext | None
    text: str
    round: int  # 1 for the first answer, 2.. after each regenerate
    usage: Usage = Usage()  # what the model calls for this expansion cost so far (every round)
    cost: float = 0.0
    seconds: float = 0.0  # the model's time so far, never the person's
    cut_at: int | None = None  # the model's max_tokens cut this answer (the agent keeps what is whole)


def source_of(applied: str, proposed: str, rejected: bool) -> str:
    """Who wrote the applied text: the model, the model then the person, or the person."""
    if rejected:
        return HUMAN
    return MODEL if applied.strip() == proposed.strip() else EDITED


class ReviewLLM:
    """The model's answer waits for the person's decision before the agent sees it."""

    def __init__(self, model: LLM, on_proposal: Callable[[Proposal], object] | None = None) -> None:
        self.model = model
        self.on_proposal = on_proposal
        self.proposal: Proposal | None = None
        self.rejected = False  # the person threw the proposal away and types their own
        self._decision: asyncio.Future[tuple[str, str]] | None = None

    @property
    def name(self) -> str:
        return f"review:{self.model.name}"

    @property
    def waiting(self) -> bool:
        """A proposal is shown and awaits accept / regenerate / reject."""
        return self._decision is not None and not self._decision.done()

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion:
        """The model's time and the person's review time are measured apart (the journal keeps both)."""
        usage, cost, rounds = Usage(), 0.0, 0
        model_seconds = person_seconds = 0.0
        while True:
            began = time.monotonic()
            answer = await self.model.complete(prompt, context)  # an LLMError pauses the run as usual
            model_seconds += answer.seconds if answer.seconds is not None else time.monotonic() - began
            usage, cost, rounds = usage + answer.usage, cost + answer.cost, rounds + 1
            self.proposal = Proposal(prompt, context, answer.text, rounds, usage, cost, model_seconds, answer.cut_at)
            self.rejected = False
            self._decision = asyncio.get_running_loop().create_future()
            if self.on_proposal is not None:
                self.on_proposal(self.proposal)
            shown = time.monotonic()
            try:
                verb, text = await self._decision
            except asyncio.CancelledError:
                raise LLMError("the review was cancelled; resume the run to review the answer") from None
            finally:
                self._decision = None
                person_seconds += time.monotonic() - shown
            if verb == "regenerate":
                if answer.judged is not None:  # the person refused it: a response cache never serves it again
                    answer.judged(False)
                continue
            proposed = self.proposal.text
            source = source_of(text, proposed, self.rejected)
            self.proposal, self.rejected = None, False
            as_proposed = source == MODEL  # the model's answer as it came: the agent's verdict decides if it is kept
            if not as_proposed and answer.judged is not None:
                answer.judged(False)  # a person's text was applied instead: the model's is not kept
            return Completion(text, usage, cost, source, proposed=proposed, seconds=model_seconds,
                              person_seconds=person_seconds, cut_at=answer.cut_at if as_proposed else None,
                              judged=answer.judged if as_proposed else None)

    # -- the person's decisions ------------------------------------------------

    def accept(self, text: str | None = None) -> None:
        """Apply `text` (default: the proposal as is). After `reject` it counts as the person's own."""
        if not self.waiting or self.proposal is None:
            raise RuntimeError("no proposal is awaiting review")
        assert self._decision is not None
        self._decision.set_result(("accept", self.proposal.text if text is None else text))

    submit = accept  # the human LLM's verb, for callers that only know that one

    def regenerate(self) -> None:
        """Throw the proposal away and ask the model again (its usage still counts)."""
        if not self.waiting:
            raise RuntimeError("no proposal is awaiting review")
        assert self._decision is not None
        self._decision.set_result(("regenerate", ""))

    def reject(self) -> None:
        """The person will type the answer; the proposal is kept only as the record."""
        if not self.waiting:
            raise RuntimeError("no proposal is awaiting review")
        self.rejected = True

    def cancel(self) -> None:
        if self._decision is not None and not self._decision.done():
            self._decision.cancel()
        model = innermost(self.model)
        if isinstance(model, Cancellable):
            model.cancel()
