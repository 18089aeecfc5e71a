"""The run state drives the keys: once the episode has ended, the stepping keys are greyed.

On the toy world with node code in-process (tests/console/page.py): the keys are the console's.
"""

from __future__ import annotations


from recode_tui.console.run.run_state import RunState
from recode_tui.console.widgets.key_footer import FooterEntry
from tests.console.helpers import footer_keys

from .page import ConsolePage, toy_console


def _next_key(page: ConsolePage) -> FooterEntry:
    return next(k for k in footer_keys(page.app.screen) if k.action == "step('next')")


async def test_stepping_keys_are_greyed_once_the_episode_has_ended(toy_env) -> None:
    async with toy_console("gold", breakpoints=[]) as page:
        assert page.state is RunState.PAUSED
        assert not _next_key(page).disabled
        await page.step("continue")
        assert page.screen.debugger.done and page.state is RunState.DONE
        assert _next_key(page).disabled
        events, reason = page.screen.debugger.events_seen, page.reason
        await page.press("n")  # a greyed key does nothing, and says nothing
        assert page.screen.debugger.events_seen == events and page.state is RunState.DONE
        assert page.reason == reason and not page.screen.driver.busy
