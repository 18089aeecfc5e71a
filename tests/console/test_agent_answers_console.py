"""Plan-and-Execute and ReCAP answered by a person in the console: the check line speaks the
agent's own format, every call starts from the agent's template, and an action outside the
environment's grammar is refused as ReAct refuses it (ALFWorld's grammar: the real engine)."""

from __future__ import annotations

import pytest

from agent.agents.plan_execute.agent import PLAN_SKELETON, TURN_SKELETON
from agent.agents.recap.agent import SKELETON as RECAP_SKELETON
from agent.runtime import events as ev
from tests.agents.test_plan_execute import WIN_PLAN

from .page import ConsolePage, alfworld_app

pytestmark = pytest.mark.heavy  # ALFWorld's action grammar judges the answers; node code in-process


async def submit_once(page: ConsolePage) -> None:
    """One ctrl+s takes the answer: no second press asked for."""
    await page.command("ctrl+s")  # the stop after the answer
    assert isinstance(page.last_event, ev.LLMAnswered)  # taken on the first ctrl+s


async def until_call(page: ConsolePage, purpose: str) -> ev.LLMRequested:
    for _ in range(10):
        last = page.last_event
        if page.awaiting_answer and isinstance(last, ev.LLMRequested) and last.purpose == purpose:
            assert page.screen.editor.is_open  # opened before the stop was shown
            await page.checked()
            return last
        await page.step("continue")
    raise AssertionError(f"never asked for {purpose}; last: {page.last_event}")


async def test_plan_and_execute_check_line_template_and_action_check() -> None:
    async with ConsolePage.open(alfworld_app(agent="plan-execute")) as page:
        await until_call(page, "plan")
        assert page.editor_text == PLAN_SKELETON
        check = await page.put_answer(WIN_PLAN)
        assert check.ok and check.message == "a plan of 2 step(s): s1, s2"
        await submit_once(page)

        first = await until_call(page, "act")
        assert page.editor_text == TURN_SKELETON
        check = await page.put_answer("Thought: up\nAction: fly to the moon")
        assert not check.ok and "is not an action of alfworld" in check.message and "go to {recep}" in check.message
        check = await page.put_answer("Thought: the table\nAction: go to diningtable 1")
        assert check.ok and check.message == "one action: go to diningtable 1"
        await submit_once(page)

        second = await until_call(page, "act")
        assert second.node_id == first.node_id  # the same step asks again: a fresh template, not the last answer
        assert page.editor_text == TURN_SKELETON
        check = await page.put_answer("Thought: got it\nDone: holding vase 1")
        assert check.ok and check.message.startswith("Done: the step is finished") and "SKIP" not in check.message
        await submit_once(page)
        assert page.agent.tree.root.children[0].status.value != "pending"


async def test_recap_check_line_template_and_action_check() -> None:
    async with ConsolePage.open(alfworld_app(agent="recap")) as page:
        first = await until_call(page, "decompose")
        assert page.editor_text == RECAP_SKELETON
        check = await page.put_answer("Thought: go\nSubtasks:\n1. action: fly to the moon\n2. subtask: put it")
        assert not check.ok and "is not an action of alfworld" in check.message and "line 3" in check.message
        listed = "Thought: the table first\nSubtasks:\n1. action: go to diningtable 1\n2. subtask: put the vase away"
        check = await page.put_answer(listed)
        assert check.ok and check.message == "2 subtask(s); carried out now: action: go to diningtable 1"
        await submit_once(page)

        again = await until_call(page, "refine")
        assert again.node_id == first.node_id
        # The remaining list, not the one just carried out: a person revises it, and ctrl+s never repeats an item.
        assert page.editor_text == "Thought: \nSubtasks:\n1. subtask: put the vase away\n"
        check = await page.put_answer("Thought: stop here\nFailed: no vase in sight")
        assert check.ok and check.message.startswith("Failed: this level gives up") and "SKIP" not in check.message
        await submit_once(page)
