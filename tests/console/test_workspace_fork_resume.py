"""A fork made from the prompt workspace goes on with its edited prompt set after a quit, found by its hash.

The person forks a stub with an edited set, saves the set from the workspace afterwards, quits, and
resumes from the command line: the next expansion is asked with the saved set (its examples in the
prompt, its hash journaled), not with the one the edits started from. Real parts: the real Textual app
through Pilot on the toy world (node code in-process, tests/console/page.py), the prompt workspace, real
journals, the command line's `main`.
"""

from __future__ import annotations

import os
from pathlib import Path

from textual.widgets import Input, TextArea

from agent.runtime.prompts import PromptSet
from agent.sessions.journal_read import read_journal
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.console.workspace.compare import CompareScreen
from tests.eval.helpers import run_main

from .page import ConsolePage
from .test_workspace import NEW_EXAMPLE, SCRIPTED, SOLVE, edit, open_workspace_page, toy_prompts, workspace_app

__all__ = ["toy_prompts"]  # the fixture, used here

ROOT = Path(__file__).resolve().parents[2]
FOUND = "<think>The vase is on the dining table.</think>\n<execute>\nvase = \"vase 1\"\n</execute>\n"


async def test_a_workspace_fork_with_a_saved_edited_set_goes_on_with_it_after_quit_and_resume(
        tmp_path: Path, monkeypatch, toy_prompts: Path, node_code_in_process) -> None:
    prompts = tmp_path / "prompts"
    monkeypatch.setenv("RECODE_TUI_PROMPTS", str(prompts))
    sessions = tmp_path / "sessions"
    app = workspace_app(toy_prompts, ScriptedLLM([ScriptEntry(SCRIPTED, stub=SOLVE)]), sessions_dir=sessions)
    async with ConsolePage.open(app) as page:
        await page.step("continue")
        await page.step("next")  # n0's answer is taken: it asks for find_vase
        control = app.session_control
        old = control.session.folder
        page.screen.tree_view.select_node(page.screen.tree_view.item("n0"))
        await page.select("n0")
        ws = await open_workspace_page(page)
        await edit(page.pilot, ws, NEW_EXAMPLE)
        edited = ws.draft.content_hash()
        ws.query_one("#ws-llms", Input).value = "human"
        cmp = await page.opened("ctrl+r")
        assert isinstance(cmp, CompareScreen)
        cmp.query_one("#cmp-text-1", TextArea).load_text(SCRIPTED)
        await page.replaced("f1")
        fork = control.session.folder
        assert fork != old and app.screen is app.screen_stack[0]
        await page.step("continue")  # the chosen answer runs; find_vase is asked next
        ws = await open_workspace_page(page)  # the fork's edited set, saved now
        ws.query_one("#ws-name", Input).value = "vases"
        await page.press("ctrl+o")
        assert ws.saved_to is not None
        assert PromptSet(prompts / "vases").content_hash() == edited
    script = tmp_path / "found.yaml"
    script.write_text("answers:\n  - stub: \"*\"\n    answer: |\n" + "".join(f"      {line}\n" for line in FOUND.splitlines()))
    env = dict(os.environ, RECODE_TUI_SESSIONS=str(sessions), RECODE_TUI_PROMPTS=str(prompts), PYTHONPATH=str(ROOT))
    done = run_main(["run", "--resume", fork.name, "--llm", f"scripted:{script}", "--quiet"], env, cwd=tmp_path)
    assert "not on disk as it was" not in done.stderr, done.stderr
    later = [r for r in read_journal(fork).records if r["type"] == "answer"][-1]
    assert later["answer"] == FOUND  # the expansion asked after the resume
    assert later.get("prompt_hash") == edited  # asked with the saved set, not the bundled one
