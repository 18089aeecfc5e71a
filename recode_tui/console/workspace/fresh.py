"""A fresh LLM for a comparison, never a copy of the run's LLM object.

An LLM may hold a network client, a future a person answers, or wrap another
LLM (`ChosenAnswerLLM`, `ReviewLLM`, `ReplayLLM`): copying one is never safe
(`copy.deepcopy` of a wrapper recursed and ended the console). A comparison
gets a new LLM built from the run's spec instead; a script keeps how far it
got, so it answers as it would answer the run now, without using up the run's
entries.
"""

from __future__ import annotations

from dataclasses import replace

from agent.llm import LLM
from agent.llm.cache import CachedLLM
from agent.sessions.replay import ReplayLLM
from mockllm.chosen import ChosenAnswerLLM
from mockllm.review import ReviewLLM
from mockllm.scripted import ScriptedLLM


def wrapped_by(llm: LLM) -> LLM | None:
    """The LLM a wrapper hands its calls to (`ChosenAnswerLLM.inner`, `CachedLLM.inner`, `ReviewLLM.model`,
    `ReplayLLM.live`); None for an LLM that answers itself."""
    if isinstance(llm, (ChosenAnswerLLM, CachedLLM)):
        return llm.inner
    if isinstance(llm, ReviewLLM):
        return llm.model
    if isinstance(llm, ReplayLLM):
        return llm.live
    return None


def unwrapped(llm: LLM) -> LLM:
    """The LLM that answers behind any wrappers."""
    seen: set[int] = set()
    while id(llm) not in seen:
        seen.add(id(llm))
        inner = wrapped_by(llm)
        if inner is None:
            return llm
        llm = inner
    return llm


def fresh_llm(current: LLM, profiles_path: str | None = None) -> LLM:
    """A new LLM that answers like `current`; raises UsageError (one line) when its spec is unknown."""
    from recode_tui.setup.build import make_llm

    base = unwrapped(current)
    if isinstance(base, ScriptedLLM):
        return ScriptedLLM([replace(entry) for entry in base.entries], name=base.name, source=base.source)
    return make_llm(base.name or "human", profiles_path)
