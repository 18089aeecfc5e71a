"""A scripted LLM that plays an environment's gold action sequence with an agent's own answers.

Tests and demos win real episodes with it, without a model. The answers are
the agent's own (`Stepper.gold_answers`: ReCode's a plan as code, ReAct's one
action a turn); the caller names the agent, there is no default one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from agent.runtime.capabilities import ScriptedAnswer
from mockllm.scripted import ScriptedLLM, ScriptEntry

if TYPE_CHECKING:
    from agent.runtime.stepper import Stepper

__all__ = ["gold_llm", "script_llm"]


def script_llm(answers: Sequence[ScriptedAnswer], name: str = "gold") -> ScriptedLLM:
    """A scripted LLM giving `answers` to the calls they name."""
    return ScriptedLLM([ScriptEntry(a.answer, stub=a.stub, purpose=a.purpose, once=a.once) for a in answers], name=name)


def gold_llm(agent: type[Stepper], actions: list[str]) -> ScriptedLLM:
    """A scripted LLM that answers `agent`'s calls from a gold action sequence, in the agent's own answers."""
    answers = agent.gold_answers(actions)
    if answers is None:
        raise ValueError(f"the {agent.name} agent declares no answers for a known solution (gold_answers)")
    return script_llm(answers)
