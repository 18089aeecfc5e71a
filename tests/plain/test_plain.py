"""The plain-terminal front end, driven through prompt-toolkit's pipe input."""

from __future__ import annotations

import asyncio
import json

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

import pytest

from agent.runtime import events as ev
from agent.sessions.journal_read import read_journal
from agent.sessions.session import start_session
from envs.alfworld.catalog import resolve_game
from mockllm.human import HumanLLM
from recode_tui.setup.build import make_agent
from agent.agents.recode.engine import SKELETON
from recode_tui.plain.prompt_text import render_prompt
from recode_tui.plain.terminal import PlainFrontEnd
from tests.plain.keys import ESC_ENTER, changed, editor_open, paste
from tests.settings import episode_named, run_settings
from envs.registry import EpisodeRef

pytestmark = pytest.mark.heavy  # real ALFWorld games


CTRL_D = "\x04"


def walkthrough(episode_ref: str) -> list[str]:
    return json.loads(resolve_game(episode_ref).read_text())["walkthrough"]


def new_front(tmp_path, pipe, episode_ref: str = "put-01", **kw) -> PlainFrontEnd:
    agent = make_agent(run_settings(), episode_named(episode_ref), HumanLLM())
    session = start_session(agent, tmp_path / "sessions", EpisodeRef.parse(episode_ref), "human")
    return PlainFrontEnd(session, input=pipe, output=DummyOutput(), **kw)


async def test_a_person_solves_a_bundled_game_and_a_refused_answer_keeps_its_text(tmp_path):
    steps = walkthrough("put-01")
    with create_pipe_input() as pipe:
        front = new_front(tmp_path, pipe)
        task = asyncio.ensure_future(front.run())
        await editor_open(front, task)
        buffer = front.prompt_session.default_buffer
        assert buffer.text == SKELETON  # the skeleton is prefilled, the cursor inside <execute>
        assert buffer.document.current_line == "" and "<execute>" in buffer.document.text_before_cursor
        # A loop over the walkthrough, the last line left unclosed: refused, with the reason, text kept.
        code = "for action in " + json.dumps(steps) + ":\n    run(action"
        pipe.send_text(paste(code) + ESC_ENTER)
        await changed(front, task, lambda: buffer.validation_error is not None)
        assert "syntax error" in buffer.validation_error.message
        assert code in buffer.text and front.editing.is_set()  # still editing, nothing lost
        pipe.send_text(")" + ESC_ENTER)  # fix it where the cursor is and submit
        result = await asyncio.wait_for(task, 60)
    assert isinstance(result, ev.RunFinished) and result.success
    transcript = "\n".join(front.transcript)
    assert "# Current function to expand" in transcript and "- instruction (str): put a vase in sidetable." in transcript
    assert "more lines folded" in transcript  # the few-shot examples are folded
    assert any(line.strip() == f"> action 1: {steps[0]}" for line in front.transcript)  # events, one line each
    assert front.transcript[-1].startswith("SUCCESS: won")
    answers = [r for r in read_journal(front.session.folder).records if r["type"] == "answer"]
    assert len(answers) == 1 and answers[0]["source"] == "human" and "run(action)" in answers[0]["answer"]


async def test_typing_auto_indents_and_history_brings_back_an_earlier_answer(tmp_path):
    earlier = "<execute>\nrun('look')\n</execute>"
    with create_pipe_input() as pipe:
        front = new_front(tmp_path, pipe, history=[earlier])
        task = asyncio.ensure_future(front.run())
        await editor_open(front, task)
        buffer = front.prompt_session.default_buffer
        pipe.send_text("for a in ['look']:\rrun(a)\r")
        await changed(front, task, lambda: "run(a)\n" in buffer.text)
        assert "for a in ['look']:\n    run(a)\n    \n</execute>" in buffer.text  # indented after the colon
        pipe.send_text("\x1b[A" * 12)  # up to the first line, then up again: the earlier answer
        await changed(front, task, lambda: buffer.text == earlier)
        pipe.send_text("\x1b[B" * 12)  # and down, back to the text being typed
        await changed(front, task, lambda: "run(a)" in buffer.text)
        pipe.send_text(CTRL_D)
        assert await asyncio.wait_for(task, 30) is None


