"""The console's first frame comes while the game loads; no key steps a run that is not ready.

The game's reset (the toy world's, node code in-process: tests/console/page.py) is held back by a
gate the test opens, so the loading state lasts as long as the test needs.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from recode_tui.console.run.run_state import RunState

from .helpers import SIZE, drawn, key_pressed, notifications, refreshed
from .page import TOY_GAME, ConsolePage, toy_app
from tests.settings import console_options, in_process


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


async def load_done(app) -> None:
    """Await the worker that builds the run behind the loading frame."""
    await app.workers.wait_for_complete([w for w in app.workers if w.name == "load-run"])


def gate_reset(app) -> threading.Event:
    """Hold the environment's reset (run in its own thread) until the returned event is set."""
    env, gate = app.debug_screen.agent.env, threading.Event()
    reset = env.reset

    def held_reset():
        gate.wait(30)
        return reset()

    env.reset = held_reset
    return gate


async def test_the_frame_says_loading_and_stepping_keys_wait_for_the_run() -> None:
    app = toy_app()
    gate = gate_reset(app)
    async with app.run_test(size=SIZE) as pilot:
        page = ConsolePage(pilot)
        await refreshed(app)  # the first frame is drawn: the autostarted step (the game's reset) is under way
        assert page.screen.driver.busy
        assert "loading" in page.status() and page.state is RunState.STARTING
        for key in ("n", "s", "c"):  # a person who does not wait
            await key_pressed(app, key)
        said = [n.message for n in notifications(app)]
        assert sum("loading… the run is not ready yet" in m for m in said) == 3, said
        assert not page.screen.first_stop_shown.is_set() and page.steps == 0 and len(page.agent.tree) == 1
        gate.set()
        await page.started()  # the first stop: the task, the run paused at the root
        assert page.state is not RunState.STARTING and "loading" not in page.status()
        assert page.steps == 0  # none of the keys pressed while loading acted
        await page.step("next")  # now the same key steps the run


# ---- the frame before the run exists (`recode-tui tui` on a terminal: `RecodeApp(loader=...)`)

def gated_loader(app_args: dict, gate: threading.Event, built: list, closed: threading.Event | None = None):
    """A `RunLoader` that builds the real run (on the toy world) once `gate` opens; `built` gets the run
    first, then "closed" once its agent is closed (`closed` is set then)."""
    from recode_tui.console.run.run_builder import load_run

    def load():
        gate.wait(30)
        run = load_run(console_options(TOY_GAME, sessions_dir=app_args.get("sessions_dir")), runner_maker=in_process)
        close = run.agent.close

        async def recorded_close() -> None:  # the test sees whether the loader's agent was closed
            built.append("closed")
            await close()
            closed.set()

        run.agent.close = recorded_close
        built.insert(0, run)
        return run

    return load


