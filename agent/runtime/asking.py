"""The LLM call as events, the same for every agent: requested, failed (retried), refused with the
reason and asked again, and finally the accepted `Answer`; counted in the run's `Stats`.

`Stepper.ask` is what an author calls; the loop is here, reading what it needs of the agent
through `AnswerRules` (its prompt set, limits and its rules for cut and refused answers) and
of the host through the run's `RunHandle` (the LLM of each role, the wait being timed).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, replace
from typing import AsyncIterator, Callable, Protocol

from agent.llm import CallContext, Completion, LLMError
from agent.runtime.costs import Stats, exchange_record, rejected_event, timed
from agent.runtime.cut import cut_verdict
from agent.runtime.events import Event, LLMFailed, LLMRequested
from agent.runtime.limits import Limits
from agent.runtime.prompts import PromptSet, rewrite_note
from agent.runtime.run_handle import RunHandle
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


class AnswerRules(Protocol):
    """What the call loop reads of the agent (a `Stepper`): its settings now and its rules for answers."""

    limits: Limits
    prompts: PromptSet

    def cut_answer(self, text: str, purpose: str, role: str = ...) -> str | None: ...

    def cut_missing(self, purpose: str, role: str = ...) -> str: ...

    def rejected(self, answer: str, reason: str) -> tuple[str, str]: ...


def _verdict_on(rules: AnswerRules, completion: Completion, verdict_of: Callable[[Completion], Verdict],
                purpose: str, role: str) -> tuple[Completion, Verdict]:
    """The size rule, then a cut answer's usable part (or a model's empty answer refused), then the
    agent's judgement: the completion judged (its usable part when cut) and the verdict."""
    verdict = oversized(completion.text)
    if verdict is None and completion.cut_at is not None:  # the model's answer, cut: the agent's rule
        completion, verdict = cut_verdict(completion, rules.cut_answer(completion.text, purpose, role),
                                          rules.cut_missing(purpose, role))
    elif verdict is None:  # the model's empty answer is refused before any agent reads it
        verdict = blank(completion.text, completion.source)
    return completion, verdict if verdict is not None else verdict_of(completion)


def _rewrite_note(rules: AnswerRules, reason: str, answer: str) -> str:
    """What is added to the prompt after a refused answer: the answer and why it was refused
    (the same rule for every agent; `rejected` says how an agent shows its answers)."""
    shown, reason = rules.rejected(answer, reason)
    return rewrite_note(rules.prompts, reason, shown)


async def asked(host: RunHandle, rules: AnswerRules, stats: Stats, node: Node, base_prompt: str, purpose: str,
                verdict_of: Callable[[Completion], Verdict], role: str,
                context: CallContext | None) -> AsyncIterator[Event | Answer]:
    """`Stepper.ask`'s events: each attempt requested, its failures retried, a refused answer asked
    again with the reason, up to `max_rewrite` times; the accepted `Answer` last, or none."""
    note = ""
    for attempt in range(1, rules.limits.max_rewrite + 2):
        prompt = base_prompt + note
        yield LLMRequested(node.id, prompt=prompt, attempt=attempt, purpose=purpose, role=role)
        call = context if context is not None else CallContext(purpose=purpose, label=node.code)
        call = replace(call, role=role, attempt=attempt)
        completion = None
        failures = 0
        while completion is None:
            began = time.monotonic()
            host.answering_since, host.cancelled_wait = began, None
            try:
                completion = await host.llm_for(role).complete(prompt, call)
            except LLMError as exc:
                host.answering_since = None
                failures += 1
                waited = time.monotonic() - began
                stats.failed(waited, role)
                yield LLMFailed(node.id, error=str(exc), attempt=failures, seconds=waited, role=role,
                                retry=exc.retry)
            except asyncio.CancelledError:  # called off (an eval's wall clock): how long it had waited
                host.cancelled_wait = (time.monotonic() - began, role)
                raise
            finally:
                host.answering_since = None
        completion = timed(completion, time.monotonic() - began)
        stats.add(completion, role)
        # Off the event loop (the console's): a long answer takes a while to judge, and the
        # person's keys must still work meanwhile. In the env thread, where the agent's other
        # environment calls are (ReAct's judge asks the env which commands it takes).
        taken, verdict = await host.in_env_thread(_verdict_on, rules, completion, verdict_of, purpose, role)
        if taken.judged is not None:  # the response cache keeps only what an agent took
            taken.judged(verdict.accepted)
        if not verdict.accepted:
            node.llm_calls.append(exchange_record(prompt, taken, False, purpose, verdict.message))
            yield rejected_event(node.id, taken, verdict.message, attempt=attempt, purpose=purpose, role=role)
            note = await host.in_env_thread(_rewrite_note, rules, verdict.message, taken.text)  # parses it too
            continue
        node.llm_calls.append(exchange_record(prompt, taken, True, purpose))
        yield Answer(taken, prompt, verdict, attempt)
        return
