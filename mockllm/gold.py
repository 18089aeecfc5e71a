"""A scripted LLM that plays an environment's gold action sequence with an agent's own answers.

Tests and demos win real episodes with it, without a model. The answers are
the agent's (`Stepper.gold_answers`); by default ReCode's plan
(`agent.agents.recode.gold_plan`: one placeholder per sub-goal, each answered with its actions).
"""

from __future__ import annotations

from typing import Sequence

from agent.runtime.capabilities import ScriptedAnswer
from agent.agents.recode.gold_plan import ROOT_STUB, gold_plan, placeholder_name, split_into_parts
from mockllm.scripted import ScriptedLLM, ScriptEntry

__all__ = ["ROOT_STUB", "gold_entries", "gold_llm", "placeholder_name", "script_llm", "split_into_parts"]


def script_llm(answers: Sequence[ScriptedAnswer], name: str = "gold") -> ScriptedLLM:
    """A scripted LLM giving `answers` to the calls they name."""
    return ScriptedLLM([ScriptEntry(a.answer, stub=a.stub, purpose=a.purpose, once=a.once) for a in answers], name=name)


def gold_entries(actions: list[str], max_parts: int = 8) -> list[ScriptEntry]:
    return script_llm(gold_plan(actions, max_parts)).entries


def gold_llm(actions: list[str], max_parts: int = 8) -> ScriptedLLM:
    """A scripted LLM that answers ReCode's root and each sub-goal from a gold action sequence."""
    return script_llm(gold_plan(actions, max_parts))
