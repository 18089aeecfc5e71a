"""The run state drives the keys: once the episode has ended, the stepping keys are greyed."""

from __future__ import annotations

from pathlib import Path

from textual.widget import Widget

from recode_tui.console.app import build_app
from recode_tui.console.run.run_state import RunState
from tests.console.helpers import SIZE, command, footer_keys, next_stop, started, wait_for
from tests.settings import console_options


def _next_key(app) -> Widget:
    return next(k for k in footer_keys(app.screen) if k.action == "step('next')")


async def test_stepping_keys_are_greyed_once_the_episode_has_ended(tmp_path: Path) -> None:
    app = build_app(console_options("put-01", "demo", breakpoints=[], sessions_dir=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        assert app.debug_screen.run_state is RunState.PAUSED
        assert not _next_key(app).has_class("-disabled")
        await command(pilot, app, "c")
        assert app.debug_screen.debugger.done and app.debug_screen.run_state is RunState.DONE
        await wait_for(pilot, lambda: _next_key(app).has_class("-disabled"), what="the greyed Next key")
        stop = next_stop(app)
        await pilot.press("n")  # a greyed key does nothing, and says nothing
        await pilot.pause()
        assert not stop.done() and app.debug_screen.run_state is RunState.DONE
