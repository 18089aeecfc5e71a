"""Environment actions as events: one path from an action to its `ActionSent` and `ObservationReceived`.

Every action of every agent goes through `ActionPath.send`, whether the agent
names it (`act`: ReAct's turn, a ReCAP or Plan-and-Execute primitive) or the code it
wrote calls `run(...)` in the runner (`run_code`: ReCode's nodes, CodeAct's cells). So the
length cap, the refusal count, the step number and the environment's thread are one
rule, and a debugger stops between any two actions, of a loop too. The agent holds one
`ActionPath` and its `act` and `run_code` hand to it.
"""

from __future__ import annotations

from typing import Any, AsyncIterator, Awaitable, Callable

from agent.runtime.actions import check_refusals, cut_action, too_long
from agent.runtime.costs import Stats
from agent.runtime.events import ActionSent, Event, ObservationReceived, VariablesChanged
from agent.runtime.runner import ActionRequest, CodeRunner, NodeOutcome
from agent.runtime.tree import Node
from envs.base import Env

InEnvThread = Callable[..., Awaitable[Any]]


class ActionPath:
    """How one run's actions reach its environment: `act` for an action the agent names, `run_code` for code."""

    def __init__(self, env: Env, runner: CodeRunner, stats: Stats, in_env_thread: InEnvThread) -> None:
        self.env = env
        self.runner = runner
        self.stats = stats  # the run's counts: a refused action is counted there
        self.in_env_thread = in_env_thread

    async def act(self, node: Node, action: str, line: int = 0) -> AsyncIterator[Event]:
        """Send one action for `node`: the action event, then the observation event; the observation
        is kept in `node.observations` (an agent reads the latest there)."""
        async for event in self.send(node, action, line):
            if isinstance(event, ObservationReceived):
                node.observations.append(event.observation)
            yield event

    async def run_code(self, node: Node, code: str | None = None) -> AsyncIterator[Event | NodeOutcome]:
        """Run code (the node's own by default) in the runner, one action at a time: each `run()` is an
        action event and an observation event, so a debugger can stop between two actions of a loop.
        Then the `VariablesChanged` of what the code changed, and last the runner's `NodeOutcome`
        (not an event: the agent settles it)."""
        await self.runner.start(node.code if code is None else code)
        while True:
            message = await self.runner.next_message()
            if isinstance(message, NodeOutcome):
                if message.changes:
                    yield VariablesChanged(node.id, changes=message.changes)
                yield message
                return
            assert isinstance(message, ActionRequest)
            observation = ""
            async for event in self.send(node, message.action, message.line, message.length):
                if isinstance(event, ObservationReceived):
                    observation = event.observation
                yield event
            self.runner.answer(observation, stop=self.env.done)

    async def send(self, node: Node, action: str, line: int = 0, length: int = 0) -> AsyncIterator[Event]:
        """The one action path: `ActionSent`, the step (in the environment's thread), `ObservationReceived`.
        An action too long to send is refused (no step; the refusal is its observation) and counted:
        too many refused actions end the run."""
        number = self.env.steps + 1
        refusal = too_long(action, length)
        if refusal:
            self.stats.refused_actions += 1
            check_refusals(self.stats.refused_actions)
        shown = cut_action(action, length) if refusal else action
        yield ActionSent(node.id, action=shown, step=number, line=line)
        observation = refusal or await self._env_step(action)
        yield ObservationReceived(node.id, action=shown, observation=observation, step=number,
                                  done=self.env.done, won=self.env.won, refused=bool(refusal),
                                  invalid=not refusal and self.env.is_invalid(observation))

    async def _env_step(self, action: str) -> str:
        """One environment step, off the event loop: the env's own `step_async` when it has one
        (ScienceWorld's waits on its simulator thread, saving a hop), else `step` in the env thread.

        Only a `step_async` of the env's own class counts: a wrapper that checks or records `step`
        (a replay) and hands other names to the env it wraps must not be bypassed.
        """
        # dynamic: looked up on the env's own class, never through a wrapper's __getattr__ (see above)
        step_async = getattr(type(self.env), "step_async", None)  # dynamic: an optional method of the class
        if step_async is not None:
            return await step_async(self.env, action)
        return await self.in_env_thread(self.env.step, action)
