"""An LLM that gives one chosen answer next, then hands over to the LLM it wraps.

The prompt workspace uses it to continue a paused run with an answer the
person picked from a comparison: the agent asks its LLM as usual and gets
the chosen text, recorded with the source that produced it.
"""

from __future__ import annotations

from typing import Any

from agent.llm import LLM, CallContext, Completion, Usage


class ChosenAnswerLLM:
    def __init__(self, answer: str, source: str, inner: LLM) -> None:
        self.answer = answer
        self.source = source
        self.inner = inner
        self.name = inner.name
        self.used = False

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion:
        if not self.used:
            self.used = True
            return Completion(self.answer, Usage(), 0.0, self.source)
        return await self.inner.complete(prompt, context)

    def __getattr__(self, name: str) -> Any:  # profile, cancel, ...: the wrapped LLM's
        # Only called for names not found on self. Before __init__ ran (copy, pickle)
        # there is no `inner`: asking self.inner here would call __getattr__ forever.
        if name.startswith("__") or "inner" not in self.__dict__:
            raise AttributeError(name)
        return getattr(self.inner, name)  # dynamic: any name the wrapped LLM has
