"""The one thing the agent asks of any LLM: complete a prompt.

A remote model, a person typing in the console and a scripted replay all
implement `LLM`; the agent never knows which one it talks to.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, TypeGuard, runtime_checkable

if TYPE_CHECKING:
    from agent.llm.profiles import Profile


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens)


@dataclass(frozen=True)
class Completion:
    text: str
    usage: Usage = field(default_factory=Usage)
    cost: float = 0.0
    source: str = "model"  # "model", "human", "scripted", "demo", "journal"; reviewed: "model", "model+edited", "human"
    proposed: str | None = None  # in review mode: what the model proposed before the person decided
    seconds: float | None = None  # how long the answer took, when the LLM knows better than a clock (a replay)
    person_seconds: float = 0.0  # of the wait, a person's share (typing, reviewing): never model time
    cached: bool = False  # answered from the response cache (agent.llm.cache): no model call, no cost
    cut_at: int | None = None  # the model stopped at this max_tokens before it ended (finish_reason "length")
    cut_rest: str = ""  # of an answer cut at max_tokens and taken: the part after the whole part the agent used
    estimated: bool = False  # the usage is a guess (a script's: a quarter of the characters), not a model's count
    # Told whether the agent took the answer (`Stepper.ask` calls it once, after judging): the response
    # cache keeps only answers an agent took, and drops a kept one an agent refused.
    judged: Callable[[bool], None] | None = field(default=None, compare=False, repr=False)


class Purpose(str, Enum):
    """What an LLM call is for, as events, journals and scripts record it (the values are the stored words).

    A field typed `str` takes any of these, and a plug-in agent may name its own purpose in plain text.
    Each member is its value as text (`str`, `format`, JSON), as `enum.StrEnum` would be on 3.11+.
    """

    EXPAND = "expand"  # ReCode: write a stub's body (the default of journals from before purposes)
    REPAIR = "repair"  # a node raised: write it again
    ACT = "act"  # ReAct, CodeAct, Plan-and-Execute's executor: the next action
    PLAN = "plan"  # Plan-and-Execute's first plan
    REPLAN = "replan"  # Plan-and-Execute's plan after a step
    DECOMPOSE = "decompose"  # ReCAP: split a task into subtasks
    REFINE = "refine"  # ReCAP: revise the remaining subtasks

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


@dataclass(frozen=True)
class CallContext:
    """What an agent tells its LLM about a call beside the prompt, the same words for every agent.

    A non-model LLM (a script, a person's editor, a replay, a review) picks or labels its answer by
    it without parsing the prompt. `notes` is the agent's own (ReCode: the stub's name); only the
    agent that wrote them reads them.
    """

    purpose: str = ""  # what the call is for: a `Purpose`, or a plug-in agent's own word
    role: str = ""  # the LLM role asking ('' : the agent's main role)
    label: str = ""  # the node's code as the tree shows it (ReCode: the stub's call; ReAct: the turn)
    attempt: int = 1  # 1, then one more each time a refused answer is asked again
    notes: Mapping[str, str] = field(default_factory=dict)


@runtime_checkable
class LLM(Protocol):
    """`complete` may take seconds (a model) or minutes (a person); it is always awaited."""

    @property
    def name(self) -> str: ...  # read-only here: a plain attribute or a property (a wrapper's) both fit

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion: ...


@runtime_checkable
class InteractiveLLM(Protocol):
    """An LLM a person answers through a front end (the console's editor, the plain mode).

    `complete` parks until the front end calls `submit` (or `cancel`); while it
    waits, `waiting` is true and `prompt`/`context` say what is asked. The
    debugger, the console and the plain mode ask `is_interactive` instead of
    each having their own test for "is this a person".
    """

    name: str
    prompt: str
    context: CallContext | None

    @property
    def waiting(self) -> bool: ...

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion: ...

    async def asked(self) -> None:
        """Return once a request is waiting for the person."""
        ...

    def submit(self, text: str, person_seconds: float | None = None) -> None: ...

    def cancel(self) -> None: ...


async def asked_before(llm: InteractiveLLM, work: "asyncio.Future[Any]") -> bool:
    """Wait until the person's LLM is asked (True) or `work` ends first without asking (False).

    The debugger and the plain mode resume the run, then hand the person's
    answer over once the run has asked for it; no polling.
    """
    asked = asyncio.ensure_future(llm.asked())
    either: set[asyncio.Future[Any]] = {asked, work}
    done, _ = await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
    if asked in done:
        return True
    asked.cancel()
    return False


@runtime_checkable
class Cancellable(Protocol):
    """An LLM whose waiting call can be called off (a person's, a review's)."""

    def cancel(self) -> None: ...


@runtime_checkable
class ModelLLM(Protocol):
    """An LLM that asks a model through a profile (OpenAILLM): its requests can be cached and its
    model's tokens counted. Scripts, journals and people are not model LLMs."""

    profile: "Profile"

    def request(self, prompt: str) -> dict[str, Any]: ...


@runtime_checkable
class WrappingLLM(Protocol):
    """An LLM that hands every name it does not define itself on to `inner` (the response cache,
    a chosen answer, a routed LLM's default): what it can do beyond `complete` is what `inner` can.

    Its capabilities are read from `innermost(llm)`: Python 3.12's `isinstance` against a protocol
    looks names up statically and does not see those handed on with `__getattr__`.
    """

    @property
    def inner(self) -> LLM: ...


def innermost(llm: object) -> object:
    """The LLM behind any `WrappingLLM`s (`llm` itself when it wraps none)."""
    for _ in range(32):  # wrappers nest a few deep; a mock that claims every name is not followed forever
        if not isinstance(llm, WrappingLLM):
            break
        llm = llm.inner
    return llm


def is_interactive(llm: object) -> TypeGuard[InteractiveLLM]:
    """Whether a person answers this LLM's calls (the human LLM, or a wrapper of it that goes by its
    name; a review wrapper is not: the model answers)."""
    return isinstance(llm, LLM) and llm.name == "human" and isinstance(innermost(llm), InteractiveLLM)


class LLMError(Exception):
    """The LLM could not answer (scripted answer missing, server down, ...).

    The message is one line that says what to do. `retry` is False when asking again at once
    cannot help: the call's one deadline passed (an evaluation then does not retry it).
    """

    def __init__(self, message: str = "", *, retry: bool = True) -> None:
        super().__init__(message)
        self.retry = retry
