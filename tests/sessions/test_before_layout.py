"""Journals written before ReCode's prompt sets moved into its package still resume.

The fixture was recorded with the code just before ReCode's prompt sets moved from
`agent/prompts/` to `agent/agents/recode/prompts/` (`run --game put-01 --llm demo`),
cut after the first action, in a checkout at a path this machine does not have: its
header names the prompt set `<checkout>/agent/prompts/default`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent.runtime.prompts import DEFAULT_PROMPTS, PromptSet, moved_prompt_set
from agent.sessions.journal_read import JOURNAL_FILE, read_journal
from recode_tui.commands.cli import main

pytestmark = pytest.mark.usefixtures("node_code_in_process")  # in-process: old journals' reading is the subject

FIXTURE = Path(__file__).parent / "fixtures" / "before_layout_put-01.jsonl"


def test_an_old_bundled_prompt_path_maps_to_where_the_set_lives_now(tmp_path) -> None:
    assert moved_prompt_set(Path("/home/someone/recode-tui/agent/prompts/default")) == DEFAULT_PROMPTS
    assert moved_prompt_set(Path("agent/prompts/paper")) == DEFAULT_PROMPTS.parent / "paper"
    mine = tmp_path / "agent" / "prompts" / "default"  # a folder that is there is the user's own: kept
    mine.mkdir(parents=True)
    assert moved_prompt_set(mine) == mine
    assert moved_prompt_set(Path("/nowhere/prompts/x")) == Path("/nowhere/prompts/x")


def test_a_journal_from_before_the_move_resumes_to_the_same_win(tmp_path, capsys) -> None:
    header = json.loads(FIXTURE.read_text(encoding="utf-8").splitlines()[0])
    assert header["prompt_set"] == "/home/someone/recode-tui/agent/prompts/default"
    # The hash is the set's as recorded then; its texts have changed since (new examples), which a resume notes.
    folder = tmp_path / "sessions" / "20261125-142534-put-01-0510"
    folder.mkdir(parents=True)
    shutil.copy(FIXTURE, folder / JOURNAL_FILE)

    assert main(["run", "--resume", str(folder), "--llm", "demo", "--quiet", "--sessions", str(tmp_path / "sessions")]) == 0
    assert capsys.readouterr().out.startswith("SUCCESS: won — 7 steps, 4 LLM calls")
    journal = read_journal(folder)
    actions = [r["action"] for r in journal.records if r.get("type") == "action"]
    assert actions[0] == "go to armchair 1" and actions[-1] == "move vase 1 to sidetable 1" and len(actions) == 7
    assert journal.finished is not None and journal.finished["success"]


def test_a_journal_from_before_the_move_opens_without_running(tmp_path) -> None:
    """The no-exec view (`tui --open`, `export`) rebuilds its tree from the old records."""
    from agent.sessions.journal_view import markdown_from_records, read_view

    folder = tmp_path / "old"
    folder.mkdir()
    shutil.copy(FIXTURE, folder / JOURNAL_FILE)
    view = read_view(read_journal(folder))
    assert view.unplaced == []
    stubs = [node.code for node in view.tree.walk() if node.llm_calls]
    assert stubs[0] == "solve(instruction, observation)" and len(stubs) == 3
    text = markdown_from_records(view)
    assert "go to armchair 1" in text and "**Expansion of `n0`**" in text
