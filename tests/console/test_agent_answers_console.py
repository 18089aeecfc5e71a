"""Plan-and-Execute and ReCAP answered by a person in the console: the check line speaks the
agent's own format, every call starts from the agent's template, and an action outside the
environment's grammar is refused as ReAct refuses it (ALFWorld's grammar: the real engine)."""

from __future__ import annotations

import pytest

from agent.agents.plan_execute.agent import PLAN_SKELETON, TURN_SKELETON
from agent.agents.recap.agent import SKELETON as RECAP_SKELETON
from agent.runtime import events as ev
from tests.agents.test_plan_execute import WIN_PLAN

from .helpers import SIZE, checked, command, next_stop, started, stop_shown
from .page import alfworld_app

pytestmark = pytest.mark.heavy  # ALFWorld's action grammar judges the answers; node code in-process


async def answer(pilot, app, text: str):
    """Put `text` in the editor and wait for its live check."""
    app.debug_screen.editor.editor.load_text(text)
    await checked(pilot, app)
    return app.debug_screen.editor.last_check


async def submit_once(pilot, app) -> None:
    """One ctrl+s takes the answer: no second press asked for."""
    stop = next_stop(app)
    await pilot.press("ctrl+s")
    await stop_shown(pilot, stop)  # the stop after the answer
    assert isinstance(app.debug_screen.debugger.last_event, ev.LLMAnswered)  # taken on the first ctrl+s


async def until_call(pilot, app, purpose: str) -> ev.LLMRequested:
    for _ in range(10):
        last = app.debug_screen.debugger.last_event
        if app.debug_screen.debugger.awaiting_human and isinstance(last, ev.LLMRequested) and last.purpose == purpose:
            assert app.debug_screen.editor.is_open  # opened before the stop was shown
            await checked(pilot, app)
            return last
        await command(pilot, app, "c")
    raise AssertionError(f"never asked for {purpose}; last: {app.debug_screen.debugger.last_event}")


async def test_plan_and_execute_check_line_template_and_action_check() -> None:
    app = alfworld_app(agent="plan-execute")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await until_call(pilot, app, "plan")
        assert app.debug_screen.editor.editor.text == PLAN_SKELETON
        check = await answer(pilot, app, WIN_PLAN)
        assert check.ok and check.message == "a plan of 2 step(s): s1, s2"
        await submit_once(pilot, app)

        first = await until_call(pilot, app, "act")
        assert app.debug_screen.editor.editor.text == TURN_SKELETON
        check = await answer(pilot, app, "Thought: up\nAction: fly to the moon")
        assert not check.ok and "is not an action of alfworld" in check.message and "go to {recep}" in check.message
        check = await answer(pilot, app, "Thought: the table\nAction: go to diningtable 1")
        assert check.ok and check.message == "one action: go to diningtable 1"
        await submit_once(pilot, app)

        second = await until_call(pilot, app, "act")
        assert second.node_id == first.node_id  # the same step asks again: a fresh template, not the last answer
        assert app.debug_screen.editor.editor.text == TURN_SKELETON
        check = await answer(pilot, app, "Thought: got it\nDone: holding vase 1")
        assert check.ok and check.message.startswith("Done: the step is finished") and "SKIP" not in check.message
        await submit_once(pilot, app)
        assert app.debug_screen.agent.tree.root.children[0].status.value != "pending"


async def test_recap_check_line_template_and_action_check() -> None:
    app = alfworld_app(agent="recap")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        first = await until_call(pilot, app, "decompose")
        assert app.debug_screen.editor.editor.text == RECAP_SKELETON
        check = await answer(pilot, app, "Thought: go\nSubtasks:\n1. action: fly to the moon\n2. subtask: put it")
        assert not check.ok and "is not an action of alfworld" in check.message and "line 3" in check.message
        listed = "Thought: the table first\nSubtasks:\n1. action: go to diningtable 1\n2. subtask: put the vase away"
        check = await answer(pilot, app, listed)
        assert check.ok and check.message == "2 subtask(s); carried out now: action: go to diningtable 1"
        await submit_once(pilot, app)

        again = await until_call(pilot, app, "refine")
        assert again.node_id == first.node_id
        # The remaining list, not the one just carried out: a person revises it, and ctrl+s never repeats an item.
        assert app.debug_screen.editor.editor.text == "Thought: \nSubtasks:\n1. subtask: put the vase away\n"
        check = await answer(pilot, app, "Thought: stop here\nFailed: no vase in sight")
        assert check.ok and check.message.startswith("Failed: this level gives up") and "SKIP" not in check.message
        await submit_once(pilot, app)
