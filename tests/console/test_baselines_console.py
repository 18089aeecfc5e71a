"""ReAct and CodeAct in the console with a person as the LLM: the editor shows the agent's
format, judges with the agent's own rule as the person types, and the answer is acted on.

On the toy world, node code in-process (tests/console/page.py), except where ALFWorld's action grammar
or the sandbox's checks are what is judged."""

from __future__ import annotations

from pathlib import Path

from agent.runtime import events as ev
from agent.runtime.tree import NodeStatus
import pytest

from recode_tui.console.app import build_app

from .helpers import next_stop
from .page import ConsolePage, alfworld_app, toy_app
from tests.settings import console_options, episode_named, run_settings
from envs.registry import EpisodeRef

# put-01: "put a vase in sidetable."; the vase is on diningtable 1.
PUT_ACTIONS = ["go to diningtable 1", "take vase 1 from diningtable 1", "go to sidetable 1", "move vase 1 to sidetable 1"]


@pytest.mark.heavy  # ALFWorld's action grammar judges the answer (node code in-process)
async def test_a_react_action_outside_alfworlds_grammar_is_refused_live_and_nothing_is_sent() -> None:
    async with ConsolePage.open(alfworld_app(agent="react", breakpoints=[])) as page:
        await page.step("continue")
        # The cursor waits after "Thought: "; an action outside ALFWorld's grammar is judged live.
        await page.type("the vase may be on the table")
        await page.press("down", "end")
        await page.type("go to the dining table")
        await page.checked()
        assert not page.check.ok and "is not an action of alfworld" in page.check.message
        stop = next_stop(page.app)
        await page.press("ctrl+s")
        assert not stop.done() and not page.screen.driver.busy and page.steps == 0  # refused in the editor
        # Fixed: accepted, and the action is sent to the environment.
        check = await page.put_answer("Thought: the vase may be on the table\nAction: go to diningtable 1")
        assert check.ok and "one action: go to diningtable 1" in check.message
        await page.command("ctrl+s")
        await page.step("continue")
        assert page.steps == 1 and "1 > go to diningtable 1" in page.log()


async def test_a_person_plays_react_turns_in_the_editor_resumes_where_they_stopped_and_wins(tmp_path: Path,
                                                                                           toy_env) -> None:
    sessions = tmp_path / "sessions"
    async with ConsolePage.open(toy_app(agent="react", sessions_dir=sessions)) as page:
        await page.step("continue")
        assert page.state == "awaiting expansion" and page.app.focused is page.screen.editor.editor
        assert page.editor_text == "Thought: \nAction: "  # the agent's format, not <think>/<execute>
        assert "Act n1" in page.header() and "turn 1" in page.header()
        # The cursor waits after "Thought: ": the person types the thought, then the action.
        await page.type("the vase may be on the table")
        await page.press("down", "end")
        await page.type("go to diningtable 1")
        await page.checked()
        assert page.check.ok and "one action: go to diningtable 1" in page.check.message
        await page.command("ctrl+s")
        assert isinstance(page.last_event, ev.LLMAnswered)
        await page.step("continue")  # the action, its observation, then the next turn's call
        assert page.steps == 1 and "1 > go to diningtable 1" in page.log()
        turn = page.agent.tree.root.children[0]
        assert turn.code == "go to diningtable 1" and turn.thought == "the vase may be on the table"
        assert turn.status is NodeStatus.COMPLETED and page.screen.tree_view.item(turn.id) is not None
        await play_turns(page, PUT_ACTIONS[1:2])
        assert page.awaiting_answer and page.steps == 2
        folder = page.app.session_control.session.folder
    # The console is gone two turns in: a new one resumes the session where it stopped, and the person wins.
    async with ConsolePage.open(toy_app(sessions_dir=sessions, resume=folder)) as page:
        assert page.agent.name == "react" and page.awaiting_answer
        agent = page.agent
        assert agent.env.steps == 2 and [t.code for t in agent.tree.root.children] == [*PUT_ACTIONS[:2], "turn 3"]
        assert "turn 3" in page.header() and page.editor_text == "Thought: \nAction: "
        await play_turns(page, PUT_ACTIONS[2:])
        assert page.state == "done" and agent.host.finished.success
        assert [t.code for t in agent.tree.root.children] == PUT_ACTIONS