async def test_the_first_frame_comes_before_the_run_is_built_and_the_run_replaces_it(tmp_path) -> None:
    from recode_tui.console.app import RecodeApp
    from recode_tui.console.screens.loading import LoadingScreen

    gate, built = threading.Event(), []
    app = RecodeApp(loader=gated_loader({"sessions_dir": tmp_path}, gate, built), episode=TOY_GAME, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await drawn(app)  # the first frame, the loader's worker started after it
        assert isinstance(app.screen, LoadingScreen) and not app.loaded and not built
        shown = str(app.screen.query_one("#loading-status").render())
        assert f"loading {TOY_GAME}" in shown
        for key in ("n", "c", "ctrl+c"):  # no run yet: the keys do nothing, and nothing breaks
            await key_pressed(app, key)
        assert any("Still loading" in (n.title or "") for n in notifications(app))
        gate.set()
        await load_done(app)
        assert app.loaded
        page = ConsolePage(pilot)
        await page.started()
        assert not isinstance(app.screen, LoadingScreen) and page.agent is built[0].agent
        assert app.session_control is not None and app.session_control.session is not None  # journaled
        assert app.resume_hint().startswith("recode-tui tui --resume ")
        await page.step("next")  # a step of the loaded run


async def test_an_error_while_loading_ends_the_app_and_is_kept_for_the_command_line() -> None:
    from recode_tui.setup.usage import UsageError
    from recode_tui.console.app import RecodeApp

    def broken():
        raise UsageError("no such game 'nope'")

    app = RecodeApp(loader=broken, episode="nope", cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await refreshed(app)  # the first frame: the loader's worker is started after it
        await load_done(app)
    assert isinstance(app.load_error, UsageError) and app.return_code == 2


async def test_quitting_while_loading_closes_what_the_loader_built(tmp_path) -> None:
    from recode_tui.console.app import RecodeApp

    gate, built, closed = threading.Event(), [], threading.Event()
    app = RecodeApp(loader=gated_loader({}, gate, built, closed), episode=TOY_GAME, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await refreshed(app)  # the first frame: the loader's worker is started after it
        await key_pressed(app, "q")
    gate.set()
    # the loader thread finishes after the app: it closes its own agent (the limit bounds a real hang only)
    assert await asyncio.to_thread(closed.wait, 60), built
    assert built[-1] == "closed" and not app.loaded


def test_the_command_line_reports_a_load_error_after_the_app_in_one_line(monkeypatch, capsys) -> None:
    """On a terminal `tui` builds behind the first frame; a bad game still ends in one line and exit 2."""
    import sys

    from textual.app import App

    from recode_tui.commands import cli
    from recode_tui.console.app import RecodeApp

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.__stderr__, "isatty", lambda: True)
    made = []
    monkeypatch.setattr(RecodeApp, "run", lambda self, **kw: (made.append(self), App.run(self, headless=True, size=SIZE))[1])
    code = cli.main(["tui", "--game", "no-such-game-42"])
    err = capsys.readouterr().err
    assert made and made[0]._loader is not None  # the deferred path was taken
    assert code == 2 and err.count("\n") == 1 and err.startswith("recode-tui: error: ") and "no-such-game-42" in err


async def test_a_console_started_to_resume_builds_only_the_run_it_resumes(tmp_path, monkeypatch) -> None:
    """`recode-tui tui --resume` on a terminal: the loading frame stays under the replay's cover; no fresh
    run's panes are built first, and the agent the console was started with is closed once the replay shows."""
    from agent.runtime import events as ev
    from agent.sessions.session import start_session
    from envs.registry import EpisodeRef
    from recode_tui.console.app import RecodeApp
    from recode_tui.console.run.run_builder import load_run
    from recode_tui.console.screens.debug_screen import DebugScreen
    from recode_tui.console.screens.loading import LoadingScreen
    from recode_tui.console.screens.replay import ReplayScreen
    from recode_tui.setup.build import make_agent, make_llm
    from tests.settings import episode_named, run_settings

    # a session to resume: the gold model's run, stopped after its first action as a killed run would be
    played = make_agent(run_settings(), episode_named(TOY_GAME), make_llm("gold", None, episode_named(TOY_GAME)),
                        runner_maker=in_process)
    folder = start_session(played, tmp_path, EpisodeRef.parse(TOY_GAME), "gold").folder
    while not isinstance(await played.step(), ev.ObservationReceived):
        pass
    await played.close()
    made: list[tuple[str, list[type]]] = []  # the run screens built: how their run came, what was on show then

    class Counted(DebugScreen):
        def __init__(self, agent, **options) -> None:
            made.append((options.get("how") or "fresh", [type(screen) for screen in app.screen_stack]))
            app.session_control.save_work()  # the save timer's tick while the replay runs: no run's set-up yet
            super().__init__(agent, **options)

    monkeypatch.setattr(RecodeApp, "run_screen_class", Counted)
    started, closed = [], threading.Event()

    def load():
        run = load_run(console_options(TOY_GAME, sessions_dir=tmp_path, resume=folder), runner_maker=in_process)
        close = run.agent.close

        async def recorded_close() -> None:
            await close()
            closed.set()

        run.agent.close = recorded_close
        started.append(run.agent)
        return run

    app = RecodeApp(loader=load, episode=TOY_GAME, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await refreshed(app)  # the first frame: the loader's worker is started after it
        await load_done(app)
        page = ConsolePage(pilot)
        await page.started()  # the replay's worker, then the replayed run's first stop
        assert made == [("resumed", [LoadingScreen, ReplayScreen])]  # the replay ran over the loading frame
        assert app.session_control.how == "resumed" and page.agent is not started[0] and closed.is_set()
        assert not isinstance(app.screen, (LoadingScreen, ReplayScreen))
        await page.step("next")  # the resumed run steps on
