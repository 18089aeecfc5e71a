"""The agent driver's batches: what the agent emits while a command still runs reaches the panes once the
batch is due (~50 ms after the last one), not only when the command ends, and a burst is one batch.

On the in-memory toy episode (tests/toyenv), node code in-process (tests/console/page.py). The driver times
a flush only while events wait (an idle console wakes for nothing), so a burst left in its buffer with no
command ending after it must still go out.
"""

from __future__ import annotations

import asyncio

from agent.runtime import events as ev
from recode_tui.console.widgets.driver import AgentDriver
from textual.message import Message

from .helpers import HANG, SIZE, queues_drained
from .page import ConsolePage, toy_app


async def test_a_burst_of_events_with_no_command_ending_after_it_reaches_the_log_as_at_most_two_batches(toy_env):
    batches: list[tuple[ev.Event, ...]] = []
    burst: list[ev.Event] = []
    posted: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def hook(message: Message) -> None:
        if isinstance(message, AgentDriver.Events) and all(b is not message.events for b in batches):  # bubbles: once
            batches.append(message.events)
            if burst and burst[-1] in message.events and not posted.done():
                posted.set_result(None)

    app = toy_app(breakpoints=[])
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        page = ConsolePage(pilot)
        await page.started()
        await page.step("continue")  # the root's expansion: the run waits for a person, no command runs
        node = next(e.node_id for batch in batches for e in batch if isinstance(e, ev.NodeStarted))
        burst[:] = [ev.ActionSent(node_id=node, action=f"burst line {n}", step=n + 1) for n in range(3)]
        batches.clear()
        assert not page.screen.driver.busy
        for event in burst:  # what the agent's steps hand the driver (the debugger's hook), all at once
            page.screen.debugger.on_event(event)
        await asyncio.wait_for(posted, HANG)
        await queues_drained(page.app)  # the screen applied the batch
        assert [e for batch in batches for e in batch] == burst and len(batches) <= 2, batches
        shown = "\n".join(page.screen.env_log.lines)
        assert all(f"burst line {n}" in shown for n in range(3)), shown[-300:]