async def play_turns(page: ConsolePage, actions: list[str]) -> None:
    """Answer one ReAct turn per action, each accepted by the live check, and run it."""
    for action in actions:
        assert page.awaiting_answer
        await page.put_answer(f"Thought: next\nAction: {action}")
        await page.command("ctrl+s")
        await page.step("continue")


CELL = 'for a in ["go to diningtable 1", "take vase 1 from diningtable 1"]:\n    run(a)\nrun("go to sidetable 1")'


@pytest.mark.heavy  # the sandbox worker's checks judge the cell (on the toy world)
async def test_a_person_writes_codeact_cells_and_an_error_goes_to_the_next_prompt(toy_game) -> None:
    async with ConsolePage.open(build_app(console_options(toy_game, agent="codeact"))) as page:
        await page.step("continue")
        assert page.awaiting_answer and "cell 1" in page.header()
        assert "<execute>" in page.editor_text
        check = await page.put_answer("<think>a helper</think>\n<execute>\nimport os\n</execute>")
        assert not check.ok and "forbidden" in check.message  # the sandbox's check
        check = await page.put_answer("<think>use a helper from nowhere</think>\n<execute>\ngo_there('desk 1')\n</execute>")
        assert check.ok  # an undefined call is not refused: it raises when it runs
        await page.command("ctrl+s")
        await page.step("continue")
        assert page.agent.tree.root.children[0].status is NodeStatus.ERROR
        assert "NameError: name 'go_there' is not defined" in page.prompt
        await page.type(CELL)
        await page.command("ctrl+s")
        await page.step("continue")
        assert page.steps == 3
        await page.type('run("move vase 1 to sidetable 1")')
        await page.command("ctrl+s")
        await page.step("continue")
        assert page.state == "done" and page.finished.success


@pytest.mark.heavy  # ALFWorld's action grammar judges the turn; node code in the sandbox worker
async def test_the_plain_mode_prefills_and_judges_a_react_turn(tmp_path: Path) -> None:
    import asyncio

    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from agent.sessions.session import start_session
    from mockllm.human import HumanLLM
    from recode_tui.setup.build import make_agent
    from recode_tui.plain.terminal import PlainFrontEnd
    from tests.plain.keys import changed

    agent = make_agent(run_settings(agent="react"), episode_named("put-01"), HumanLLM())
    session = start_session(agent, tmp_path / "sessions", EpisodeRef.parse("put-01"), "human")

    with create_pipe_input() as pipe:
        front = PlainFrontEnd(session, input=pipe, output=DummyOutput())
        task = asyncio.ensure_future(front.run())
        buffer = front.prompt_session.default_buffer
        for number, action in enumerate(PUT_ACTIONS):
            await changed(front, task, lambda: front.editing.is_set() and front.prompt_session.app.is_running
                          and front.prompt_session.app.render_counter > 0 and buffer.text == "Thought: \nAction: ")
            if number == 0:  # the cursor waits after "Thought: "; a wrong action is refused with the reason
                pipe.send_text("on the table\x1b[B walk to the table\x1b\r")
                await changed(front, task, lambda: buffer.validation_error is not None)
                assert "is not an action of alfworld" in buffer.validation_error.message
            buffer.text = f"Thought: next\nAction: {action}"
            pipe.send_text("\x1b\r")
            await changed(front, task, lambda n=number: agent.env.steps > n or task.done())
        result = await asyncio.wait_for(task, 60)
    assert result.success and [t.code for t in agent.tree.root.children] == PUT_ACTIONS
