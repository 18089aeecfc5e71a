"""The plain mode with Plan-and-Execute: each executor call opens on the agent's template."""

from __future__ import annotations

import asyncio

from agent.agents.plan_execute.agent import TURN_SKELETON
from agent.sessions.session import start_session
from mockllm.human import HumanLLM
from recode_tui.setup.build import make_agent
from recode_tui.plain.terminal import PlainFrontEnd
from tests.agents.test_plan_execute import WIN_PLAN

from tests.plain.keys import ESC_ENTER, changed, editor_open, no_output, paste, piped
from tests.settings import episode_named, run_settings
from envs.registry import EpisodeRef
from tests.envs.webshop_helpers import webshop  # noqa: F401 - the fixture


async def test_the_next_executor_turn_opens_on_the_template_not_the_last_answer(tmp_path) -> None:
    agent = make_agent(run_settings(agent="plan-execute"), episode_named("put-01"), HumanLLM())
    session = start_session(agent, tmp_path / "sessions", EpisodeRef.parse("put-01"), "human")
    with piped() as pipe:
        front = PlainFrontEnd(session, input=pipe, output=no_output())
        task = asyncio.ensure_future(front.run())
        buffer = front.prompt_session.default_buffer
        await editor_open(front, task)  # the planner
        buffer.text = ""
        pipe.send_text(paste(WIN_PLAN) + ESC_ENTER)
        await changed(front, task, lambda: bool(front.agent.tree.root.children))  # the plan is taken: that editor is closed
        await editor_open(front, task)  # s1's first executor turn
        assert buffer.text == TURN_SKELETON
        buffer.text = ""
        pipe.send_text(paste("Thought: the table\nAction: go to diningtable 1") + ESC_ENTER)
        await changed(front, task, lambda: front.agent.env.steps == 1)  # the action is sent: that editor is closed
        await editor_open(front, task)  # s1's second turn: the same node asks again
        assert buffer.text == TURN_SKELETON  # not "Action: go to diningtable 1" again
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_webshop_under_react_refuses_an_action_outside_its_grammar_live_and_names_its_actions(
        tmp_path, webshop) -> None:
    """`Action: buy the cheapest one` is no WebShop action: refused in the editor with WebShop's two verbs,
    no step spent, as ALFWorld refuses text outside its grammar."""
    agent = make_agent(run_settings(agent="react"), episode_named("webshop:0"), HumanLLM())
    session = start_session(agent, tmp_path / "sessions", EpisodeRef.parse("webshop:0"), "human")
    with piped() as pipe:
        front = PlainFrontEnd(session, input=pipe, output=no_output())
        task = asyncio.ensure_future(front.run())
        buffer = front.prompt_session.default_buffer
        await editor_open(front, task)
        buffer.text = ""
        pipe.send_text(paste("Thought: cheap is best\nAction: buy the cheapest one") + ESC_ENTER)
        await changed(front, task, lambda: buffer.validation_error is not None)
        message = " ".join(buffer.validation_error.message.split())
        assert "is not an action of webshop" in message and "search[" in message and "click[" in message
        assert front.agent.env.steps == 0 and front.editing.is_set()  # no step spent, still editing
        buffer.text = ""
        pipe.send_text(paste("Thought: look\nAction: search[shampoo]") + ESC_ENTER)
        await changed(front, task, lambda: front.agent.env.steps == 1)  # a WebShop action goes through
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
