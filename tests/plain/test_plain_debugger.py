"""The plain mode steps the run through the console's debugger, on the toy environment.

It stops where `agent.runtime.debugger.Debugger` stops and prints that stop's reason (the console's stop line),
answers through `Debugger.submit`, and never loses the person's typed answer, even when the run crashes.
"""

from __future__ import annotations

import asyncio

import pytest

from agent.runtime import events as ev
from agent.runtime.debugger import Debugger, StepMode
from agent.sessions.journal_read import read_journal
from agent.sessions.session import start_session
from mockllm.human import HumanLLM
from recode_tui.setup.build import make_agent
from recode_tui.plain.terminal import PlainFrontEnd, open_plain_session
from tests.plain.keys import ESC_ENTER, changed, editor_open, no_output, piped
from tests.settings import episode_named, run_settings
from envs.registry import EpisodeRef

GAME = "toy:coin-1"
AGENT = "one-action"


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


def new_front(tmp_path, pipe) -> PlainFrontEnd:
    agent = make_agent(run_settings(agent=AGENT), episode_named(GAME), HumanLLM())
    session = start_session(agent, tmp_path / "sessions", EpisodeRef.parse(GAME), "human")
    return PlainFrontEnd(session, input=pipe, output=no_output())


async def console_stop_line() -> str:
    """What the console's debugger says when this episode first asks the person."""
    agent = make_agent(run_settings(agent=AGENT), episode_named(GAME), HumanLLM())
    try:
        stop = await Debugger(agent, breakpoints=[]).step(StepMode.CONTINUE)
    finally:
        await agent.close()
    assert stop.reason.kind == "human"
    return stop.reason.text


async def answer(front: PlainFrontEnd, pipe, task: asyncio.Future, text: str) -> None:
    await editor_open(front, task)
    front.prompt_session.default_buffer.text = text
    pipe.send_text(ESC_ENTER)


async def test_the_plain_mode_stops_at_the_debuggers_human_stop_and_prints_the_consoles_stop_line(tmp_path):
    expected = await console_stop_line()
    assert expected == "awaiting your act of n1 `turn 1`"
    with piped() as pipe:
        front = new_front(tmp_path, pipe)
        task = asyncio.ensure_future(front.run())
        await editor_open(front, task)
        stop_line = front.transcript.index(f"■ {expected}")
        assert front.transcript[stop_line + 1].startswith("─── prompt for act of [n1]")  # then the prompt
        # The person reads for 0.05 s: the stop that asked them moved 0.05 s back stands for it (none is waited),
        # as in the console's tests/console/test_person_time.py; counted from the submit, their time would be ~0.
        front.debugger.stopped_at -= 0.05
        await answer(front, pipe, task, "Action: go to shelf 1")
        await changed(front, task, lambda: "■ awaiting your act of n2 `turn 2`" in front.transcript)
        await answer(front, pipe, task, "Action: take coin 1 from shelf 1")
        result = await asyncio.wait_for(task, 30)
    assert isinstance(result, ev.RunFinished) and result.success and result.steps == 2
    assert front.transcript[-1].startswith("SUCCESS: won")
    assert [line for line in front.transcript if line.startswith("■")] == [  # one stop line where it asked
        "■ awaiting your act of n1 `turn 1`", "■ awaiting your act of n2 `turn 2`"]
    answers = [r for r in read_journal(front.session.folder).records if r["type"] == "answer"]
    assert [a["source"] for a in answers] == ["human", "human"]
    assert answers[0]["person_seconds"] >= 0.05  # counted from the stop that asked, as in the console


async def test_a_breakpoint_on_the_plain_modes_debugger_prints_its_stop_line_and_the_run_goes_on(tmp_path):
    with piped() as pipe:
        front = new_front(tmp_path, pipe)
        front.debugger.add_breakpoint("action_regex", "^take")
        task = asyncio.ensure_future(front.run())
        await answer(front, pipe, task, "Action: go to shelf 1")
        await changed(front, task, lambda: "■ awaiting your act of n2 `turn 2`" in front.transcript)
        await answer(front, pipe, task, "Action: take coin 1 from shelf 1")
        result = await asyncio.wait_for(task, 30)
    assert result.success
    hit = "■ breakpoint 1: action matches '^take' — take coin 1 from shelf 1"
    assert hit in front.transcript
    assert front.transcript.index("    > action 2: take coin 1 from shelf 1") < front.transcript.index(hit)


async def test_a_crash_while_the_run_takes_the_answer_keeps_the_typed_text_and_resume_goes_on(tmp_path):
    with piped() as pipe:
        front = new_front(tmp_path, pipe)

        def broken(event: ev.Event) -> None:  # a bug in what watches the run, before the journal keeps the answer
            if isinstance(event, ev.LLMAnswered):
                raise RuntimeError("the watcher broke")

        front.agent.host.observers.insert(0, broken)
        task = asyncio.ensure_future(front.run())
        typed = "I look there first\nAction: go to shelf 1"
        await answer(front, pipe, task, typed)
        with pytest.raises(RuntimeError, match="the watcher broke"):
            await asyncio.wait_for(task, 30)
    folder = front.session.folder
    said = "\n".join(front.transcript)
    assert f"the run stopped on an error (RuntimeError: the watcher broke): session {folder.name} saved " \
           "(the text you typed is kept as a draft)." in said
    assert f"continue with: recode-tui run --llm human --resume {folder}" in said
    journal = read_journal(folder)
    assert journal.read_draft()["text"] == typed and journal.finished is None

    from recode_tui.commands.arguments import run_options
    from recode_tui.commands.parser import build_parser

    options = run_options(build_parser().parse_args(["run", "--llm", "human", "--resume", str(folder),
                                                     "--sessions", str(tmp_path / "sessions")]))
    session, pending = await open_plain_session(options, HumanLLM())
    with piped() as pipe:
        front = PlainFrontEnd(session, pending=pending, input=pipe, output=no_output())
        task = asyncio.ensure_future(front.run())
        await editor_open(front, task)
        assert pending.node_id == "n1" and front.prompt_session.default_buffer.text == typed  # the draft is back
        pipe.send_text(ESC_ENTER)
        await changed(front, task, lambda: "■ awaiting your act of n2 `turn 2`" in front.transcript)
        await answer(front, pipe, task, "Action: take coin 1 from shelf 1")
        result = await asyncio.wait_for(task, 30)
    assert result.success and result.steps == 2
