"""Answering a forked stub from the console, on each of the three ways to fork.

F with the person as the LLM, F then `t` under a model, and the prompt
workspace's "use this answer": each answer is journaled with its stub and
the full prompt, the fork resumes in a new console after the first is gone,
and a draft typed in the fork comes back on that resume; a fork played to its end replays from its
journal to that end, with the answer given in the fork.

On the toy world (put-01's twin), node code in-process (tests/console/page.py); a fork or a resume
replays in-process too: every replay makes its runner with the run's own runner maker.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input, TextArea

from agent.llm import CallContext, Completion
from agent.runtime import events as ev
from agent.runtime.thread_runner import ThreadRunner
from agent.sessions.journal_read import DRAFT_FILE, read_journal
from agent.sessions.session import resume_session
from envs.registry import make_env
from recode_tui.console.workspace.compare import CompareScreen
from tests.settings import in_process

from .helpers import queues_drained, session_opened
from .page import ConsolePage, filled, toy_console
from .test_sessions_console import recorded_to_n2
from .test_workspace import DIRECT, SCRIPTED, SOLVE, open_workspace_page, scripted


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


class Unasked:
    """The live model of a replay that must not need one: the journal holds every answer to the end."""

    name = "unasked"

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion:
        raise AssertionError(f"the replay ran past the journal and asked a model: {prompt[-200:]!r}")


async def replayed_to_the_end(folder: Path) -> str:
    """Resume the session in `folder` as the console does (its journal replayed, node code in-process): the
    run must end as recorded, won, without asking anyone. Returns the root's last answer."""
    again, _ = await resume_session(folder, Unasked(), make_env, runner_maker=in_process)
    try:
        finished = again.agent.host.finished
        assert finished is not None and finished.success, "the replay did not reach the recorded end"
        return again.agent.tree.root.llm_calls[-1].answer
    finally:
        await again.agent.close()
        again.writer.close()


async def draft_saved(page: ConsolePage, folder: Path, text: str) -> None:
    """The person leaves the editor (Esc): the draft being typed is written to `folder` at once (the
    screen saves the work when the focus moves), in a "draft" worker that is awaited; no clock."""
    await queues_drained(page.app)  # the editor's last change is handled: the screen holds the draft
    assert page.app.focused is page.screen.editor.editor, "the draft is typed in the answer editor"
    await page.press("escape")
    await page.work_done("draft")
    assert text in json.loads((folder / DRAFT_FILE).read_text())["text"]


async def test_fork_as_the_person_keeps_drafts_over_resumes_and_journals_the_stub_and_prompt(tmp_path: Path) -> None:
    async with toy_console(sessions_dir=tmp_path, resume=await recorded_to_n2(tmp_path)) as page:
        await page.select("n1")
        await page.replaced("F")
        fork = page.app.session_control.session.folder
        assert isinstance(page.agent.runner, ThreadRunner)  # the fork replayed where the run runs its code
        await page.press("ctrl+r")
        await page.type('run("look")')
        await draft_saved(page, fork, 'run("look")')
    # The console is gone without submitting n1: a new one resumes the fork with the draft on the forked stub.
    async with toy_console(sessions_dir=tmp_path, resume=fork) as page:
        assert page.app.session_control.session.folder == fork
        assert isinstance(page.agent.runner, ThreadRunner)  # so did the resume at start-up
        asked = page.last_event
        assert page.awaiting_answer and asked.node_id == "n1"
        assert isinstance(asked, ev.LLMRequested)
        assert 'run("look")' in page.editor_text
        stub = page.agent.tree.nodes["n1"].code
        await page.press("ctrl+r")  # back to the skeleton
        await page.put_answer(filled(page.editor_text, N1_AGAIN))  # pasted: the draft above is what this test types
        await page.command("ctrl+s")
        assert_whole(answers(fork)[-1], stub, asked.prompt)
        await page.step("continue")
        assert page.awaiting_answer and page.last_event.node_id == "n2"
        await page.type('run("go to sidetable 1")')
        await draft_saved(page, fork, 'run("go to sidetable 1")')
    # Gone again without submitting n2: the next console resumes with n1's new answer and n2's draft.
    async with toy_console(sessions_dir=tmp_path, resume=fork) as page:
        assert page.awaiting_answer and page.last_event.node_id == "n2"
        assert 'run("go to sidetable 1")' in page.editor_text
        assert 'obj = "the vase"' in page.agent.tree.nodes["n1"].llm_calls[-1].answer


async def test_fork_then_type_under_a_model_journals_the_stub_and_prompt_and_resumes(tmp_path: Path) -> None:
    async with toy_console(scripted(), sessions_dir=tmp_path) as page:
        await page.step("continue")
        await page.step("next")  # the model's answer for n0 is taken and journaled
        await page.select("n0")
        await page.replaced("F")
        fork = page.app.session_control.session.folder
        asked = page.last_event
        assert isinstance(asked, ev.LLMRequested) and asked.node_id == "n0"
        await page.press("t")
        assert page.screen.editor.node_id == "n0" and not page.screen.editor.editor.read_only
        page.screen.editor.editor.load_text(DIRECT)
        await page.command("ctrl+s")
        record = answers(fork)[-1]
        assert record["answer"] == DIRECT and record["source"] == "human"
        assert_whole(record, SOLVE, asked.prompt)
        await page.step("continue")
        assert page.finished is not None and page.finished.success
    assert await replayed_to_the_end(fork) == DIRECT


async def test_use_this_answer_on_an_earlier_stub_journals_the_stub_and_prompt_and_resumes(tmp_path: Path) -> None:
    async with toy_console(scripted(), sessions_dir=tmp_path) as page:
        await page.step("continue")
        prompt = page.last_event.prompt
        await page.step("next")
        old = page.app.session_control.session.folder
        await page.select("n0")
        ws = await open_workspace_page(page)
        ws.query_one("#ws-llms", Input).value = "human"
        await page.press("ctrl+r")
        await page.worked("reexpand")
        compare = page.app.screen
        assert isinstance(compare, CompareScreen)
        compare.query_one("#cmp-text-1", TextArea).load_text(DIRECT)
        await page.replaced("f1")  # the fork
        control = page.app.session_control
        assert control.session.folder != old and not control.busy and page.app.screen is page.app.screen_stack[0]
        fork = control.session.folder
        await page.step("continue")
        assert page.finished is not None and page.finished.success
        record = answers(fork)[-1]
        assert record["answer"] == DIRECT
        assert_whole(record, SOLVE, prompt)
        assert [a["answer"] for a in answers(old)] == [SCRIPTED]
    assert await replayed_to_the_end(fork) == DIRECT
