"""Answering a forked stub from the console, on each of the three ways to fork.

F with the person as the LLM, F then `t` under a model, and the prompt
workspace's "use this answer": each answer is journaled with its stub and
the full prompt, the fork resumes in a new console after the first is gone,
and a draft typed in the fork comes back on that resume.

On the toy world (put-01's twin), node code in-process (tests/console/page.py); a fork or a resume
replays in the sandbox worker, as every replay does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input, TextArea

from agent.runtime import events as ev
from agent.sessions.journal_read import DRAFT_FILE, read_journal
from recode_tui.console.app import build_app
from recode_tui.console.screens.replay import ReplayScreen
from recode_tui.console.workspace.compare import CompareScreen

from .helpers import SIZE, command, session_opened, started, type_text, wait_for, worked
from .page import toy_app
from .test_sessions_console import branch, play_to_n2, select
from .test_workspace import DIRECT, SCRIPTED, SOLVE, open_workspace, scripted


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env

N1_AGAIN = 'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\nobj = "the vase"'


def answers(folder: Path) -> list[dict]:
    return [r for r in read_journal(folder).records if r["type"] == "answer"]


def assert_whole(record: dict, stub: str, prompt: str) -> None:
    """The record carries what a replay checks and what an SFT pair needs."""
    assert record["stub"] == stub
    assert record["prompt"] == prompt and "# Current function to expand" in prompt


async def resumed(pilot, app) -> None:
    """The session the console was started to resume (`--resume`), shown at its last stop."""
    await session_opened(pilot, app)
    assert app.session_control.session is not None and not app.session_control.busy


async def draft_saved(pilot, app, folder: Path, text: str) -> None:
    """The draft being typed, written to `folder` by the session's draft timer (a clock: polled)."""
    def saved() -> bool:
        try:
            return text in json.loads((folder / DRAFT_FILE).read_text())["text"]
        except (OSError, ValueError, KeyError):
            return False

    await wait_for(pilot, saved, what=f"the draft in {folder.name}")


async def test_fork_as_the_person_keeps_drafts_over_resumes_and_journals_the_stub_and_prompt(tmp_path: Path) -> None:
    app = toy_app(sessions_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await play_to_n2(pilot, app)
        await select(pilot, app, "n1")
        await branch(pilot, app, "F")
        fork = app.session_control.session.folder
        await pilot.press("ctrl+r")
        await type_text(pilot, 'run("look")')
        await draft_saved(pilot, app, fork, 'run("look")')
    # The console is gone without submitting n1: a new one resumes the fork with the draft on the forked stub.
    again = toy_app(sessions_dir=tmp_path, resume=fork)
    async with again.run_test(size=SIZE) as pilot:
        await resumed(pilot, again)
        assert again.session_control.session.folder == fork
        asked = again.debug_screen.debugger.last_event
        assert again.debug_screen.debugger.awaiting_human and asked.node_id == "n1"
        assert isinstance(asked, ev.LLMRequested)
        assert 'run("look")' in again.debug_screen.editor.editor.text
        stub = again.debug_screen.agent.tree.nodes["n1"].code
        await pilot.press("ctrl+r")  # back to the skeleton
        await type_text(pilot, N1_AGAIN)
        await command(pilot, again, "ctrl+s")
        assert_whole(answers(fork)[-1], stub, asked.prompt)
        await command(pilot, again, "c")
        assert again.debug_screen.debugger.awaiting_human and again.debug_screen.debugger.last_event.node_id == "n2"
        await type_text(pilot, 'run("go to sidetable 1")')
        await draft_saved(pilot, again, fork, 'run("go to sidetable 1")')
    # Gone again without submitting n2: the next console resumes with n1's new answer and n2's draft.
    third = toy_app(sessions_dir=tmp_path, resume=fork)
    async with third.run_test(size=SIZE) as pilot:
        await resumed(pilot, third)
        assert third.debug_screen.debugger.awaiting_human and third.debug_screen.debugger.last_event.node_id == "n2"
        assert 'run("go to sidetable 1")' in third.debug_screen.editor.editor.text
        assert 'obj = "the vase"' in third.debug_screen.agent.tree.nodes["n1"].llm_calls[-1].answer


async def test_fork_then_type_under_a_model_journals_the_stub_and_prompt_and_resumes(tmp_path: Path) -> None:
    app = toy_app(scripted(), sessions_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        await command(pilot, app, "n")  # the model's answer for n0 is taken and journaled
        await select(pilot, app, "n0")
        await branch(pilot, app, "F")
        fork = app.session_control.session.folder
        asked = app.debug_screen.debugger.last_event
        assert isinstance(asked, ev.LLMRequested) and asked.node_id == "n0"
        await pilot.press("t")
        assert app.debug_screen.editor.node_id == "n0" and not app.debug_screen.editor.editor.read_only
        app.debug_screen.editor.editor.load_text(DIRECT)
        await command(pilot, app, "ctrl+s")
        record = answers(fork)[-1]
        assert record["answer"] == DIRECT and record["source"] == "human"
        assert_whole(record, SOLVE, asked.prompt)
        await command(pilot, app, "c")
        assert app.debug_screen.agent.host.finished is not None and app.debug_screen.agent.host.finished.success
    again = toy_app(scripted(), sessions_dir=tmp_path, resume=fork)
    async with again.run_test(size=SIZE) as pilot:
        await resumed(pilot, again)
        assert again.session_control.session.folder == fork
        assert again.debug_screen.agent.host.finished is not None and again.debug_screen.agent.host.finished.success
        assert again.debug_screen.agent.tree.root.llm_calls[-1].answer == DIRECT


async def test_use_this_answer_on_an_earlier_stub_journals_the_stub_and_prompt_and_resumes(tmp_path: Path) -> None:
    app = toy_app(scripted(), sessions_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        prompt = app.debug_screen.debugger.last_event.prompt
        await command(pilot, app, "n")
        old = app.session_control.session.folder
        await select(pilot, app, "n0")
        ws = await open_workspace(pilot, app)
        ws.query_one("#ws-llms", Input).value = "human"
        await pilot.press("ctrl+r")
        await worked(pilot, "reexpand")
        assert isinstance(app.screen, CompareScreen)
        app.screen.query_one("#cmp-text-1", TextArea).load_text(DIRECT)
        await pilot.pause(0.3)
        await pilot.press("f1")
        control = app.session_control
        await session_opened(pilot, app)  # the fork
        assert control.session.folder != old and not control.busy and app.screen is app.screen_stack[0]
        fork = control.session.folder
        await command(pilot, app, "c")
        assert app.debug_screen.agent.host.finished is not None and app.debug_screen.agent.host.finished.success
        record = answers(fork)[-1]
        assert record["answer"] == DIRECT
        assert_whole(record, SOLVE, prompt)
        assert [a["answer"] for a in answers(old)] == [SCRIPTED]
    again = toy_app(scripted(), sessions_dir=tmp_path, resume=fork)
    async with again.run_test(size=SIZE) as pilot:
        await resumed(pilot, again)
        assert again.session_control.session.folder == fork
        assert again.debug_screen.agent.host.finished is not None and again.debug_screen.agent.host.finished.success
