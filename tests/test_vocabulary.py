"""One name per concept, and code that explains itself rather than its history.

The generic names (`LLMRequested`, `NodeStatus.AWAITING_LLM`, `Node.llm_calls`, ...) are the only
ones; ReCode's older spellings appear only in the table that translates files an earlier release
wrote (`agent/sessions/old_values.py`). Docstrings and comments say what the code does, not which
issue or stop changed it; test files are named and described by behaviour.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("agent", "recode_tui", "envs", "mockllm")
# ReCode's old names, spelled in pieces so this file does not match itself.
OLD_NAMES = re.compile(r"\b" + "Expan" + r"sion[A-Z]\w*|NodeStatus\." + "STUB" + r"\b|EVERY_" + "STUB|" + r"\.expan" + r"sions\b"
                       + r"|\bStub" + r"Context\b|\bfork_at_" + r"expansion\b")
HISTORY = re.compile("iss" + r"ue ?[0-9]+|st" + r"op ?[0-9]+|iss" + "ue-[0-9]", re.IGNORECASE)
NARRATION = re.compile("before the " + "split|its name " + "before", re.IGNORECASE)
TRANSLATION_TABLE = ROOT / "agent" / "sessions" / "old_values.py"
# Where "engine" is the right word: ReCode's own class `Engine`, TextWorld's and ScienceWorld's game engines.
ENGINE_PLACES = ("agent/agents/recode/", "envs/alfworld/", "envs/sciworld/")


def _sources(*folders: str) -> list[Path]:
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("*.py") if path != Path(__file__))


def _hits(pattern: re.Pattern[str], paths: list[Path]) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{number}: {line.strip()}" for path in paths
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
            if pattern.search(line)]


def test_the_patterns_find_what_they_look_for() -> None:
    """On samples, so the scans below cannot pass by matching nothing."""
    assert OLD_NAMES.search("ev." + "Expan" + "sionReceived") and OLD_NAMES.search("node" + ".expan" + "sions[0]")
    assert OLD_NAMES.search("context: Stub" + "Context") and OLD_NAMES.search("fork_at_" + "expansion(n.id)")
    assert not OLD_NAMES.search("node.llm_calls, ev.LLMAnswered, BreakpointKind.EVERY_LLM_CALL, CallContext, fork_at_answer")
    assert HISTORY.search("(Iss" + "ue 26)") and HISTORY.search("st" + "op 12") and not HISTORY.search("a stop at n3")
    assert NARRATION.search("as before the " + "split")


def test_old_recode_names_are_gone_outside_the_translation_table() -> None:
    paths = [path for path in _sources(*PACKAGES, "tests") if path != TRANSLATION_TABLE]
    assert _hits(OLD_NAMES, paths) == []


# ReCode's main call (`Purpose.EXPAND`) is named in ReCode's package and, outside it, only where a stored
# format fixes the word: the journal translation table (calls recorded before purposes
# were), the script format's default and the scripted server's reading of ReCode's prompt. The runtime,
# sessions, eval and the front ends ask the agent (`Stepper.traits.main_purpose`, `AnswerWords.noun`) instead.
EXPAND_PLACES = {"agent/sessions/old_values.py", "mockllm/scripted.py", "mockllm/openai_server.py"}


def test_recodes_main_purpose_is_named_only_in_recode_and_where_a_stored_format_fixes_it() -> None:
    named = re.compile(r"\bPurpose\.EXPAND\b")
    found = {path.relative_to(ROOT).as_posix() for path in _sources(*PACKAGES)
             if not path.relative_to(ROOT).as_posix().startswith("agent/agents/recode/")
             and named.search(path.read_text(encoding="utf-8"))}
    assert found == EXPAND_PLACES


def test_no_test_file_refers_to_an_issue_or_stop_number() -> None:
    assert _hits(HISTORY, _sources("tests")) == []
    named = re.compile("iss" + r"ue|fixes|st" + r"op_?[0-9]")
    assert [path.name for path in _sources("tests") if named.search(path.name)] == []


def test_the_packages_docstrings_explain_the_code_not_its_history() -> None:
    assert _hits(HISTORY, _sources(*PACKAGES)) + _hits(NARRATION, _sources(*PACKAGES)) == []


def _names(path: Path) -> list[tuple[int, str, str]]:
    """(line, name, the two tokens before it) of every identifier in a module."""
    tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline))
    return [(t.start[0], t.string, "".join(p.string for p in tokens[max(0, i - 2):i]))
            for i, t in enumerate(tokens) if t.type == tokenize.NAME]


def _may_name(path: Path) -> bool:
    """Whether the module's text holds "engine" or "GameSpec" at all: the others need no tokenizing (its cost)."""
    text = path.read_text(encoding="utf-8")
    return "engine" in text.lower() or "Game" + "Spec" in text


def test_an_agent_is_called_agent_and_a_plans_episode_an_episode_spec() -> None:
    """In code an agent is never an "engine" (that is ReCode's class and the game engines), an
    evaluation's episode never a "game" spec; the module path `agent.agents.recode.engine` is ReCode's."""
    hits = [f"{path.relative_to(ROOT)}:{line}: {name}" for path in _sources(*PACKAGES)
            if not path.relative_to(ROOT).as_posix().startswith(ENGINE_PLACES) and _may_name(path)
            for line, name, before in _names(path)
            if ("engine" in name.lower() and before != "recode.") or name == "Game" + "Spec"]
    assert hits == []
