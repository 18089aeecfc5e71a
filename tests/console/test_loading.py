"""The console's first frame comes while the game loads; no key steps a run that is not ready.

The game's reset (the real ALFWorld engine) is held back by a gate the test
opens, so the loading state lasts as long as the test needs.
"""

from __future__ import annotations

import threading

from recode_tui.console.app import build_app
from recode_tui.console.run_state import RunState
from recode_tui.console.widgets.status_bar import StatusBar

from .helpers import SIZE, notifications, settled, started, wait_for


def gate_reset(app) -> threading.Event:
    """Hold the environment's reset (run in its own thread) until the returned event is set."""
    env, gate = app.engine.env, threading.Event()
    reset = env.reset

    def held_reset():
        gate.wait(30)
        return reset()

    env.reset = held_reset
    return gate


async def test_the_frame_says_loading_and_stepping_keys_wait_for_the_run() -> None:
    app = build_app("put-01", "human", cursor_blink=False)
    gate = gate_reset(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.driver.busy, what="the game's load under way")
        status = app.query_one(StatusBar)
        assert "loading" in str(status.render()) and app.run_state is RunState.STARTING
        for key in ("n", "s", "c"):  # a person who does not wait
            await pilot.press(key)
        await pilot.pause()
        said = [n.message for n in notifications(app)]
        assert sum("loading… the run is not ready yet" in m for m in said) == 3, said
        assert app.stops == 0 and app.engine.env.steps == 0 and len(app.engine.tree) == 1
        gate.set()
        await started(pilot, app)  # the first stop: the task, the run paused at the root
        assert app.run_state is not RunState.STARTING and "loading" not in str(status.render())
        assert app.engine.env.steps == 0  # none of the keys pressed while loading acted
        stops = app.stops
        await pilot.press("n")  # now the same key steps the run
        await wait_for(pilot, lambda: app.stops > stops and not app.driver.busy, what="the step after loading")
        await settled(pilot)
