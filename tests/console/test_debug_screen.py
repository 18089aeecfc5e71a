"""One screen per run: a resume puts a new DebugScreen in place of the old one, keys act on the
new agent, nothing of the old run reaches it, and the run state greys the keys that cannot act.

On the in-memory toy episode (tests/toyenv) played like put-01, node code in-process (tests/console/page.py);
a resume replays in-process too (the run's runner maker).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent.runtime import events as ev
from agent.runtime.debugger import Stop, StopReason
from mockllm.scripted import ScriptedLLM, ScriptEntry

from recode_tui.console.screens.debug_screen import DebugScreen
from recode_tui.console.run.run_state import RunState
from recode_tui.console.screens.sessions import SessionsScreen
from recode_tui.console.widgets.driver import AgentDriver
from recode_tui.console.widgets.key_footer import FooterEntry
from tests.settings import in_process

from .helpers import footer_keys, footer_settled, next_stop, notifications, queues_drained
from .page import ConsolePage, filled, toy_console

PLAN = 'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\nrun("go to sidetable 1")\nrun("put vase 1 in/on sidetable 1")'


def footer_key(page: ConsolePage, action: str) -> FooterEntry:
    return next(k for k in footer_keys(page.app.screen) if k.action == action)


async def footer_shown(page: ConsolePage, *keys: str) -> None:
    """Keys that run one command, then its stop with the footer's keys greyed for the new state (a refresh later)."""
    if keys:
        await page.command(*keys)
    await footer_settled(page.pilot)


async def resume_this_session(page: ConsolePage) -> None:
    """`S`, enter on the session on show: it is replayed and shown again."""
    control, old = page.app.session_control, page.screen
    page.screen.tree_view.focus()  # the editor would take the S as text
    screen = await page.opened("S")
    assert isinstance(screen, SessionsScreen)
    await page.work_done("sessions-list")
    assert screen.loaded
    table = screen.query_one("#sessions-table")
    table.move_cursor(row=[r.folder for r in screen.rows].index(control.session.folder))
    await page.replaced("enter")
    assert page.screen is not old and not control.busy


async def test_a_resume_shows_a_new_debug_screen_whose_keys_step_the_new_engine_and_the_old_run_cannot_reach(
        tmp_path: Path, toy_game) -> None:
    async with toy_console(breakpoints=[], sessions_dir=tmp_path) as page:
        app = page.app
        await page.step("continue")
        await page.put_answer(filled(page.editor_text, PLAN))  # pasted: the typing is not what is checked
        await page.command("ctrl+s")
        await page.step("next")
        old, old_agent = page.screen, page.agent
        seen, steps, nodes = old.debugger.events_seen, old_agent.env.steps, len(old_agent.tree)
        await resume_this_session(page)
        new = page.screen
        assert app.screen_stack == [new] and isinstance(new, DebugScreen)
        assert not old.is_attached and not old.query(AgentDriver)  # the old run's screen and driver are gone
        assert new.agent is not old_agent and page.agent is new.agent
        assert (new.agent.env.steps, len(new.agent.tree)) == (steps, nodes) and "resumed" in page.reason
        # What the old driver would post if its agent spoke now: its queue is closed with its screen.
        stale = Stop(ev.RunFinished(None, success=False, reason="stale", steps=99), StopReason("finished", "stale"), 1)
        old_driver, stop, state = old.driver, next_stop(app), new.run_state
        assert not old_driver.post_message(AgentDriver.Stopped(stale).set_sender(old_driver))
        app.post_message(AgentDriver.Stopped(stale).set_sender(old_driver))  # the app does not handle run messages
        await queues_drained(app)  # the app had the message: it handles no run message, and passes it on to none
        await queues_drained(app)  # what it would have posted on is handled too
        assert page.screen is new and not stop.done() and len(new.agent.tree) == nodes
        assert new.run_state is state and "stale" not in new.reason and not new.agent.host.done
        replayed = new.debugger.events_seen
        await page.step("next")
        assert new.debugger.events_seen == replayed + 1  # the key stepped the new agent...
        assert old.debugger.events_seen == seen  # ...and not the old one
        await page.step("continue")
        assert new.agent.host.done and new.agent.host.finished.success and page.state is RunState.DONE


async def test_submit_is_greyed_in_the_footer_while_no_expansion_is_awaited(tmp_path: Path, toy_game) -> None:
    async with toy_console(breakpoints=[]) as page:
        await footer_shown(page)
        assert page.state is RunState.PAUSED
        assert footer_key(page, "submit").disabled  # a stop is shown with its keys settled
        page.app.clear_notifications()
        stop = next_stop(page.app)
        await page.press("ctrl+s")  # a greyed key does nothing, and says nothing
        assert not notifications(page.app) and not stop.done()
        await footer_shown(page, "c")
        assert page.state is RunState.AWAITING
        assert not footer_key(page, "submit").disabled  # Submit back
        await page.put_answer(filled(page.editor_text, PLAN))  # pasted: the typing is not what is checked
        await footer_shown(page, "ctrl+s")
        assert page.agent.tree.root.children
        assert footer_key(page, "submit").disabled  # Submit greyed again


async def test_the_llm_control_sets_the_run_state_through_the_run_screen(toy_game, monkeypatch) -> None:
    entered: list[RunState] = []
    enter_state = DebugScreen.enter_state

    def spy(self, state, kind="", reason=""):
        entered.append(RunState(state))
        enter_state(self, state, kind, reason)

    monkeypatch.setattr(DebugScreen, "enter_state", spy)
    proposal = f"<think>the vase is on the dining table</think>\n<execute>\n{PLAN}\n</execute>\n"
    async with toy_console(ScriptedLLM([ScriptEntry(proposal)]), review=True, breakpoints=[]) as page:
        await page.press("c")
        await page.reached(RunState.REVIEWING)  # the proposal under review
        await footer_shown(page)
        assert "review the proposal for n0" in page.reason
        assert not footer_key(page, "submit").disabled  # ctrl+s accepts it
        await page.command("ctrl+s")
        assert page.agent.host.done and page.state is RunState.DONE  # the run's end
        assert page.finished.success
    assert RunState.REVIEWING in entered and entered[entered.index(RunState.REVIEWING) + 1] is RunState.RUNNING


@pytest.fixture
def coin_session(tmp_path: Path, toy_env) -> Path:
    """A journaled session of coin-1 left behind in `tmp_path` before its first step, as a console that
    was closed at once leaves it (started in-process: its folder and header)."""
    from agent.sessions.session import start_session
    from envs.registry import EpisodeRef
    from recode_tui.setup.build import make_agent, make_llm
    from tests.settings import episode_named, run_settings

    agent = make_agent(run_settings(), episode_named("toy:coin-1"), make_llm("human"), runner_maker=in_process)
    session = start_session(agent, tmp_path, EpisodeRef.parse("toy:coin-1"), "human")
    session.writer.close()
    asyncio.run(agent.close())
    return session.folder


async def test_opening_a_session_of_another_game_names_that_game_on_the_status_line(
        tmp_path: Path, toy_game, coin_session: Path) -> None:
    folder = coin_session
    async with toy_console(breakpoints=[], sessions_dir=tmp_path) as page:
        assert "vase-1" in page.status()
        old = page.screen
        page.screen.tree_view.focus()
        screen = await page.opened("S")
        await page.work_done("sessions-list")
        screen.query_one("#sessions-table").move_cursor(row=[r.folder for r in screen.rows].index(folder))
        await page.replaced("enter")  # the coin-1 session
        assert page.screen is not old
        line = page.status()
        assert "coin-1" in line and "vase-1" not in line
