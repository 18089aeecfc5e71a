"""ctrl+c in the console: a running run pauses, and the notice says how to quit and come back.

On the toy world with node code in-process (tests/console/page.py): the notice is the console's.
"""

from __future__ import annotations

import asyncio

from recode_tui.console.run.run_state import RunState
from mockllm.scripted import ScriptedLLM
from recode_tui.console.app import build_app

from .page import ConsolePage, toy_app


class SlowLLM(ScriptedLLM):
    """A model that takes its time: the run stays busy in `c` while it answers."""

    async def complete(self, prompt, context=None):
        await asyncio.sleep(60)
        raise AssertionError("never answers in this test")


async def test_ctrl_c_while_the_run_goes_on_pauses_it_and_says_how_to_quit_and_resume(tmp_path, toy_env) -> None:
    app = toy_app(SlowLLM([], name="slow"), sessions_dir=tmp_path, breakpoints=[])
    shown: list[tuple[str, str]] = []
    notify = app.notify
    app.notify = lambda message, *a, title="", **kw: shown.append((title, str(message))) or notify(
        message, *a, title=title, **kw)
    async with ConsolePage.open(app) as page:
        await page.press("c")
        await page.reached(RunState.RUNNING)
        assert page.screen.driver.busy
        await page.press("ctrl+c")
        title, text = shown[-1]
        assert title == "Paused: do you want to quit?"
        assert "q quits" in text and f"recode-tui tui --resume {app.session_control.session.folder}" in text
        assert "pausing" in page.reason  # the run pauses: it does not go on behind the question
