"""ctrl+c in the console: a running run pauses, and the notice says how to quit and come back."""

from __future__ import annotations

import asyncio

from mockllm.scripted import ScriptedLLM
from recode_tui.console.app import build_app

from .helpers import SIZE, started, wait_for
from tests.settings import console_options


class SlowLLM(ScriptedLLM):
    """A model that takes its time: the run stays busy in `c` while it answers."""

    async def complete(self, prompt, context=None):
        await asyncio.sleep(60)
        raise AssertionError("never answers in this test")


async def test_ctrl_c_while_the_run_goes_on_pauses_it_and_says_how_to_quit_and_resume(tmp_path) -> None:
    app = build_app(console_options(sessions_dir=tmp_path, breakpoints=[]), SlowLLM([], name="slow"))
    shown: list[tuple[str, str]] = []
    notify = app.notify
    app.notify = lambda message, *a, title="", **kw: shown.append((title, str(message))) or notify(
        message, *a, title=title, **kw)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await pilot.press("c")
        await wait_for(pilot, lambda: app.debug_screen.driver.busy, what="the run going on")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: bool(shown), what="the notice")
        title, text = shown[-1]
        assert title == "Paused: do you want to quit?"
        assert "q quits" in text and f"recode-tui tui --resume {app.session_control.session.folder}" in text
        assert "pausing" in app.debug_screen.reason  # the run pauses: it does not go on behind the question
