"""The person at the console acting as the LLM.

`complete` parks on a future until the UI calls `submit` (or `cancel`). The
agent never knows that a person answered; the UI decides what to show while
the future is pending.
"""

from __future__ import annotations

import asyncio

from agent.llm import CallContext, Completion, LLMError, Usage


class HumanLLM:
    name = "human"

    def __init__(self) -> None:
        self._pending: asyncio.Future[str] | None = None
        self._asked = asyncio.Event()  # set while a request waits for the person
        self._person_seconds = 0.0  # the person's time on the answer, when the front end knows it better
        self.prompt: str = ""
        self.context: CallContext | None = None

    @property
    def waiting(self) -> bool:
        return self._pending is not None and not self._pending.done()

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion:
        self.prompt, self.context = prompt, context
        self._pending = asyncio.get_running_loop().create_future()
        self._asked.set()
        try:
            text = await self._pending
        except asyncio.CancelledError:
            raise LLMError("the call was cancelled; resume the run to answer it") from None
        finally:
            self._pending = None
            self._asked.clear()
        seconds, self._person_seconds = self._person_seconds, 0.0
        return Completion(text, Usage(), 0.0, "human", person_seconds=seconds)

    async def asked(self) -> None:
        """Return once a request is waiting for the person."""
        await self._asked.wait()

    def submit(self, text: str, person_seconds: float | None = None) -> None:
        """Hand the person's answer to the waiting agent; `person_seconds`: how long they took,
        when the front end asked them before the agent called `complete` (the console's stops)."""
        if self._pending is None or self._pending.done():
            raise RuntimeError("no LLM call is awaiting an answer")
        self._person_seconds = max(0.0, person_seconds or 0.0)
        self._pending.set_result(text)

    def cancel(self) -> None:
        if self._pending is not None and not self._pending.done():
            self._pending.cancel()
