"""An agent author who subclasses `TurnAgent` writes only what a turn does, its prompt and its limit:
the loop, the `turn N` nodes, the answer reported on the root and the run's end are the base's."""

from __future__ import annotations

from typing import AsyncIterator

from agent.agents.turns import TurnAgent, turn_at_hand
from agent.llm import CallContext, Completion, Purpose
from agent.runtime import events as ev
from agent.runtime.costs import MAIN_ROLE
from agent.runtime.thread_runner import ThreadRunner
from agent.runtime.tree import Node
from agent.runtime.verdict import Verdict
from mockllm.scripted import ScriptedLLM, ScriptEntry
from tests.toyenv.world import ToyProvider

SOLUTION = ["go to shelf 1", "take coin 1 from shelf 1"]  # the toy episode coin-1's known path


class EchoTurns(TurnAgent[str]):
    """Sends each answer's text as the action; keeps the observations; at most `max_turns` turns."""

    name = "echo-turns"
    option_defaults = {"max_turns": 10}

    def judge(self, text: str, purpose: str, role: str = MAIN_ROLE, *, typed: bool = True,
              known: frozenset[str] = frozenset()) -> Verdict:
        return Verdict(True, blocks=(text.strip(),), thought="")

    def prompt(self) -> str:
        return f"{self.task}\nturns so far: {len(self.turns)}"

    def limit_reached(self) -> str:
        return "too many turns" if len(self.turns) >= int(self.options["max_turns"]) else ""

    async def take_turn(self, node: Node, verdict: Verdict) -> AsyncIterator[ev.Event]:
        observation = ""
        async for event in self.act(node, node.code):
            if isinstance(event, ev.ObservationReceived):
                observation = event.observation
            yield event
        self.turns.append(observation)
        yield self.completed(node, observation)


def _agent(answers: list[str], **options: int) -> EchoTurns:
    llm = ScriptedLLM([ScriptEntry(a, purpose=Purpose.ACT, once=True) for a in answers])
    return EchoTurns(ToyProvider().make_env("coin-1"), llm, ThreadRunner(), options=dict(options))


async def test_a_turn_agent_draws_one_node_per_turn_and_ends_when_the_environment_is_won() -> None:
    agent = _agent(SOLUTION)
    events: list[ev.Event] = []
    finished = await agent.run(events.append)
    started = [e.code for e in events if isinstance(e, ev.NodeStarted)]
    assert started == ["task", "turn 1", "turn 2"]  # the root, then each turn as it is asked for
    answered = [e for e in events if isinstance(e, ev.LLMAnswered)]
    assert [e.node_id for e in answered] == [agent.tree.root.id] * 2  # reported on the root, which made the turn
    assert [child.code for child in agent.tree.root.children] == SOLUTION  # each turn labelled with its action
    assert finished.success and len(agent.turns) == 2 and turn_at_hand(agent) is None


async def test_the_authors_limit_ends_the_run_lost_with_its_reason() -> None:
    agent = _agent(["look", "look"], max_turns=1)
    finished = await agent.run()
    assert not finished.success and finished.reason == "too many turns"
    assert [child.code for child in agent.tree.root.children] == ["look"]


class Listening:
    """Answers from a script and keeps what each call told it beside the prompt."""

    name = "listening"

    def __init__(self, script: ScriptedLLM) -> None:
        self.script, self.told = script, list[CallContext | None]()

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion:
        self.told.append(context)
        return await self.script.complete(prompt, context)


async def test_the_llm_is_told_each_calls_purpose_role_node_and_attempt_in_the_protocols_own_words() -> None:
    """A script, a person's editor or a replay picks its answer by these without parsing the prompt or
    knowing one agent's words; a refused answer is asked again as attempt 2."""
    class Picky(EchoTurns):
        def judge(self, text: str, purpose: str, role: str = MAIN_ROLE, *, typed: bool = True,
                  known: frozenset[str] = frozenset()) -> Verdict:
            return Verdict(False, message="no") if text == "dance" else super().judge(text, purpose, role)

    llm = Listening(ScriptedLLM([ScriptEntry(a, purpose=Purpose.ACT, once=True) for a in ["dance", *SOLUTION]]))
    agent = Picky(ToyProvider().make_env("coin-1"), llm, ThreadRunner())
    assert (await agent.run()).success
    assert llm.told == [CallContext(purpose=Purpose.ACT, role=MAIN_ROLE, label="turn 1", attempt=1),
                        CallContext(purpose=Purpose.ACT, role=MAIN_ROLE, label="turn 1", attempt=2),
                        CallContext(purpose=Purpose.ACT, role=MAIN_ROLE, label="turn 2", attempt=1)]
