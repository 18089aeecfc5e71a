"""Every agent's LLM calls travel under generic names; ReCode's words stay in ReCode's package."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

from agent.runtime import events as ev

ROOT = Path(__file__).resolve().parent.parent


def test_an_llm_call_is_requested_answered_or_rejected() -> None:
    assert [(cls.__name__, cls.kind) for cls in (ev.LLMRequested, ev.LLMAnswered, ev.LLMRejected)] == [
        ("LLMRequested", "llm_requested"), ("LLMAnswered", "llm_answered"), ("LLMRejected", "llm_rejected")]


def test_the_default_breakpoint_speaks_the_agents_words() -> None:
    """ReCode's default stop is 'every stub expansion'; any other agent's is 'every LLM call'; both are
    the one breakpoint a saved debug.json names `every-stub`, and `every-call` is its generic spelling."""
    from agent.agents import agent_class
    from agent.runtime.breakpoints import BreakpointKind, parse_breakpoint

    assert agent_class("recode").traits.every_call_words == "every stub expansion"
    assert {agent_class(name).traits.every_call_words for name in ("react", "codeact", "plan-execute", "recap")} == {
        "every LLM call"}
    assert parse_breakpoint("every-call").kind is parse_breakpoint("every-stub").kind is BreakpointKind.EVERY_LLM_CALL
    assert BreakpointKind("every_stub") is BreakpointKind.EVERY_LLM_CALL


# The runtime every agent shares, and the front ends and mock LLMs built on it: they name a call's
# purpose and the default breakpoint by their enum members, not by ReCode's stored words.
RUNTIME_AND_FRONT_ENDS = ("agent/runtime", "agent/sessions", "agent/eval", "agent/llm", "recode_tui", "mockllm")
# ReCode's words that stay on purpose, with why: (file, word) -> how many times
KEPT = {
    # `every-stub` / `every_stub` are what people type and what debug.json files hold: `parse_breakpoint` reads both
    ("agent/runtime/breakpoints.py", "'every_stub'"): 1,
}


def recode_words(source: str) -> list[str]:
    """ReCode's bare literals "expand" and "every_stub" used in `source` (not an Enum member's stored value):
    a `Purpose` member or `BreakpointKind.EVERY_LLM_CALL` says them."""
    if "expand" not in source and "every_stub" not in source:
        return []  # neither word is written here: no need to parse (parsing is the scan's whole cost)
    tree = ast.parse(source)
    definitions: set[int] = set()  # ids of the constants that define an Enum member's stored value
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef) and any(
                getattr(base, "id", getattr(base, "attr", "")) in ("Enum", "StrEnum") for base in cls.bases):
            definitions.update(id(s.value) for s in cls.body if isinstance(s, ast.Assign))
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and node.value in ("expand", "every_stub") and id(node) not in definitions:
            found.append(f"{line} {node.value!r}")
    return found


def test_the_scan_finds_each_recode_word_and_spares_the_definitions() -> None:
    """On a sample, so the scan over the runtime below cannot pass by finding nothing."""
    sample = '''
from enum import Enum
class Purpose(str, Enum):
    EXPAND = "expand"
class Kind(str, Enum):
    EVERY_LLM_CALL = "every_stub"
def f(node, event, kinds):
    if event.purpose == "expand" or event.purpose == Purpose.EXPAND:
        return kinds["every_stub"], ev.LLMRequested
'''
    assert sorted(recode_words(sample)) == ["8 'expand'", "9 'every_stub'"]


def test_the_runtime_and_the_front_ends_do_not_speak_recode() -> None:
    """ReCode's words stay in `agent/agents/recode` and its views; the runtime says the enum members."""
    found: dict[tuple[str, str], list[str]] = {}
    for folder in RUNTIME_AND_FRONT_ENDS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = str(path.relative_to(ROOT))
            for hit in recode_words(path.read_text(encoding="utf-8")):
                line, word = hit.split(" ", 1)
                found.setdefault((name, word), []).append(line)
    assert {key: len(lines) for key, lines in found.items()} == KEPT, found


def test_a_purpose_is_stored_as_its_word() -> None:
    """Journals and exports hold a call's purpose as plain text ("expand", "repair", ...)."""
    from agent.llm import Purpose
    from agent.runtime.tree import LLMExchange, Node

    node = Node("n0", "solve()", 0)
    node.llm_calls.append(LLMExchange("prompt", "answer", "scripted", True, purpose=Purpose.EXPAND))
    assert node.llm_calls[0].purpose == "expand"
    assert [str(p) for p in Purpose] == ["expand", "repair", "act", "plan", "replan", "decompose", "refine"]
    assert f"{Purpose.EXPAND}" == "expand" and json.dumps({"purpose": Purpose.REPAIR}) == '{"purpose": "repair"}'


@pytest.mark.parametrize("fixture", ["before_layout_put-01.jsonl", "old_header_put-01.jsonl"])
def test_a_journal_recorded_before_the_rename_opens_with_the_generic_names(tmp_path, fixture: str) -> None:
    from agent.llm import Purpose
    from agent.runtime.tree import NodeStatus
    from agent.sessions.journal_read import JOURNAL_FILE, read_journal
    from agent.sessions.journal_view import read_view

    folder = tmp_path / "old"
    folder.mkdir()
    shutil.copy(ROOT / "tests" / "sessions" / "fixtures" / fixture, folder / JOURNAL_FILE)
    view = read_view(read_journal(folder))
    asked = [node for node in view.tree.walk() if node.llm_calls]
    assert [node.code for node in asked][0] == "solve(instruction, observation)" and len(asked) == 3
    assert {call.purpose for node in asked for call in node.llm_calls} == {Purpose.EXPAND}
    assert all(node.status is NodeStatus.AWAITING_LLM for node in asked)
