"""A fork made from the prompt workspace goes on with its edited prompt set after a quit, found by its hash.

The person forks a stub with an edited set, saves the set from the workspace afterwards, quits, and
resumes from the command line: the next expansion is asked with the saved set (its examples in the
prompt, its hash journaled), not with the bundled one the edits started from. Real parts: the real
Textual app through Pilot, the prompt workspace, real journals, the command line's `main`.
"""

from __future__ import annotations

import os
from pathlib import Path

from textual.widgets import Input, TextArea

from agent.runtime.prompts import PromptSet
from agent.sessions.journal_read import read_journal
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.console.app import build_app
from recode_tui.console.workspace.compare import CompareScreen
from recode_tui.console.workspace.screen import PromptWorkspace
from tests.eval.helpers import run_main
from tests.settings import console_options

from .helpers import SIZE, command, select_node, started, wait_for
from .test_workspace import NEW_EXAMPLE, SCRIPTED, SOLVE, edit, open_workspace

ROOT = Path(__file__).resolve().parents[2]
FOUND = "<think>The vase is on the dining table.</think>\n<execute>\nvase = \"vase 1\"\n</execute>\n"


async def test_a_workspace_fork_with_a_saved_edited_set_goes_on_with_it_after_quit_and_resume(
        tmp_path: Path, monkeypatch) -> None:
    prompts = tmp_path / "prompts"
    monkeypatch.setenv("RECODE_TUI_PROMPTS", str(prompts))
    sessions = tmp_path / "sessions"
    app = build_app(console_options(sessions_dir=sessions), ScriptedLLM([ScriptEntry(SCRIPTED, stub=SOLVE)]))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        await command(pilot, app, "n")  # n0's answer is taken: it asks for find_vase
        old = app.session_control.session.folder
        app.debug_screen.tree_view.select_node(app.debug_screen.tree_view.item("n0"))
        await select_node(pilot, app, "n0")
        ws = await open_workspace(pilot, app)
        await edit(pilot, ws, NEW_EXAMPLE)
        edited = ws.draft.content_hash()
        ws.query_one("#ws-llms", Input).value = "human"
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), what="the comparison")
        app.screen.query_one("#cmp-text-1", TextArea).load_text(SCRIPTED)
        await pilot.pause(0.3)
        await pilot.press("f1")
        control = app.session_control
        await wait_for(pilot, lambda: control.session.folder != old and not control.busy
                       and app.screen is app.screen_stack[0], what="the fork")
        fork = control.session.folder
        await command(pilot, app, "c")  # the chosen answer runs; find_vase is asked next
        ws = await open_workspace(pilot, app)  # the fork's edited set, saved now
        ws.query_one("#ws-name", Input).value = "vases"
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: ws.saved_to is not None, what="the saved set")
        assert PromptSet(prompts / "vases").content_hash() == edited
    script = tmp_path / "found.yaml"
    script.write_text("answers:\n  - stub: \"*\"\n    answer: |\n" + "".join(f"      {line}\n" for line in FOUND.splitlines()))
    env = dict(os.environ, RECODE_TUI_SESSIONS=str(sessions), RECODE_TUI_PROMPTS=str(prompts), PYTHONPATH=str(ROOT))
    done = run_main(["run", "--resume", fork.name, "--llm", f"scripted:{script}", "--quiet"], env, cwd=tmp_path)
    assert "not on disk as it was" not in done.stderr, done.stderr
    later = [r for r in read_journal(fork).records if r["type"] == "answer"][-1]
    assert later["answer"] == FOUND  # the expansion asked after the resume
    assert later.get("prompt_hash") == edited  # asked with the saved set, not the bundled one
