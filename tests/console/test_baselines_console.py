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

from .helpers import SIZE, checked, command, next_stop, session_opened, started, type_text
from .page import alfworld_app, toy_app
from tests.settings import console_options, episode_named, run_settings
from envs.registry import EpisodeRef

# put-01: "put a vase in sidetable."; the vase is on diningtable 1.
PUT_ACTIONS = ["go to diningtable 1", "take vase 1 from diningtable 1", "go to sidetable 1", "move vase 1 to sidetable 1"]


def log_text(app) -> str:
    return "\n".join(app.debug_screen.env_log.lines)


def header(app) -> str:
    return app.debug_screen.editor.query_one("#expand-header").render().plain


@pytest.mark.heavy  # ALFWorld's action grammar judges the answer (node code in-process)
async def test_a_react_action_outside_alfworlds_grammar_is_refused_live_and_nothing_is_sent() -> None:
    app = alfworld_app(agent="react", breakpoints=[])
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        # The cursor waits after "Thought: "; an action outside ALFWorld's grammar is judged live.
        await type_text(pilot, "the vase may be on the table")
        await pilot.press("down", "end")
        await type_text(pilot, "go to the dining table")
        await checked(pilot, app)
        check = app.debug_screen.editor.last_check
        assert not check.ok and "is not an action of alfworld" in check.message
        stop = next_stop(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not stop.done() and not app.debug_screen.driver.busy and app.debug_screen.agent.env.steps == 0  # refused in the editor
        # Fixed: accepted, and the action is sent to the environment.
        app.debug_screen.editor.editor.load_text("Thought: the vase may be on the table\nAction: go to diningtable 1")
        await checked(pilot, app)
        assert app.debug_screen.editor.last_check.ok and "one action: go to diningtable 1" in app.debug_screen.editor.last_check.message
        await command(pilot, app, "ctrl+s")
        await command(pilot, app, "c")
        assert app.debug_screen.agent.env.steps == 1 and "1 > go to diningtable 1" in log_text(app)


async def test_a_person_plays_react_turns_in_the_editor_resumes_where_they_stopped_and_wins(tmp_path: Path,
                                                                                           toy_env) -> None:
    sessions = tmp_path / "sessions"
    app = toy_app(agent="react", sessions_dir=sessions)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        assert app.debug_screen.run_state == "awaiting expansion" and app.focused is app.debug_screen.editor.editor
        assert app.debug_screen.editor.editor.text == "Thought: \nAction: "  # the agent's format, not <think>/<execute>
        assert "Act n1" in header(app) and "turn 1" in header(app)
        # The cursor waits after "Thought: ": the person types the thought, then the action.
        await type_text(pilot, "the vase may be on the table")
        await pilot.press("down", "end")
        await type_text(pilot, "go to diningtable 1")
        await checked(pilot, app)
        assert app.debug_screen.editor.last_check.ok and "one action: go to diningtable 1" in app.debug_screen.editor.last_check.message
        await command(pilot, app, "ctrl+s")
        assert isinstance(app.debug_screen.debugger.last_event, ev.LLMAnswered)
        await command(pilot, app, "c")  # the action, its observation, then the next turn's call
        assert app.debug_screen.agent.env.steps == 1 and "1 > go to diningtable 1" in log_text(app)
        turn = app.debug_screen.agent.tree.root.children[0]
        assert turn.code == "go to diningtable 1" and turn.thought == "the vase may be on the table"
        assert turn.status is NodeStatus.COMPLETED and app.debug_screen.tree_view.item(turn.id) is not None
        await play_turns(pilot, app, PUT_ACTIONS[1:2])
        assert app.debug_screen.debugger.awaiting_human and app.debug_screen.agent.env.steps == 2
        folder = app.session_control.session.folder
    # The console is gone two turns in: a new one resumes the session where it stopped, and the person wins.
    resumed = toy_app(sessions_dir=sessions, resume=folder)
    async with resumed.run_test(size=SIZE) as pilot:
        await session_opened(pilot, resumed)
        assert resumed.debug_screen.agent.name == "react" and resumed.debug_screen.debugger.awaiting_human
        agent = resumed.debug_screen.agent
        assert agent.env.steps == 2 and [t.code for t in agent.tree.root.children] == [*PUT_ACTIONS[:2], "turn 3"]
        assert "turn 3" in header(resumed) and resumed.debug_screen.editor.editor.text == "Thought: \nAction: "
        await play_turns(pilot, resumed, PUT_ACTIONS[2:])
        assert resumed.debug_screen.run_state == "done" and agent.host.finished.success
        assert [t.code for t in agent.tree.root.children] == PUT_ACTIONS


async def play_turns(pilot, app, actions: list[str]) -> None:
    """Answer one ReAct turn per action, each accepted by the live check, and run it."""
    for action in actions:
        assert app.debug_screen.debugger.awaiting_human
        app.debug_screen.editor.editor.load_text(f"Thought: next\nAction: {action}")
        await checked(pilot, app)
        await command(pilot, app, "ctrl+s")
        await command(pilot, app, "c")


CELL = 'for a in ["go to diningtable 1", "take vase 1 from diningtable 1"]:\n    run(a)\nrun("go to sidetable 1")'


@pytest.mark.heavy  # the sandbox worker's checks judge the cell (on the toy world)
async def test_a_person_writes_codeact_cells_and_an_error_goes_to_the_next_prompt(toy_game) -> None:
    app = build_app(console_options(toy_game, agent="codeact"))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        assert app.debug_screen.debugger.awaiting_human and "cell 1" in header(app)
        assert "<execute>" in app.debug_screen.editor.editor.text
        app.debug_screen.editor.editor.load_text("<think>a helper</think>\n<execute>\nimport os\n</execute>")
        await checked(pilot, app)
        assert not app.debug_screen.editor.last_check.ok and "forbidden" in app.debug_screen.editor.last_check.message  # the sandbox's check
        app.debug_screen.editor.editor.load_text("<think>use a helper from nowhere</think>\n<execute>\ngo_there('desk 1')\n</execute>")
        await checked(pilot, app)
        assert app.debug_screen.editor.last_check.ok  # an undefined call is not refused: it raises when it runs
        await command(pilot, app, "ctrl+s")
        await command(pilot, app, "c")
        assert app.debug_screen.agent.tree.root.children[0].status is NodeStatus.ERROR
        assert "NameError: name 'go_there' is not defined" in app.debug_screen.pending_prompt[1]
        await type_text(pilot, CELL)
        await command(pilot, app, "ctrl+s")
        await command(pilot, app, "c")
        assert app.debug_screen.agent.env.steps == 3
        await type_text(pilot, 'run("move vase 1 to sidetable 1")')
        await command(pilot, app, "ctrl+s")
        await command(pilot, app, "c")
        assert app.debug_screen.run_state == "done" and app.debug_screen.agent.host.finished.success


@pytest.mark.heavy  # ALFWorld's action grammar judges the turn; node code in the sandbox worker
async def test_the_plain_mode_prefills_and_judges_a_react_turn(tmp_path: Path) -> None:
    import asyncio

    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from agent.sessions.session import start_session
    from mockllm.human import HumanLLM
    from recode_tui.setup.build import make_agent
    from recode_tui.plain.terminal import PlainFrontEnd

    agent = make_agent(run_settings(agent="react"), episode_named("put-01"), HumanLLM())
    session = start_session(agent, tmp_path / "sessions", EpisodeRef.parse("put-01"), "human")

    async def until(predicate) -> None:
        for _ in range(3000):
            if predicate():
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"condition not reached: {buffer.text!r} {buffer.validation_error} {agent.env.steps} {front.editing.is_set()}")

    with create_pipe_input() as pipe:
        front = PlainFrontEnd(session, input=pipe, output=DummyOutput())
        task = asyncio.ensure_future(front.run())
        buffer = front.prompt_session.default_buffer
        for number, action in enumerate(PUT_ACTIONS):
            await until(lambda: front.editing.is_set() and front.prompt_session.app.is_running
                        and front.prompt_session.app.render_counter > 0 and buffer.text == "Thought: \nAction: ")
            if number == 0:  # the cursor waits after "Thought: "; a wrong action is refused with the reason
                pipe.send_text("on the table\x1b[B walk to the table\x1b\r")
                await until(lambda: buffer.validation_error is not None)
                assert "is not an action of alfworld" in buffer.validation_error.message
            buffer.text = f"Thought: next\nAction: {action}"
            pipe.send_text("\x1b\r")
            await until(lambda n=number: agent.env.steps > n or task.done())
        result = await asyncio.wait_for(task, 60)
    assert result.success and [t.code for t in agent.tree.root.children] == PUT_ACTIONS
