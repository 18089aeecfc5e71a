"""One way to describe an event: `recode-tui run`, the plain mode and the console's
stop line read the same event the same way."""

from __future__ import annotations

import json
import os
from pathlib import Path

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

import pytest

from agent.runtime import events as ev
from agent.agents.recode.engine import Engine
from agent.runtime.event_text import MainCall, log_line, short
from agent.sessions.session import start_session
from mockllm.scripted import ScriptedLLM
from recode_tui.setup.build import make_agent
from recode_tui.console.app import build_app
from recode_tui.plain.terminal import PlainFrontEnd

from tests.console.page import ConsolePage
from tests.eval.helpers import run_main
from tests.settings import console_options, episode_named, run_settings
from envs.registry import EpisodeRef

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


GAME = "put-01"
REFUSED = '<think>peek</think><execute>\ndata = open("/etc/passwd").read()\n</execute>'
FAILS = '<think>go</think><execute>\nrun("look")\nx = 1 / 0\n</execute>'
WATCHED = (ev.LLMRejected, ev.ActionSent, ev.NodeError, ev.RunFinished)
RECODE = MainCall(Engine.traits.main_purpose, Engine.traits.answer_words.noun)  # ReCode's words for its main call


def script(tmp_path: Path) -> Path:
    """First answer refused by the sandbox, then one action and a node that raises; no repair: the run fails."""
    path = tmp_path / "script.jsonl"
    path.write_text(json.dumps({"answer": REFUSED, "once": True}) + "\n" + json.dumps({"answer": FAILS}) + "\n")
    return path


def test_the_log_line_holds_the_short_phrase() -> None:
    rejected = ev.LLMRejected("n0", reason="forbidden: open", purpose=Engine.traits.main_purpose)
    assert short(rejected, RECODE) == "expansion of n0 rejected: forbidden: open"
    assert log_line(rejected, RECODE) == "    ✗ expansion of n0 rejected: forbidden: open"
    sent = ev.ActionSent("n1", action="go to desk 1", step=3)
    assert short(sent) == "action 3: go to desk 1" and log_line(sent) == "    > action 3: go to desk 1"
    won = ev.RunFinished("n3", success=True, reason="won", steps=7, llm_calls=2)
    assert short(won) == "episode won — 7 steps, 2 LLM calls"
    assert log_line(won).startswith("SUCCESS: won — 7 steps, 2 LLM calls | ")


def test_an_agents_main_call_reads_in_its_own_words_and_any_other_call_by_its_purpose() -> None:
    """The phrase takes the agent's noun for its main call (ReCode's "expansion" is ReCode's own), so a
    plug-in agent's log and stop line never speak of another agent's calls."""
    sketches = MainCall(purpose="draft", noun="sketch")
    answered = ev.LLMAnswered("n0", blocks=("a", "b"), child_ids=("n1", "n2"), source="model", purpose="draft")
    assert short(answered, sketches) == "sketch of n0: 2 child node(s) from model"
    assert short(ev.LLMRejected("n0", reason="too long", purpose="draft"), sketches) == "sketch of n0 rejected: too long"
    assert short(ev.LLMRejected("n0", reason="no", purpose="act"), sketches) == "act of n0 rejected: no"
    assert short(ev.LLMRejected("n0", reason="no", purpose="expand")) == "expand of n0 rejected: no"  # not ReCode's


async def test_the_same_events_read_the_same_headless_in_the_plain_mode_and_on_the_consoles_stop_line(tmp_path):
    path = script(tmp_path)
    env = dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions"), OPENAI_API_KEY="")
    headless = run_main(["run", "--game", GAME, "--llm", f"scripted:{path}"], env).stdout.splitlines()

    # The plain mode, on the same script.
    agent = make_agent(run_settings(), episode_named(GAME), ScriptedLLM.from_file(path))
    session = start_session(agent, tmp_path / "plain", EpisodeRef.parse(GAME), "scripted")
    with create_pipe_input() as pipe:
        front = PlainFrontEnd(session, input=pipe, output=DummyOutput())
        finished = await front.run()
    await agent.close()
    assert isinstance(finished, ev.RunFinished) and not finished.success

    # The console, one event a step: its stop line for each event.
    stop_lines: dict[type, tuple[ev.Event, str]] = {}
    app = build_app(console_options(GAME, breakpoints=[],
                                    sessions_dir=tmp_path / "console"), ScriptedLLM.from_file(path))
    async with ConsolePage.open(app) as page:
        while page.finished is None:
            await page.command("n")
            event = page.screen.debugger.last_stop.event
            if isinstance(event, WATCHED) and type(event) not in stop_lines:
                stop_lines[type(event)] = (event, page.reason)
    assert set(stop_lines) == set(WATCHED)

    for kind, (event, stop_line) in stop_lines.items():
        assert stop_line == short(event, RECODE), kind
        line = log_line(event, RECODE)
        if kind is ev.RunFinished:
            assert line.split(" | LLM time")[0] in headless[-1] and line.split(" | LLM time")[0] in front.transcript[-1]
            assert "no pending nodes left and the task is not done — 1 steps, 3 LLM calls" in stop_line
        else:
            assert short(event, RECODE) in line and line in headless and line in front.transcript, (line, headless)
    assert "    ✗ expansion of n0 rejected: forbidden: open" in headless
    assert "    ! node n2 error: ZeroDivisionError: division by zero" in front.transcript
