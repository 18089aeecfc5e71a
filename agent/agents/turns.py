"""The turn loop ReAct and CodeAct share: ask the LLM for one turn, carry it out, repeat until done.

A turn-based agent's root is the task; each turn is a child of the root, labelled
`{noun} N` (its `traits.answer_words.noun`: turn, cell) while it is asked for (purpose `act`, what a script's `stub:` can
name), then labelled with the answer's one block (an action, a cell's code):

    turn:  NodeStarted -> LLMRequested "act" [-> LLMRejected -> ...]
    root:  LLMAnswered, child_ids = the turn
    turn:  (what `take_turn` yields) ... -> NodeCompleted | NodeError

The answer is reported on the root (the turn is a child it made), so the console's
tree adds the turn under the task as it adds ReCode's children. The run ends when
the environment is done, when `limit_reached` says so before a turn, after too many
invalid answers, or when a turn sets `finished_reason`. A subclass writes only what
differs: `take_turn`, `prompt` (`turn_prompt` fills what every turn's prompt shows), and
the limit if it has one.
"""

from __future__ import annotations

from string import Template
from typing import Any, AsyncIterator, Awaitable, ClassVar, Generic, TypeVar

from agent.llm import Purpose
from agent.runtime.events import Event
from agent.runtime.prompts import window_text
from agent.runtime.answer_words import AnswerWords
from agent.runtime.asking import Answer
from agent.runtime.stepper import Stepper
from agent.runtime.traits import AgentTraits
from agent.runtime.tree import Node
from agent.runtime.verdict import Verdict

PURPOSE = Purpose.ACT
T = TypeVar("T")


def windowed(items: list[T], window: int, noun: str) -> tuple[list[str], list[tuple[int, T]]]:
    """The window's header lines (which earlier `noun`s the prompt leaves out) and the numbered
    items it shows, oldest first; with `window` 0, all of them."""
    shown = items[-window:] if window > 0 else items
    hidden = len(items) - len(shown)
    header = [f"({noun}s 1-{hidden} are not shown: only the last {window} {noun}s are kept)", ""] if hidden else []
    return header, list(enumerate(shown, start=hidden + 1))


class TurnAgent(Stepper, Generic[T]):
    """An agent that asks one turn at a time under the root and keeps each finished one in `turns`."""

    # A turn's label and the prompt's number field are the noun its answers go by ("turn", "cell").
    traits: ClassVar[AgentTraits] = AgentTraits(structure_title="Turns", answer_words=AnswerWords(noun="turn"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.turns: list[T] = []  # the finished turns, as later prompts and the view show them

    def limit_reached(self) -> str:
        """Why no further turn may be asked ('' while one may): the run ends with it, lost."""
        return ""

    def take_turn(self, node: Node, verdict: Verdict) -> AsyncIterator[Event]:
        """Carry out the accepted answer in `node` (labelled with its block), ending with the node's
        event, and keep the finished turn in `turns`; set `finished_reason` to end the run."""
        raise NotImplementedError(f"{type(self).__name__} must define take_turn()")

    def prompt(self) -> str | Awaitable[str]:
        """The whole prompt of the next turn."""
        raise NotImplementedError(f"{type(self).__name__} must define prompt()")

    async def episode(self) -> AsyncIterator[Event]:
        async for event in self.open_episode():  # code answers find `instruction` and `observation`
            yield event
        root = self.tree.root
        while not self.env.done:
            limit = self.limit_reached()
            if limit:
                yield self.finish(False, limit)
                return
            answer: Answer | None = None
            async for item in self.ask_child(root, f"{self.traits.answer_words.noun} {len(self.turns) + 1}", self.prompt, PURPOSE):
                if isinstance(item, Answer):
                    answer = item
                else:
                    yield item
            if answer is None:  # refused too often: the episode has finished
                return
            node = self.current
            assert node is not None
            verdict = answer.verdict
            node.code, node.thought = verdict.blocks[0], verdict.thought
            yield self.answered(root.id, answer.completion, thought=verdict.thought, blocks=(node.code,),
                                child_ids=(node.id,), purpose=PURPOSE)
            async for event in self.take_turn(node, verdict):
                yield event
            if self.finished_reason:
                yield self.finish(self.env.won, "won" if self.env.won else self.finished_reason)
                return
        async for event in self.close_root(root):
            yield event


def turn_at_hand(agent: TurnAgent[Any]) -> Node | None:
    """The turn being asked for or carried out, once it has started (None between turns and once done)."""
    children = agent.tree.root.children
    return children[-1] if children and len(children) > len(agent.turns) and not agent.host.done else None


def turn_prompt(agent: TurnAgent[Any], window: int, **fields: str) -> str:
    """The agent's main prompt file with what every turn's prompt shows (the environment's actions,
    facts and examples, the task, the first observation, the window, the turn's number and the
    steps left) and the agent's own `fields`. Functions, not methods: an agent's namespace keeps
    only its author's hooks."""
    env, prompts = agent.env, agent.prompts
    left = max(0, env.max_steps - env.steps)
    return Template(prompts.text(agent.main_prompt_file)).safe_substitute(
        actions=prompts.actions(env.name),
        facts=prompts.facts(env.name),
        examples=prompts.examples(env.name, env.task_type, required=False) or "(no examples)",
        task=agent.task,
        observation=agent.first_observation,
        window=window_text(window, agent.traits.answer_words.noun),
        steps_left=str(left),
        max_steps=str(env.max_steps),
        **{agent.traits.answer_words.noun: str(len(agent.turns) + 1)},
        **fields,
    )