async def test_ctrl_d_pauses_saves_the_draft_and_resume_continues_there(tmp_path, monkeypatch):
    from recode_tui.plain.terminal import open_plain_session

    steps = walkthrough("clean-01")
    with create_pipe_input() as pipe:
        front = new_front(tmp_path, pipe, episode_ref="clean-01")
        task = asyncio.ensure_future(front.run())
        await editor_open(front, task)
        half = "for action in " + json.dumps(steps) + ":\n    run(action)"
        pipe.send_text(paste(half) + CTRL_D)
        assert await asyncio.wait_for(task, 30) is None
    assert "paused: session" in "\n".join(front.transcript)
    folder = front.session.folder
    journal = read_journal(folder)
    assert journal.finished is None and half in journal.read_draft()["text"]

    from recode_tui.commands.arguments import run_options
    from recode_tui.commands.parser import build_parser

    options = run_options(build_parser().parse_args(["run", "--llm", "human", "--resume", str(folder),
                                                     "--sessions", str(tmp_path / "sessions")]))
    session, pending = await open_plain_session(options, HumanLLM())
    assert isinstance(pending, ev.LLMRequested)
    with create_pipe_input() as pipe:
        front = PlainFrontEnd(session, pending=pending, input=pipe, output=DummyOutput())
        task = asyncio.ensure_future(front.run())
        await editor_open(front, task)
        assert half in front.prompt_session.default_buffer.text  # the draft is back in the editor
        pipe.send_text(ESC_ENTER)
        result = await asyncio.wait_for(task, 60)
    assert result.success
    assert read_journal(folder).finished["success"] is True


def test_prompt_folding():
    prompt = "# Examples\n" + "\n".join(f"line {i}" for i in range(40)) + "\n# Current function to expand\n\nsolve(a)\n"
    tokens, hidden = render_prompt(prompt)
    text = "".join(t for _, t in tokens)
    assert hidden == 37 and "line 2" in text and "line 3\n" not in text and "solve(a)" in text
    full, hidden = render_prompt(prompt, folded=False)
    assert hidden == 0 and "line 39" in "".join(t for _, t in full)


async def test_a_signal_while_the_editor_closes_on_end_of_input_still_saves_the_typed_text(tmp_path, monkeypatch):
    """A closed terminal ends the editor with end of input *and* sends SIGHUP; under load the end of
    input came first, the signal then found the editor closing, and the typed text was lost."""
    from recode_tui.plain import drafts

    typed = "run('go to sidetable 1')  # typed, not yet submitted"
    with create_pipe_input() as pipe:
        front = new_front(tmp_path, pipe)
        task = asyncio.ensure_future(front.run())
        front.run_task = task
        await editor_open(front, task)
        stop = drafts.DraftAutosave.stop

        async def signal_during_close(self):  # the SIGHUP lands while the closing editor awaits its autosave
            front.stop_on_signal("terminal closed (SIGHUP)")
            await stop(self)

        monkeypatch.setattr(drafts.DraftAutosave, "stop", signal_during_close)
        pipe.send_text(paste(typed))
        await changed(front, task, lambda: typed in front.prompt_session.default_buffer.text)
        pipe.close()  # the terminal is gone: end of input
        try:
            await asyncio.wait_for(task, 30)
        except asyncio.CancelledError:
            pass  # the run is stopped between answers, as `run_plain` expects after a signal
    assert typed in read_journal(front.session.folder).read_draft()["text"]


async def test_an_empty_root_answer_asks_to_confirm_before_it_skips_the_task(tmp_path):
    """Esc Enter on an empty execute section at the root only warns; the same Esc Enter again applies it
    (the console's editor asks the same)."""
    with create_pipe_input() as pipe:
        front = new_front(tmp_path, pipe)
        task = asyncio.ensure_future(front.run())
        await editor_open(front, task)
        buffer = front.prompt_session.default_buffer
        pipe.send_text(ESC_ENTER)  # the skeleton as it is: nothing in <execute>
        await changed(front, task, lambda: buffer.validation_error is not None)
        message = " ".join(buffer.validation_error.message.split())
        assert "press Esc Enter again to skip the whole task" in message
        assert front.editing.is_set() and not task.done()  # still editing: the task is not given up
        pipe.send_text(ESC_ENTER)
        result = await asyncio.wait_for(task, 60)
    assert isinstance(result, ev.RunFinished) and not result.success
