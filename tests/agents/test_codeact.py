"""CodeAct on the real ALFWorld engine and the sandboxed runner, with scripted cells."""

from __future__ import annotations

import pytest

from agent.agents.codeact.agent import CodeActAgent
from agent.runtime import events as ev
from agent.runtime.debugger import Debugger, StepMode
from agent.runtime.limits import Limits
from agent.runtime.tree import NodeStatus
from mockllm.scripted import ScriptEntry, ScriptedLLM
from recode_tui.setup.build import make_agent

from .scripts import TASK_TYPES, cell_answer, first_game, loop_cell, walkthrough
from tests.settings import episode_named, run_settings

pytestmark = pytest.mark.heavy  # real ALFWorld games


PUT = ["go to diningtable 1", "take vase 1 from diningtable 1", "go to sidetable 1", "move vase 1 to sidetable 1"]


def cells(*codes: str) -> ScriptedLLM:
    return ScriptedLLM([ScriptEntry(cell_answer(code), purpose="act", once=True) for code in codes])


async def play(agent) -> list[ev.Event]:
    events = []
    try:
        while not agent.host.done:
            events.append(await agent.step())
    finally:
        await agent.close()
    return events


@pytest.mark.parametrize("task_type", TASK_TYPES)
async def test_codeact_wins_a_bundled_game_of_each_task_type_in_two_cells(task_type):
    game = first_game(task_type)
    actions = walkthrough(game)
    half = len(actions) // 2
    agent = make_agent(run_settings(agent="codeact"), episode_named(game),
                         cells(loop_cell(actions[:half]), loop_cell(actions[half:])))
    assert isinstance(agent, CodeActAgent)
    events = await play(agent)
    finished = events[-1]
    assert finished.success and finished.reason == "won" and finished.llm_calls == 2
    sent = [e.step for e in events if isinstance(e, ev.ActionSent)]
    assert sent == list(range(1, len(actions) + 1))  # every run() its own event
    assert [c.status for c in agent.tree.root.children] == [NodeStatus.COMPLETED] * 2


async def test_the_debugger_stops_between_two_actions_of_a_cells_loop():
    agent = make_agent(run_settings(agent="codeact"), episode_named("put-01"),
                         cells(loop_cell(PUT[:2]), loop_cell(PUT[2:])))
    debugger = Debugger(agent, breakpoints=[])
    try:
        stop = await debugger.step(StepMode.INTO)
        while not isinstance(stop.event, ev.ActionSent):
            stop = await debugger.step(StepMode.INTO)
        cell = agent.tree.nodes[stop.event.node_id]
        assert stop.event.action == PUT[0] and agent.env.steps == 0  # stopped before the first action is sent
        stop = await debugger.step(StepMode.INTO)
        while not isinstance(stop.event, ev.ActionSent):
            stop = await debugger.step(StepMode.INTO)
        # between the two actions of the same loop: the first is done, the cell still runs
        assert stop.event.action == PUT[1] and stop.event.node_id == cell.id
        assert agent.env.steps == 1 and cell.status is NodeStatus.RUNNING
        stop = await debugger.step(StepMode.CONTINUE)
        assert isinstance(stop.event, ev.RunFinished) and stop.event.success
    finally:
        await agent.close()


async def test_an_error_and_a_function_from_an_earlier_cell_go_to_the_next_call():
    agent = make_agent(run_settings(agent="codeact"), episode_named("put-01"), cells(
        "def go(place):\n    return run(f'go to {place}')\ngo('diningtable 1')",  # defined and used in one cell: fine
        "go('sidetable 1')",  # the function is not kept between cells
        "items = {}\nprint(items['vase'])",
        loop_cell(PUT[1:]),
    ))
    events = await play(agent)
    assert events[-1].success
    first, second, third, fourth = agent.tree.root.children
    assert first.status is NodeStatus.COMPLETED and agent.env.steps == 4
    assert second.status is NodeStatus.ERROR and "NameError: name 'go' is not defined" in second.error
    assert "functions are not kept between cells" in second.error
    assert third.status is NodeStatus.ERROR and "KeyError" in third.error
    prompts = [e.prompt for e in events if isinstance(e, ev.LLMRequested)]
    assert "Error: NameError: name 'go' is not defined" in prompts[2]
    assert "Error: KeyError" in prompts[3] and "You arrive at diningtable 1" in prompts[1]  # outputs too
    assert "- items (dict" in prompts[3]  # the kept variables


