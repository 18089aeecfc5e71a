"""A throwaway environment and a throwaway agent, both defined in tests/toyenv, go through every front end.

`tests.toyenv` registers the `toy` environment and the `one-action` agent
through the registries' public `register` functions; RECODE_TUI_PLUGINS names
it so processes started here (the command line, eval's environment workers)
register them too. Nothing outside tests/ knows either of them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.runtime import events as ev
from agent.runtime.tree import NodeStatus
from agent.sessions.journal_read import read_journal
from agent.sessions.session import branch_session, fork_at_answer, reopen_session, resume_session, start_session
from envs.registry import make_env
from mockllm.scripted import ScriptedLLM
from recode_tui.commands.cli import main
from recode_tui.setup.build import make_agent, make_llm
from tests import toyenv
from tests.toyenv.agent import OneActionAgent
from tests.settings import console_options, episode_named, run_settings
from envs.registry import EpisodeRef

ROOT = Path(__file__).resolve().parents[1]
COIN = toyenv.SCRIPTS / "coin.yaml"
AGENT_RUN = ["--env", "toy", "--agent", "one-action", "--llm", f"scripted:{COIN}"]


@pytest.fixture(autouse=True)
def toy(toy_env):
    """Registered here and in every process a test starts (see tests/conftest.py); gone afterwards."""
    return toy_env


def test_run_plays_the_toy_episode_with_the_test_agent_in_process_and_as_a_command(tmp_path, capsys):
    sessions = tmp_path / "sessions"
    assert main(["run", *AGENT_RUN, "--game", "coin-1", "--sessions", str(sessions)]) == 0
    out = capsys.readouterr().out
    assert "act of n1 answered by scripted: go to shelf 1" in out
    assert "SUCCESS: won — 2 steps, 2 LLM calls" in out
    [folder] = sessions.iterdir()
    journal = read_journal(folder)
    assert (journal.header.run.env.name, journal.header.episode, journal.header.run.agent.name) == ("toy", "coin-1", "one-action")
    assert [r["action"] for r in journal.records if r["type"] == "action"] == ["go to shelf 1", "take coin 1 from shelf 1"]
    assert main(["export", folder.name, "--markdown", "--exec", "--sessions", str(sessions)]) == 0  # replays the journal
    assert "`> take coin 1 from shelf 1` — You pick up the coin 1 from the shelf 1." in capsys.readouterr().out

    # A fresh process knows them only through RECODE_TUI_PLUGINS.
    done = subprocess.run([sys.executable, "-m", "recode_tui", "run", *AGENT_RUN, "--game", "toy:coin-2", "--quiet",
                           "--sessions", str(tmp_path / "other")], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("SUCCESS: won — 2 steps, 2 LLM calls"), done.stdout
    capsys.readouterr()
    assert main(["games", "list", "--env", "toy", "--task-type", "take"]) == 0  # here: one fresh process is enough
    assert capsys.readouterr().out.split() == ["coin-1", "take", "take", "a", "coin.", "coin-2", "take", "take", "a",
                                                "coin."]


def test_a_plugin_that_cannot_be_imported_is_one_line_and_the_rest_works(tmp_path):
    env = dict(os.environ, RECODE_TUI_PLUGINS="no_such_plugin_module")
    done = subprocess.run([sys.executable, "-m", "recode_tui", "games", "list", "--task-type", "put"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert done.returncode == 0 and "put-01" in done.stdout
    assert done.stderr.count("\n") == 1
    assert "RECODE_TUI_PLUGINS: cannot import no_such_plugin_module" in done.stderr


async def first_turn_only(sessions: Path):
    """A journaled run of the test agent whose process "dies" after its first turn."""
    agent = make_agent(run_settings(agent="one-action"), episode_named("toy:coin-1"), make_llm(f"scripted:{COIN}"))
    assert isinstance(agent, OneActionAgent)
    session = start_session(agent, sessions, EpisodeRef.parse("toy:coin-1"), f"scripted:{COIN}")
    seen = []
    while not isinstance(seen[-1:] and seen[-1], ev.ObservationReceived):
        seen.append(await agent.step())
    session.writer.close()
    await agent.close()
    return session, [e for e in seen if isinstance(e, ev.LLMRequested)]


async def test_a_journal_of_the_test_agent_resumes_to_the_same_state_and_goes_on(tmp_path):
    session, asked = await first_turn_only(tmp_path / "sessions")

    resumed, replayed = await resume_session(session.folder, make_llm(f"scripted:{COIN}"), make_env)
    assert isinstance(resumed.agent, OneActionAgent) and resumed.agent.env.steps == 1
    # replayed to the next point that needs the outside world: turn 2's LLM call, after the same first prompt
    prompts = [e.prompt for e in replayed if isinstance(e, ev.LLMRequested)]
    assert prompts[:1] == [a.prompt for a in asked] and isinstance(replayed[-1], ev.LLMRequested)
    assert "> go to shelf 1\nYou arrive at shelf 1." in replayed[-1].prompt
    assert [(n.code, n.status) for n in resumed.agent.tree.root.children] == [
        ("turn 1", NodeStatus.COMPLETED), ("turn 2", NodeStatus.RUNNING)]
    result = await resumed.agent.run()
    resumed.writer.close()
    await resumed.agent.close()
    assert result.success and result.steps == 2 and result.llm_calls == 2
    journal = read_journal(session.folder)
    assert [r["purpose"] for r in journal.records if r["type"] == "answer"] == ["act", "act"]
    assert journal.finished["success"] is True

    # An eval's journal (outside the sessions folder) reopens as a copy; a finished run replays to its end.
    again, events = await reopen_session(session.folder, ScriptedLLM([]), make_env, tmp_path / "elsewhere")
    await again.agent.close()
    again.writer.close()
    assert isinstance(events[-1], ev.RunFinished) and events[-1].success
    assert again.folder.parent == tmp_path / "elsewhere"


async def test_a_fork_gives_a_turn_of_the_test_agent_another_answer_and_keeps_the_old_session(tmp_path):
    from mockllm.scripted import ScriptEntry

    session, _ = await first_turn_only(tmp_path / "sessions")
    original = (session.folder / "journal.jsonl").read_text()
    other = ScriptedLLM([ScriptEntry("Action: look", purpose="act")])
    fork, events = await branch_session(session.folder, fork_at_answer("n1"), other, make_env,
                                        tmp_path / "sessions", "fork n1")
    assert isinstance(events[-1], ev.LLMRequested) and events[-1].node_id == "n1"
    assert fork.agent.env.steps == 0
    event = await fork.agent.step()
    assert isinstance(event, ev.LLMAnswered) and event.blocks == ("look",)
    fork.writer.close()
    await fork.agent.close()
    assert (session.folder / "journal.jsonl").read_text() == original
    assert read_journal(fork.folder).header.parent.session == session.folder.name


def test_the_command_line_resumes_the_test_agent_with_the_llm_it_recorded(tmp_path, capsys):
    import asyncio

    sessions = tmp_path / "sessions"
    session, _ = asyncio.run(first_turn_only(sessions))
    assert main(["run", "--resume", session.folder.name, "--sessions", str(sessions), "--quiet"]) == 0
    assert "SUCCESS: won — 2 steps, 2 LLM calls" in capsys.readouterr().out
    assert read_journal(session.folder).finished["success"] is True


async def test_the_console_draws_and_steps_the_test_agent(tmp_path):
    from recode_tui.console.app import build_app

    from tests.console.helpers import SIZE
    from tests.console.page import ConsolePage

    app = build_app(console_options("toy:coin-1", f"scripted:{COIN}", agent="one-action",
                                    sessions_dir=tmp_path / "sessions"))
    async with ConsolePage.open(app) as page:
        assert isinstance(page.agent, OneActionAgent)
        await page.command("c")  # stops at the first LLM call (the every-call breakpoint)
        assert isinstance(page.last_event, ev.LLMRequested)
        assert page.last_event.purpose == "act"
        for _ in range(6):
            if page.finished is not None:
                break
            await page.command("c")  # the next call's stop, or the run's end
        assert page.finished is not None and page.finished.success
        assert [n.code for n in page.agent.tree.root.children] == ["turn 1", "turn 2"]
        assert "take coin 1 from shelf 1" in " ".join(page.log().split())  # the log pane wraps it at 100x30
    [folder] = (tmp_path / "sessions").iterdir()
    assert read_journal(folder).header.run.agent.name == "one-action"

    # `tui --resume`: the console replays the journal into a new run of the same agent
    again = build_app(console_options("toy:coin-1", f"scripted:{COIN}", agent="one-action",
                                      sessions_dir=tmp_path / "sessions", resume=folder))
    async with again.run_test(size=SIZE) as pilot:
        await ConsolePage(pilot).replaced()  # the start-up resume: its replay, then the run shown at its end
        assert "episode won" in again.debug_screen.reason
        assert isinstance(again.debug_screen.agent, OneActionAgent) and again.debug_screen.agent is not app.debug_screen.agent
        assert [(n.code, n.status) for n in again.debug_screen.agent.tree.root.children] == [
            ("turn 1", NodeStatus.COMPLETED), ("turn 2", NodeStatus.COMPLETED)]


def test_eval_runs_the_test_agent_on_the_toy_episodes_in_worker_processes(tmp_path, capsys):
    out = tmp_path / "eval"
    code = main(["eval", *AGENT_RUN, "--task-types", "take", "-c", "2", "--out", str(out), "--no-progress"])
    assert code == 0, capsys.readouterr().err
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == "complete"
    assert sorted(e["game"] for e in report["episodes"]) == ["coin-1", "coin-2"]
    assert report["plan"]["run"]["env"]["name"] == "toy" and report["plan"]["run"]["agent"]["name"] == "one-action"
    assert all(e["success"] for e in report["episodes"])
    assert report["summary"]["by_task_type"]["take"]["successes"] == 2
    journals = sorted(p.name for p in (out / "journals").iterdir())
    assert len(journals) == 2
    header = read_journal(out / "journals" / journals[0]).header
    assert header.run.agent.name == "one-action" and header.run.env.name == "toy"


async def test_the_plain_mode_asks_a_person_with_the_test_agents_own_skeleton_and_rule(tmp_path):
    """The plain terminal front end judges a typed answer with the agent's rule, not ReCode's."""
    import asyncio

    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from mockllm.human import HumanLLM
    from recode_tui.plain.terminal import PlainFrontEnd
    from tests.plain.keys import ESC_ENTER, changed, editor_open

    agent = make_agent(run_settings(agent="one-action"), episode_named("toy:coin-1"), HumanLLM())
    session = start_session(agent, tmp_path / "sessions", EpisodeRef.parse("toy:coin-1"), "human")
    with create_pipe_input() as pipe:
        front = PlainFrontEnd(session, input=pipe, output=DummyOutput())
        task = asyncio.ensure_future(front.run())
        await editor_open(front, task)
        buffer = front.prompt_session.default_buffer
        assert buffer.text == "Action: "
        pipe.send_text("go to shelf 1" + ESC_ENTER)  # the skeleton's `Action: ` kept: accepted
        await changed(front, task, lambda: agent.env.steps == 1 and front.editing.is_set() and buffer.text == "Action: ")
        buffer.text = ""
        pipe.send_text("take coin 1 from shelf 1" + ESC_ENTER)  # no `Action:` line: refused, text kept
        await changed(front, task, lambda: buffer.validation_error is not None)
        assert "no `Action:` line" in buffer.validation_error.message
        buffer.text = "Action: take coin 1 from shelf 1"
        pipe.send_text(ESC_ENTER)
        result = await asyncio.wait_for(task, 60)
    assert isinstance(result, ev.RunFinished) and result.success and result.steps == 2
    assert any("prompt for act of [n1]" in line for line in front.transcript)
