"""A throwaway agent for tests: ask the LLM for one action per turn, send it, repeat.

It is written only against the agent seam (`agent.runtime.stepper.Stepper`), the way a
new agent package would be, so a test driving it through `run`, the console,
a resume and `eval` shows that no module outside its own file needs to know it.
Each turn is a node of the tree (`turn 1`, `turn 2`, ...) under the task.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import AsyncIterator

from agent.runtime.events import Event, ExpansionReceived, NodeCompleted, NodeStarted, RunStarted
from agent.runtime.stepper import MAIN_ROLE, Answer, Stepper
from agent.runtime.tree import NodeStatus
from agent.runtime.verdict import Verdict

NAME = "one-action"
PURPOSE = "act"
_ACTION = re.compile(r"^\s*action\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)


class OneActionAgent(Stepper):
    """One LLM call, one action, one turn node; until the episode ends or `max_turns`."""

    name = NAME
    structure_title = "Turns"
    default_prompts = Path(__file__).resolve().parent / "prompts"
    main_prompt_file = "act.txt"
    option_defaults = {"max_turns": 50}
    root_code = "task"

    def judge(self, text: str, purpose: str, role: str = MAIN_ROLE, *, typed: bool = True,
              known: frozenset[str] = frozenset()) -> Verdict:
        found = _ACTION.findall(text)
        if len(found) != 1:
            why = "no `Action:` line" if not found else f"{len(found)} `Action:` lines"
            return Verdict(False, message=f"{why}; answer with exactly one line `Action: <the action>`")
        thought = _ACTION.split(text)[0].strip()
        return Verdict(True, blocks=(found[0],), thought=thought)

    def answer_skeleton(self, purpose: str, role: str = MAIN_ROLE) -> str:
        return "Action: "

    def _prompt(self, observation: str) -> str:
        template = self.prompts.text(self.main_prompt_file)
        history = "\n".join(f"> {a}\n{o}" for a, o in self.recent.last()) or "(none yet)"
        return (template.replace("{task}", self.task).replace("{history}", history)
                .replace("{observation}", observation))

    async def _episode(self) -> AsyncIterator[Event]:
        reset = await self._in_env_thread(self.env.reset)
        self.task = reset.instruction
        root = self.tree.root
        root.status = NodeStatus.RUNNING
        yield RunStarted(root.id, task=reset.instruction, instruction=reset.instruction,
                         observation=reset.observation, task_type=self.env.task_type)
        observation = reset.observation
        turn = 0
        while not self.env.done and turn < int(self.options["max_turns"]):
            turn += 1
            [node] = self.tree.add_children(root, [f"turn {turn}"])
            self.current = node
            node.status = NodeStatus.RUNNING
            yield NodeStarted(node.id, code=node.code, depth=node.depth)
            answer: Answer | None = None
            judge = lambda completion: self.judge(completion.text, PURPOSE)  # noqa: E731
            async for item in self.ask(node, self._prompt(observation), PURPOSE, judge):
                if isinstance(item, Answer):
                    answer = item
                else:
                    yield item
            if answer is None:  # too many refusals: `ask` set finished_reason
                yield self._finish(False, self.finished_reason)
                return
            completion, action = answer.completion, answer.verdict.blocks[0]
            node.thought = answer.verdict.thought
            yield ExpansionReceived(
                node.id, raw=completion.text, thought=node.thought, blocks=(action,), child_ids=(),
                source=completion.source, input_tokens=completion.usage.input_tokens,
                output_tokens=completion.usage.output_tokens, cost=completion.cost, proposed=completion.proposed,
                seconds=completion.seconds or 0.0, person_seconds=completion.person_seconds, purpose=PURPOSE,
            )
            async for event in self.act(node, action):
                yield event
            observation = node.observations[-1]
            node.status = NodeStatus.COMPLETED
            yield NodeCompleted(node.id, output=observation)
        root.status = NodeStatus.COMPLETED
        if self.env.won:
            yield self._finish(True, "won")
        elif self.env.done:
            yield self._finish(False, self.end_reason())
        else:
            yield self._finish(False, f"turn limit reached ({self.options['max_turns']} turns)")
