"""Every agent's LLM calls travel under generic names; ReCode's words stay in ReCode's package (issue 26)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from agent.runtime import events as ev

ROOT = Path(__file__).resolve().parent.parent
RECODE_WORDS = {"ExpansionRequested", "ExpansionReceived", "ExpansionRejected"}
SHARED = ("agent/runtime", "agent/sessions", "agent/eval", "agent/llm", "agent/agents/react", "agent/agents/codeact",
          "agent/agents/plan_execute", "agent/agents/recap")


def test_an_llm_call_is_requested_answered_or_rejected() -> None:
    assert [(cls.__name__, cls.kind) for cls in (ev.LLMRequested, ev.LLMAnswered, ev.LLMRejected)] == [
        ("LLMRequested", "llm_requested"), ("LLMAnswered", "llm_answered"), ("LLMRejected", "llm_rejected")]
    # ReCode's words name the same classes: code written with them still matches the events
    assert (ev.ExpansionRequested, ev.ExpansionReceived, ev.ExpansionRejected) == (
        ev.LLMRequested, ev.LLMAnswered, ev.LLMRejected)


@pytest.mark.parametrize("old, new", [("expansion_requested", ev.LLMRequested), ("expansion_received", ev.LLMAnswered),
                                      ("expansion_rejected", ev.LLMRejected), ("llm_answered", ev.LLMAnswered),
                                      ("stub_found", ev.StubFound)])
def test_an_old_event_kind_reads_as_todays_event(old: str, new: type) -> None:
    assert ev.event_type(old) is new


def test_an_unknown_kind_is_named() -> None:
    with pytest.raises(KeyError, match="unknown event kind 'nope'"):
        ev.event_type("nope")


def test_the_shared_runtime_and_the_other_agents_do_not_speak_recode() -> None:
    """The runtime and the four other agents name LLM calls generically; `Expansion...` is ReCode's
    (`agent.runtime.events` defines those names as aliases, for ReCode and for code written before)."""
    found = []
    for folder in SHARED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else (
                    node.name if isinstance(node, ast.alias) else None)
                if name in RECODE_WORDS and not isinstance(getattr(node, "ctx", None), ast.Store):  # the aliases' own lines
                    found.append(f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')} {name}")
    assert found == []


def test_the_default_breakpoint_speaks_the_agents_words() -> None:
    """ReCode's default stop is 'every stub expansion'; any other agent's is 'every LLM call'; both are
    the one breakpoint a saved debug.json names `every-stub`, and `every-call` is its generic spelling."""
    from agent.agents import agent_class
    from agent.runtime.debugger import BreakpointKind, parse_breakpoint

    assert agent_class("recode").every_call_words == "every stub expansion"
    assert {agent_class(name).every_call_words for name in ("react", "codeact", "plan-execute", "recap")} == {
        "every LLM call"}
    assert parse_breakpoint("every-call").kind is parse_breakpoint("every-stub").kind is BreakpointKind.EVERY_LLM_CALL
    assert BreakpointKind.EVERY_STUB is BreakpointKind.EVERY_LLM_CALL and BreakpointKind("every_stub").value == "every_stub"
