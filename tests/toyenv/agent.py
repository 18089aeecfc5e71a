"""A throwaway agent for tests: ask the LLM for one action per turn, send it, repeat.

It is written only against the agent seam's public API (`agent.runtime.stepper.Stepper`:
`episode`, `open_episode`, `ask_child`, `accepted`, `act`, `completed`, `close_root`),
the way a new agent package would be, so a test driving it through `run`, the console,
a resume and `eval` shows that no module outside its own file needs to know it.
Each turn is a node of the tree (`turn 1`, `turn 2`, ...) under the task.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import AsyncIterator

from agent.llm import Purpose
from agent.runtime.capabilities import ScriptedAnswer
from agent.runtime.events import Event
from agent.runtime.asking import Answer
from agent.runtime.costs import MAIN_ROLE
from agent.runtime.stepper import Stepper
from agent.runtime.traits import AgentTraits
from agent.runtime.verdict import Verdict

NAME = "one-action"
PURPOSE = Purpose.ACT
_ACTION = re.compile(r"^\s*action\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)


class OneActionAgent(Stepper):
    """One LLM call, one action, one turn node; until the episode ends or `max_turns`."""

    name = NAME
    traits = AgentTraits(structure_title="Turns",
                         demo_scripts={"toy": Path(__file__).resolve().parent / "scripts" / "coin.yaml"})  # `--llm demo` on toy
    default_prompts = Path(__file__).resolve().parent / "prompts"
    main_prompt_file = "act.txt"
    option_defaults = {"max_turns": 50}

    @classmethod
    def gold_answers(cls, actions: list[str]) -> list[ScriptedAnswer]:
        """`--llm gold`: one `Action:` answer per action of the known solution, in turn."""
        return [ScriptedAnswer(f"Action: {action}", PURPOSE, once=True) for action in actions]

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

    async def episode(self) -> AsyncIterator[Event]:
        async for event in self.open_episode():  # resets the environment; the root (`task`) is running
            yield event
        root, observation = self.tree.root, self.first_observation
        turn = 0
        while not self.env.done and turn < int(self.options["max_turns"]):
            turn += 1
            answer: Answer | None = None
            # the turn's node starts first (the console's tree pane draws it), then the LLM is asked
            async for item in self.ask_child(root, f"turn {turn}", lambda: self._prompt(observation), PURPOSE):
                if isinstance(item, Answer):
                    answer = item
                else:
                    yield item
            if answer is None:  # too many refusals: the turn erred and the run finished
                return
            node = self.current
            assert node is not None
            yield self.accepted(node, answer, purpose=PURPOSE)
            async for event in self.act(node, answer.verdict.blocks[0]):
                yield event
            observation = node.observations[-1]
            yield self.completed(node, observation)
        async for event in self.close_root(root, f"turn limit reached ({self.options['max_turns']} turns)"):
            yield event