async def test_cells_that_keep_raising_end_the_run_with_the_reason():
    agent = make_agent(run_settings(agent="codeact", limits=Limits(max_retry=2)), episode_named("put-01"),
                         ScriptedLLM([ScriptEntry(cell_answer("1 / 0"), purpose="act")]))
    events = await play(agent)
    finished = events[-1]
    assert not finished.success and finished.llm_calls == 3
    assert finished.reason == "error limit: 3 cells in a row raised (max_retry 2); the last: ZeroDivisionError: division by zero"


async def test_invalid_cells_are_asked_again_and_the_sandbox_check_applies():
    llm = ScriptedLLM([ScriptEntry(a, purpose="act", once=True) for a in [
        "I would go to the table",  # no <execute>
        cell_answer("for x in range(3)\n    run('look')"),  # syntax error
        cell_answer("import os\nos.system('ls')"),  # the sandbox refuses it
        cell_answer(loop_cell(PUT)),
    ]])
    agent = make_agent(run_settings(agent="codeact"), episode_named("put-01"), llm)
    events = await play(agent)
    reasons = [e.reason for e in events if isinstance(e, ev.LLMRejected)]
    assert reasons[0].startswith("the answer has no <execute>...</execute> section")
    assert reasons[1].startswith("syntax error on line 3")  # a line of the answer, as the model sees it
    assert reasons[2].startswith("forbidden: import os")
    assert events[-1].success and events[-1].llm_calls == 4


async def test_a_cell_limit_ends_a_run_that_never_acts():
    agent = make_agent(run_settings(agent="codeact", agent_options={"max_cells": 3}), episode_named("put-01"),
                         ScriptedLLM([ScriptEntry(cell_answer("x = 1"), purpose="act")]))
    events = await play(agent)
    assert events[-1].reason.startswith("cell limit: 3 cells ran and the task is not done")


@pytest.mark.parametrize("empty", ["", "\n   \n", "# only a comment\n"])
async def test_an_empty_cell_is_refused_and_asked_again_without_spending_a_step(empty):
    agent = make_agent(run_settings(agent="codeact"), episode_named("put-01"), cells(empty, loop_cell(PUT)))
    events = await play(agent)
    rejected = [e for e in events if isinstance(e, ev.LLMRejected)]
    assert rejected and "empty" in rejected[0].reason, rejected
    finished = events[-1]
    assert finished.success and finished.llm_calls == 2
    sent = [e.action for e in events if isinstance(e, ev.ActionSent)]
    assert sent == PUT  # the refused cell took no step


async def test_a_printed_observation_is_shown_once_a_failed_action_is_marked_and_variables_do_not_repeat_it():
    """The demo's cells print what `run()` already added to the output: later prompts show each answer
    once; "Nothing happens." is marked as a failed action; `observation` in "Variables now" points at
    the answer shown above instead of repeating it."""
    first = ('for action in ["take vase 1 from diningtable 1", "go to diningtable 1", '
             '"take vase 1 from diningtable 1"]:\n    observation = run(action)\n    print(observation)')
    second = ('for action in ["go to sidetable 1", "move vase 1 to sidetable 1"]:\n'
              '    observation = run(action)\n    print(observation)')
    agent = make_agent(run_settings(agent="codeact"), episode_named("put-01"), cells(first, second))
    seen = await play(agent)
    assert seen[-1].success, seen[-1]
    prompt = [e.prompt for e in seen if isinstance(e, ev.LLMRequested)][1]
    history = prompt[prompt.index("[cell 1]"):]
    assert history.count("You pick up the vase 1 from the diningtable 1.") == 1
    assert history.count("You arrive at diningtable 1.") == 1
    assert "Output:\nNothing happens.  [action failed: nothing changed]\nYou arrive at diningtable 1." in history
    variables = prompt[prompt.index("# Variables now"):prompt.index("# The cells so far")]
    assert ("- observation (str): the answer to `take vase 1 from diningtable 1`, shown in cell 1's output above"
            in variables)
    assert "You pick up the vase 1" not in variables
