"""The LLM call as events, the same for every agent: requested, failed (retried), refused with the
reason and asked again, and finally the accepted `Answer`; counted in the run's `Stats`.

What an agent says about its answers is written here too, as hooks it overrides: `judge` (would
this answer be accepted; the console's editor calls it as a person types), `answer_skeleton`,
`cut_answer`/`cut_missing`/`cut_kept` (an answer cut at max_tokens), `describe_answer`, `rejected`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, replace
from typing import AsyncIterator, Callable, ClassVar

from agent.llm import LLM, CallContext, Completion, LLMError
from agent.llm.routing import RoutedLLM
from agent.runtime.answer_words import AnswerWords
from agent.runtime.costs import MAIN_ROLE, Stats, answered_event, exchange_record, rejected_event, timed
from agent.runtime.cut import cut_verdict
from agent.runtime.events import Event, LLMFailed, LLMRequested
from agent.runtime.limits import Limits
from agent.runtime.prompts import PromptSet, rejected_text, rewrite_note
from agent.runtime.step_loop import StepLoop
from agent.runtime.tree import Node
from agent.runtime.verdict import Verdict, blank, oversized

PERSON_SOURCES = ("human", "model+edited")  # answers a person typed or edited: they may be typed more loosely


@dataclass(frozen=True)
class Answer:
    """An accepted LLM answer, handed from `ask` to the agent (not an event: the agent
    yields its own `LLMAnswered` once it knows the child nodes)."""

    completion: Completion
    prompt: str
    verdict: Verdict
    attempt: int


class LLMCalls(StepLoop):
    """The part of an agent that asks its LLMs (one per role) and judges their answers."""

    llm: LLM  # the LLM of every role that has none of its own (the console's L switches it)
    role_llms: dict[str, LLM]
    limits: Limits
    prompts: PromptSet
    stats: Stats
    finished_reason: str  # set when a limit stops the run mid-episode (`ask`: too many refusals)
    answering_since: float | None  # monotonic time the LLM was asked, while it answers
    cancelled_wait: tuple[float, str] | None  # the seconds and role of a call cancelled while it waited
    # How the agent speaks of its answers to a person (every front end's editor says it so).
    answer_words: ClassVar[AnswerWords] = AnswerWords()

    # -- what an agent says about its answers -----------------------------------------

    def judge(self, text: str, purpose: str, role: str = MAIN_ROLE, *, typed: bool = True,
              known: frozenset[str] = frozenset()) -> Verdict:
        """Would this answer be accepted for a call of `purpose`/`role`? The console's editor
        judges what a person types with it, live; the agent judges every answer with it."""
        raise NotImplementedError

    def answer_skeleton(self, purpose: str, role: str = MAIN_ROLE) -> str:
        """The expected answer format, shown in an empty editor when a person answers."""
        return ""

    def cut_answer(self, text: str, purpose: str, role: str = MAIN_ROLE) -> str | None:
        """The part of an answer cut at max_tokens that is whole by itself (judged, then acted on), or None:
        refused with `cut_missing` and asked again (the default; helpers in `agent.runtime.cut`)."""
        return None

    def cut_missing(self, purpose: str, role: str = MAIN_ROLE) -> str:
        """What a cut answer lacked, in the agent's words ("before </execute>"), for the refusal."""
        return "before it ended"

    def cut_kept(self, purpose: str, role: str = MAIN_ROLE) -> str:
        """What `cut_answer` keeps of a cut answer, in the agent's words ("through its first whole
        `Action:` line"), for the editor's check line in review mode."""
        return "its whole part kept"

    def describe_answer(self, verdict: Verdict, purpose: str, role: str = MAIN_ROLE) -> str:
        """What an accepted answer will do, as the editor's check line says it ('' : the verdict's summary)."""
        return ""

    def rejected(self, answer: str, reason: str) -> tuple[str, str]:
        """A rejected answer as the retry prompt shows it, and the reason as it says it. Agents whose
        answers are code show the code numbered from its first line (`agent.runtime.prompts.rejected_code`)."""
        return rejected_text(answer), reason

    def rewrite_note(self, reason: str, answer: str = "") -> str:
        """What is added to the prompt after a refused answer: the answer and why it was refused
        (the same rule for every agent; `rejected` says how an agent shows its answers)."""
        shown, reason = self.rejected(answer, reason)
        return rewrite_note(self.prompts, reason, shown)

    # -- the LLMs by role -----------------------------------------------------------

    def llm_for(self, role: str = MAIN_ROLE) -> LLM:
        own = self.role_llms.get(role)
        if own is not None:
            return own
        # one LLM per role handed over whole (a fork's hand-back)
        return self.llm.for_role(role) if isinstance(self.llm, RoutedLLM) else self.llm

    def set_llm(self, llm: LLM, role: str | None = None) -> None:
        """Give `role` its own LLM; no role: the LLM of every role without one of its own."""
        if role is None or role == MAIN_ROLE:
            self.llm = llm
        else:
            self.role_llms[role] = llm

    # -- the call ---------------------------------------------------------------------

    answered = staticmethod(answered_event)  # the accepted-answer event for a completion, with its counts

    def judged(self, completion: Completion, purpose: str, role: str = MAIN_ROLE,
               known: frozenset[str] = frozenset()) -> Verdict:
        """`judge` on an answer as it came: typed loosely when a person typed or edited it."""
        return self.judge(completion.text, purpose, role, typed=completion.source in PERSON_SOURCES, known=known)

    def _verdict_on(self, completion: Completion, verdict_of: Callable[[Completion], Verdict], purpose: str,
                    role: str) -> tuple[Completion, Verdict]:
        """The size rule, then a cut answer's usable part (or a model's empty answer refused), then the
        agent's judgement: the completion judged (its usable part when cut) and the verdict."""
        verdict = oversized(completion.text)
        if verdict is None and completion.cut_at is not None:  # the model's answer, cut: the agent's rule
            completion, verdict = cut_verdict(completion, self.cut_answer(completion.text, purpose, role),
                                              self.cut_missing(purpose, role))
        elif verdict is None:  # the model's empty answer is refused before any agent reads it
            verdict = blank(completion.text, completion.source)
        return completion, verdict if verdict is not None else verdict_of(completion)

    async def ask(
        self,
        node: Node,
        base_prompt: str,
        purpose: str,
        judge: Callable[[Completion], Verdict] | None = None,
        role: str = MAIN_ROLE,
        context: CallContext | None = None,
    ) -> AsyncIterator[Event | Answer]:
        """One LLM call with its events: requested, failures (each retried), rejected and re-asked
        with the reason (up to `max_rewrite` times), and finally the accepted `Answer`.

        `judge` decides on each answer (default: `judged`, the agent's `judge` for this purpose and
        role). After too many refusals `finished_reason` is set and no `Answer` comes.
        """
        verdict_of = judge or (lambda completion: self.judged(completion, purpose, role))
        note = ""
        for attempt in range(1, self.limits.max_rewrite + 2):
            prompt = base_prompt + note
            yield LLMRequested(node.id, prompt=prompt, attempt=attempt, purpose=purpose, role=role)
            call = context if context is not None else CallContext(purpose=purpose, label=node.code)
            call = replace(call, role=role, attempt=attempt)
            completion = None
            failures = 0
            while completion is None:
                began = time.monotonic()
                self.answering_since, self.cancelled_wait = began, None
                try:
                    completion = await self.llm_for(role).complete(prompt, call)
                except LLMError as exc:
                    self.answering_since = None
                    failures += 1
                    waited = time.monotonic() - began
                    self.stats.failed(waited, role)
                    yield LLMFailed(node.id, error=str(exc), attempt=failures, seconds=waited, role=role,
                                    retry=exc.retry)
                except asyncio.CancelledError:  # called off (an eval's wall clock): how long it had waited
                    self.cancelled_wait = (time.monotonic() - began, role)
                    raise
                finally:
                    self.answering_since = None
            completion = timed(completion, time.monotonic() - began)
            self.stats.add(completion, role)
            # Off the event loop (the console's): a long answer takes a while to judge, and the
            # person's keys must still work meanwhile. In the env thread, where the agent's other
            # environment calls are (ReAct's judge asks the env which commands it takes).
            taken, verdict = await self.in_env_thread(self._verdict_on, completion, verdict_of, purpose, role)
            if taken.judged is not None:  # the response cache keeps only what an agent took
                taken.judged(verdict.accepted)
            if not verdict.accepted:
                node.llm_calls.append(exchange_record(prompt, taken, False, purpose, verdict.message))
                yield rejected_event(node.id, taken, verdict.message, attempt=attempt, purpose=purpose,
                                     role=role)
                note = await self.in_env_thread(self.rewrite_note, verdict.message, taken.text)  # parses it too
                continue
            node.llm_calls.append(exchange_record(prompt, taken, True, purpose))
            yield Answer(taken, prompt, verdict, attempt)
            return
        self.finished_reason = (
            f"rewrite limit: {self.limits.max_rewrite + 1} invalid answers in a row for `{node.code}`"
        )
