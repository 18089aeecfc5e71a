"""Replaying recorded answers and observations, checking each against the live run.

ALFWorld is deterministic given the game and the actions, and so is the
agent given the answers. Replaying a journal therefore rebuilds any earlier
state exactly; a replay that meets a different prompt or observation than the
recording stops with both texts, which is how a prompt or agent change is
caught.
"""

from __future__ import annotations

import difflib
from collections import deque
from dataclasses import dataclass
from agent.llm import LLM, CallContext, Completion, LLMError, Usage
from agent.runtime.recorded import ReplayMismatch
from envs.base import Env, Reset, StateView


@dataclass(frozen=True)
class RecordedAction:
    step: int
    action: str
    observation: str


@dataclass(frozen=True)
class RecordedAnswer:
    index: int  # the expansion's position in the run (1-based)
    node_id: str
    prompt: str
    answer: str
    source: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    prompt_hash: str | None = None  # set when made with another prompt set than the session header's
    prompt_set: str | None = None
    seconds: float | None = None  # how long the answer took when it was recorded (older journals: unknown)
    person_seconds: float = 0.0  # a person's share of that time (typing, reviewing)
    cut_at: int | None = None  # the model's max_tokens cut the answer
    estimated: bool = False  # its tokens were a script's estimate


def describe_difference(label: str, recorded: str, live: str) -> str:
    """One readable message: where two texts first differ, and a short unified diff."""
    diff = list(
        difflib.unified_diff(
            recorded.splitlines(), live.splitlines(), "recorded", "live", lineterm="", n=1
        )
    )
    shown = "\n".join(diff[:14]) + ("\n..." if len(diff) > 14 else "")
    return f"{label} differs from the recording\n{shown}"


class ReplayEnv(StateView):
    """The real environment, with each step checked against the recorded observation; its state (every
    optional capability included) is the real environment's `EnvState`, taken after each reset and step."""

    def __init__(self, env: Env, actions: list[RecordedAction]) -> None:
        self._env = env
        self.pending: deque[RecordedAction] = deque(actions)
        self.name, self.task_type, self.max_steps = env.name, env.task_type, env.max_steps
        self.seen = env.state()

    def reset(self) -> Reset:
        reset = self._env.reset()
        self.seen = self._env.state()
        return reset

    def step(self, action: str) -> str:
        recorded = self.pending.popleft() if self.pending else None
        if recorded is not None and action != recorded.action:
            raise ReplayMismatch(
                f"step {recorded.step}: the run sent {action!r} where the recording sent {recorded.action!r}"
            )
        observation = self._env.step(action)
        self.seen = self._env.state()
        if recorded is not None and observation != recorded.observation:
            raise ReplayMismatch(
                describe_difference(f"step {recorded.step} ({action}): the observation", recorded.observation, observation)
            )
        return observation

    # -- the calls of `Env`: the real environment's ----------------------------------------------------

    def close(self) -> None:
        self._env.close()

    def is_invalid(self, observation: str) -> bool:
        return self._env.is_invalid(observation)

    def translate(self, action: str) -> str:
        return self._env.translate(action)

    def abandon(self, reason: str) -> None:
        self._env.abandon(reason)


class ReplayLLM:
    """Recorded answers first (each prompt checked), then the live LLM."""

    def __init__(self, answers: list[RecordedAnswer], live: LLM) -> None:
        self.pending: deque[RecordedAnswer] = deque(answers)
        self.live = live
        self.name = live.name
        self.edited_sets: list[tuple[str, str]] = []  # (folder, hash) of edited sets met so far

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion:
        if not self.pending:
            return await self.live.complete(prompt, context)
        recorded = self.pending.popleft()
        if recorded.prompt_hash is not None:
            # The prompt set was edited during the recorded run (the prompt workspace):
            # the header's set cannot rebuild this prompt, so the recording is trusted.
            self.edited_sets.append((recorded.prompt_set or "", recorded.prompt_hash))
        elif prompt != recorded.prompt:
            where = f"answer {recorded.index} (node {recorded.node_id})"
            raise ReplayMismatch(describe_difference(f"{where}: the prompt", recorded.prompt, prompt))
        return Completion(
            recorded.answer, Usage(recorded.input_tokens, recorded.output_tokens), recorded.cost, recorded.source,
            seconds=recorded.seconds, person_seconds=recorded.person_seconds, cut_at=recorded.cut_at,
            estimated=recorded.estimated,
        )


class NoLiveLLM:
    """The live LLM of a replay that must not go past its recording (finding a journal's good prefix)."""

    name = "none"

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion:
        raise LLMError("the recording has no more answers (no live LLM behind this replay)")
