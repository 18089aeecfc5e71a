"""Every agent's LLM calls travel under generic names; ReCode's words stay in ReCode's package (issue 26)."""

from __future__ import annotations

import ast
import json
import shutil
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


# The runtime every agent shares, and the front ends and mock LLMs built on it (issue 26): they name the
# tree, its statuses, a node's LLM calls, a call's purpose and the default breakpoint generically.
RUNTIME_AND_FRONT_ENDS = ("agent/runtime", "agent/sessions", "agent/eval", "agent/llm", "recode_tui", "mockllm")
# ReCode's words that stay on purpose, with why: (file, word) -> how many times
KEPT = {
    # `every-stub` / `every_stub` are what people type and what debug.json files hold: `parse_breakpoint` reads both
    ("agent/runtime/breakpoints.py", "'every_stub'"): 1,
}


def recode_words(source: str) -> list[str]:
    """ReCode's names used in `source` (not defined: an Enum member's value, an alias's own assignment).

    `NodeStatus.STUB`, `.expansions`, the `Expansion` record and the `Expansion...` events, and the bare
    literals "expand" and "every_stub" (a `Purpose` member or `BreakpointKind.EVERY_LLM_CALL` says it).
    """
    tree = ast.parse(source)
    definitions: set[int] = set()  # ids of the constants that define an Enum member's stored value
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef) and any(
                getattr(base, "id", getattr(base, "attr", "")) in ("Enum", "StrEnum") for base in cls.bases):
            definitions.update(id(s.value) for s in cls.body if isinstance(s, ast.Assign))
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Attribute) and node.attr == "STUB" and getattr(node.value, "id", "") == "NodeStatus":
            found.append(f"{line} NodeStatus.STUB")
        elif isinstance(node, ast.Attribute) and node.attr == "expansions":
            found.append(f"{line} .expansions")
        elif isinstance(node, (ast.Name, ast.Attribute, ast.alias)):
            name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else node.name
            if (name == "Expansion" or name in RECODE_WORDS) and not isinstance(getattr(node, "ctx", None), ast.Store):
                found.append(f"{line} {name}")
        elif isinstance(node, ast.Constant) and node.value in ("expand", "every_stub") and id(node) not in definitions:
            found.append(f"{line} {node.value!r}")
    return found


def test_the_scan_finds_each_recode_word_and_spares_the_definitions() -> None:
    """On a sample, so the scan over the runtime below cannot pass by finding nothing."""
    sample = '''
from enum import Enum
from agent.runtime.tree import Expansion
class Purpose(str, Enum):
    EXPAND = "expand"
class Kind(str, Enum):
    EVERY_LLM_CALL = "every_stub"
LLMExchange = Expansion = object
def f(node, event, kinds):
    node.status = NodeStatus.STUB
    node.status = NodeStatus.AWAITING_LLM
    calls = node.expansions + node.llm_calls
    if event.purpose == "expand" or event.purpose == Purpose.EXPAND:
        return kinds["every_stub"], ev.ExpansionRequested, ev.LLMRequested
'''
    assert sorted(recode_words(sample)) == sorted([
        "3 Expansion", "10 NodeStatus.STUB", "12 .expansions", "13 'expand'", "14 'every_stub'", "14 ExpansionRequested"])


def test_the_runtime_and_the_front_ends_do_not_speak_recode() -> None:
    """ReCode's words stay in `agent/agents/recode` and its views; the runtime defines them only as aliases."""
    found: dict[tuple[str, str], list[str]] = {}
    for folder in RUNTIME_AND_FRONT_ENDS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = str(path.relative_to(ROOT))
            for hit in recode_words(path.read_text(encoding="utf-8")):
                line, word = hit.split(" ", 1)
                found.setdefault((name, word), []).append(line)
    assert {key: len(lines) for key, lines in found.items()} == KEPT, found


def test_the_generic_names_and_recodes_are_the_same_things() -> None:
    """Old journals, debug.json files and plug-ins keep working: the stored values did not change."""
    from agent.llm import Purpose
    from agent.runtime.breakpoints import BreakpointKind
    from agent.runtime.tree import Expansion, LLMExchange, Node, NodeStatus

    assert NodeStatus.STUB is NodeStatus.AWAITING_LLM and NodeStatus("STUB") is NodeStatus.AWAITING_LLM
    assert Expansion is LLMExchange and BreakpointKind.EVERY_LLM_CALL.value == "every_stub"
    node = Node("n0", "solve()", 0)
    node.expansions.append(LLMExchange("prompt", "answer", "scripted", True))
    assert node.expansions is node.llm_calls and node.llm_calls[0].purpose == "expand"
    assert [str(p) for p in Purpose] == ["expand", "repair", "act", "plan", "replan", "decompose", "refine"]
    assert f"{Purpose.EXPAND}" == "expand" and json.dumps({"purpose": Purpose.REPAIR}) == '{"purpose": "repair"}'


@pytest.mark.parametrize("fixture", ["before_layout_put-01.jsonl", "old_header_put-01.jsonl"])
def test_a_journal_recorded_before_the_rename_opens_with_the_generic_names(tmp_path, fixture: str) -> None:
    from agent.llm import Purpose
    from agent.runtime.tree import NodeStatus
    from agent.sessions.journal import JOURNAL_FILE, read_journal
    from agent.sessions.journal_view import read_view

    folder = tmp_path / "old"
    folder.mkdir()
    shutil.copy(ROOT / "tests" / "sessions" / "fixtures" / fixture, folder / JOURNAL_FILE)
    view = read_view(read_journal(folder))
    asked = [node for node in view.tree.walk() if node.llm_calls]
    assert [node.code for node in asked][0] == "solve(instruction, observation)" and len(asked) == 3
    assert {call.purpose for node in asked for call in node.llm_calls} == {Purpose.EXPAND}
    assert all(node.status is NodeStatus.AWAITING_LLM for node in asked)
