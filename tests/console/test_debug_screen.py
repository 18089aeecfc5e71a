"""One screen per run: a resume puts a new DebugScreen in place of the old one, keys act on the
new agent, nothing of the old run reaches it, and the run state greys the keys that cannot act.

On the in-memory toy episode (tests/toyenv) played like put-01, node code in-process (tests/console/page.py);
a resume replays in the sandbox worker, as every resume does.
"""

from __future__ import annotations

from pathlib import Path

from agent.runtime import events as ev
from agent.runtime.debugger import Stop, StopReason
from mockllm.scripted import ScriptedLLM, ScriptEntry

from recode_tui.console.screens.debug_screen import DebugScreen
from recode_tui.console.run.run_state import RunState
from recode_tui.console.screens.sessions import SessionsScreen
from recode_tui.console.widgets.key_footer import FooterEntry
from recode_tui.console.widgets.driver import AgentDriver
from recode_tui.console.widgets.status_bar import StatusBar

from .helpers import (SIZE, command, footer_keys, next_stop, notifications, session_opened, started, state_entered,
                      type_text, worked)
from .page import toy_app

PLAN = 'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\nrun("go to sidetable 1")\nrun("put vase 1 in/on sidetable 1")'


def footer_key(app, action: str) -> FooterEntry:
    return next(k for k in footer_keys(app.screen) if k.action == action)


async def resume_this_session(pilot, app) -> None:
    """`S`, enter on the session on show: it is replayed and shown again."""
    control, old = app.session_control, app.debug_screen
    app.debug_screen.tree_view.focus()  # the editor would take the S as text
    await pilot.press("S")
    await worked(pilot, "sessions-list")
    assert isinstance(app.screen, SessionsScreen) and app.screen.loaded
    table = app.screen.query_one("#sessions-table")
    table.move_cursor(row=[r.folder for r in app.screen.rows].index(control.session.folder))
    await pilot.press("enter")
    await session_opened(pilot, app)
    assert app.debug_screen is not old and not control.busy


async def test_a_resume_shows_a_new_debug_screen_whose_keys_step_the_new_engine_and_the_old_run_cannot_reach(
        tmp_path: Path, toy_game) -> None:
    app = toy_app(breakpoints=[], sessions_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        await type_text(pilot, PLAN)
        await command(pilot, app, "ctrl+s")
        await command(pilot, app, "n")
        old, old_agent = app.debug_screen, app.debug_screen.agent
        seen, steps, nodes = old.debugger.events_seen, old_agent.env.steps, len(old_agent.tree)
        await resume_this_session(pilot, app)
        new = app.debug_screen
        assert app.screen_stack == [new] and isinstance(new, DebugScreen)
        assert not old.is_attached and not old.query(AgentDriver)  # the old run's screen and driver are gone
        assert new.agent is not old_agent and app.debug_screen.agent is new.agent
        assert (new.agent.env.steps, len(new.agent.tree)) == (steps, nodes) and "resumed" in app.debug_screen.reason
        # What the old driver would post if its agent spoke now: its queue is closed with its screen.
        stale = Stop(ev.RunFinished(None, success=False, reason="stale", steps=99), StopReason("finished", "stale"), 1)
        old_driver, stop, state = old.driver, next_stop(app), new.run_state
        assert not old_driver.post_message(AgentDriver.Stopped(stale).set_sender(old_driver))
        app.post_message(AgentDriver.Stopped(stale).set_sender(old_driver))  # the app does not handle run messages
        await pilot.pause()
        await pilot.pause()
        assert app.debug_screen is new and not stop.done() and len(new.agent.tree) == nodes
        assert new.run_state is state and "stale" not in new.reason and not new.agent.host.done
        replayed = new.debugger.events_seen
        await command(pilot, app, "n")
        assert new.debugger.events_seen == replayed + 1  # the key stepped the new agent...
        assert old.debugger.events_seen == seen  # ...and not the old one
        await command(pilot, app, "c")
        assert new.agent.host.done and new.agent.host.finished.success and app.debug_screen.run_state is RunState.DONE


async def test_submit_is_greyed_in_the_footer_while_no_expansion_is_awaited(tmp_path: Path, toy_game) -> None:
    app = toy_app(breakpoints=[])
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        assert app.debug_screen.run_state is RunState.PAUSED
        assert footer_key(app, "submit").disabled  # a stop is shown with its keys settled
        app.clear_notifications()
        stop = next_stop(app)
        await pilot.press("ctrl+s")  # a greyed key does nothing, and says nothing
        await pilot.pause()
        assert not notifications(app) and not stop.done()
        await command(pilot, app, "c")
        assert app.debug_screen.run_state is RunState.AWAITING
        assert not footer_key(app, "submit").disabled  # Submit back
        await type_text(pilot, PLAN)
        await command(pilot, app, "ctrl+s")
        assert app.debug_screen.agent.tree.root.children
        assert footer_key(app, "submit").disabled  # Submit greyed again


async def test_the_llm_control_sets_the_run_state_through_the_run_screen(toy_game, monkeypatch) -> None:
    entered: list[RunState] = []
    enter_state = DebugScreen.enter_state

    def spy(self, state, kind="", reason=""):
        entered.append(RunState(state))
        enter_state(self, state, kind, reason)

    monkeypatch.setattr(DebugScreen, "enter_state", spy)
    proposal = f"<think>the vase is on the dining table</think>\n<execute>\n{PLAN}\n</execute>\n"
    app = toy_app(ScriptedLLM([ScriptEntry(proposal)]), review=True, breakpoints=[])
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await pilot.press("c")
        await state_entered(pilot, app, RunState.REVIEWING)  # the proposal under review
        assert "review the proposal for n0" in app.debug_screen.reason
        assert not footer_key(app, "submit").disabled  # ctrl+s accepts it
        await command(pilot, app, "ctrl+s")
        assert app.debug_screen.agent.host.done and app.debug_screen.run_state is RunState.DONE  # the run's end
        assert app.debug_screen.agent.host.finished.success
    assert RunState.REVIEWING in entered and entered[entered.index(RunState.REVIEWING) + 1] is RunState.RUNNING


async def test_opening_a_session_of_another_game_names_that_game_on_the_status_line(tmp_path: Path, toy_game) -> None:
    other = toy_app(game="toy:coin-1", breakpoints=[], sessions_dir=tmp_path)
    async with other.run_test(size=SIZE) as pilot:  # leaves a journaled session of coin-1 behind
        await started(pilot, other)
        folder = other.session_control.session.folder
    app = toy_app(breakpoints=[], sessions_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        assert "vase-1" in app.debug_screen.query_one(StatusBar).text
        old = app.debug_screen
        app.debug_screen.tree_view.focus()
        await pilot.press("S")
        await worked(pilot, "sessions-list")
        app.screen.query_one("#sessions-table").move_cursor(row=[r.folder for r in app.screen.rows].index(folder))
        await pilot.press("enter")
        await session_opened(pilot, app)  # the coin-1 session
        assert app.debug_screen is not old
        line = app.debug_screen.query_one(StatusBar).text
        assert "coin-1" in line and "vase-1" not in line
