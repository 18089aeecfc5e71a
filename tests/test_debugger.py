"""The debugger without any UI: step modes, breakpoints and the human LLM, on the test environment.

The toy episode `vase-1` (tests/toyenv) plays like ALFWorld's put-01; the agent and the debugger are
the real ones, node code runs in the runtime's in-process runner (the sandbox is not what is tested).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from agent.llm import Purpose
from agent.runtime import events as ev
from agent.runtime.answer_words import AnswerWords
from agent.runtime.breakpoints import Breakpoint, BreakpointKind, parse_breakpoint
from agent.runtime.debugger import Debugger, StepMode
from mockllm.human import HumanLLM
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.setup.build import make_agent
from tests.settings import in_process
from tests.settings import episode_named, run_settings
from tests.toyenv import AGENT
from tests.toyenv.agent import OneActionAgent

# toy:vase-1: "put a vase in sidetable."; the vase is on diningtable 1 (as in ALFWorld's put-01).
GAME = "toy:vase-1"
SOLVE = """<think>look, then fetch</think>
<execute>
for place in ["coffeetable 1", "diningtable 1"]:
    obs = run("go to " + place)
fetch_vase(obs)
place_vase(obj)
</execute>"""
FETCH = """<think>it is here</think>
<execute>
obj = "vase 1"
run("take vase 1 from diningtable 1")
</execute>"""
PLACE = """<execute>
run("go to sidetable 1")
run(f"put {obj} in/on sidetable 1")
</execute>"""


def scripted() -> ScriptedLLM:
    return ScriptedLLM(
        [
            ScriptEntry(SOLVE, stub="solve(instruction, observation)"),
            ScriptEntry(FETCH, stub="fetch_vase(obs)"),
            ScriptEntry(PLACE, stub="place_vase(obj)"),
        ]
    )


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


@pytest.fixture
async def debugger():
    agent = make_agent(run_settings(), episode_named(GAME), scripted(), runner_maker=in_process)
    dbg = Debugger(agent)
    yield dbg
    await agent.close()


async def test_next_stops_at_every_event(debugger: Debugger) -> None:
    stop = await debugger.step("next")
    assert isinstance(stop.event, ev.RunStarted) and stop.events == 1
    stop = await debugger.step(StepMode.NEXT)
    assert isinstance(stop.event, ev.NodeStarted) and stop.reason.kind == "step"


async def test_every_stub_breakpoint_is_on_by_default(debugger: Debugger) -> None:
    stop = await debugger.step("continue")
    assert isinstance(stop.event, ev.LLMRequested)
    assert stop.reason.kind == "breakpoint" and stop.reason.breakpoint == 1
    assert "every stub expansion — solve" in stop.reason.text
    assert debugger.breakpoints[0].hit_count == 1


async def test_continue_runs_to_the_end_without_breakpoints(debugger: Debugger) -> None:
    debugger.breakpoints[0].enabled = False
    stop = await debugger.step("continue")
    assert isinstance(stop.event, ev.RunFinished) and stop.event.success
    assert stop.reason.kind == "finished" and "episode won" in stop.reason.text


async def test_stub_name_breakpoint(debugger: Debugger) -> None:
    debugger.toggle_breakpoint(1)
    bp = debugger.add_breakpoint("stub_name", "place_vase")
    stop = await debugger.step("continue")
    assert isinstance(stop.event, ev.LLMRequested)
    assert debugger.agent.tree.nodes[stop.event.node_id].code == "place_vase(obj)"
    assert stop.reason.text == f"breakpoint {bp.number}: stub `place_vase` — place_vase"
    regex = debugger.add_breakpoint("stub_name", "fetch_.*")
    assert regex.describe() == "stub matching 'fetch_.*'"


async def test_action_regex_breakpoint_with_hit_count(debugger: Debugger) -> None:
    debugger.toggle_breakpoint(1)
    bp = debugger.add_breakpoint(BreakpointKind.ACTION_REGEX, r"^go to")
    first = await debugger.step("continue")
    assert isinstance(first.event, ev.ActionSent) and first.event.action == "go to coffeetable 1"
    assert "action matches '^go to' — go to coffeetable 1" in first.reason.text
    second = await debugger.step("continue")
    assert second.event.action == "go to diningtable 1"
    assert bp.hit_count == 2


async def test_observation_regex_and_condition(debugger: Debugger) -> None:
    debugger.toggle_breakpoint(1)
    debugger.add_breakpoint("observation_regex", "vase", condition="place == 'diningtable 1'")
    stop = await debugger.step("continue")
    assert isinstance(stop.event, ev.ObservationReceived)
    assert "diningtable 1" in stop.event.observation


async def test_bad_condition_stops_and_says_why(debugger: Debugger) -> None:
    debugger.toggle_breakpoint(1)
    debugger.add_breakpoint("action_regex", "go to", condition="undefined_name > 1")
    stop = await debugger.step("continue")
    assert stop.reason.kind == "condition_error" and "NameError" in stop.reason.text


async def test_depth_breakpoint(debugger: Debugger) -> None:
    debugger.toggle_breakpoint(1)
    debugger.add_breakpoint("depth_at_least", "2")
    stop = await debugger.step("continue")
    assert isinstance(stop.event, ev.NodeStarted) and stop.event.depth == 2


async def test_step_into_stops_between_the_actions_of_a_loop(debugger: Debugger) -> None:
    debugger.toggle_breakpoint(1)
    while True:  # to the start of the loop node
        stop = await debugger.step("next")
        if isinstance(stop.event, ev.NodeStarted) and stop.event.code.startswith("for place"):
            break
    loop_id = stop.event.node_id
    a = await debugger.step("into")
    assert isinstance(a.event, ev.ActionSent) and a.event.action == "go to coffeetable 1"
    b = await debugger.step("into")
    assert isinstance(b.event, ev.ActionSent) and b.event.action == "go to diningtable 1"
    assert a.event.node_id == b.event.node_id == loop_id
    assert b.events == 2  # the observation of the first action was passed over


async def test_step_over_finishes_the_node_and_out_finishes_the_parent(debugger: Debugger) -> None:
    debugger.toggle_breakpoint(1)
    while True:
        stop = await debugger.step("next")
        if isinstance(stop.event, ev.NodeStarted) and stop.event.code.startswith("for place"):
            break
    over = await debugger.step("over")
    assert isinstance(over.event, ev.NodeStarted) and over.event.code == "fetch_vase(obs)"
    into = await debugger.step("into")  # the stub and its expansion
    while not (isinstance(into.event, ev.NodeStarted) and into.event.depth == 2):
        into = await debugger.step("into")
    out = await debugger.step("out")  # finish fetch_vase's children
    assert isinstance(out.event, ev.NodeStarted) and out.event.code == "place_vase(obj)"


async def test_pause_stops_a_continue() -> None:
    agent = make_agent(run_settings(), episode_named(GAME), scripted(), runner_maker=in_process)
    seen: list[ev.Event] = []
    dbg = Debugger(agent, breakpoints=[], on_event=seen.append)

    def pause_on_action(event: ev.Event) -> None:
        seen.append(event)
        if isinstance(event, ev.ActionSent):
            dbg.request_pause()

    dbg.on_event = pause_on_action
    stop = await dbg.step("continue")
    assert stop.reason.kind == "paused" and isinstance(stop.event, ev.ActionSent)
    assert not dbg.running
    await agent.close()


class TurnsAgent(OneActionAgent):
    """A plug-in agent that declares its act its main call and calls an answer a turn."""

    traits = replace(OneActionAgent.traits, main_purpose=Purpose.ACT, answer_words=AnswerWords(noun="turn"))


async def test_a_plug_in_agent_s_main_call_reads_in_its_own_words() -> None:
    """The debugger knows no agent's main call: the agent declares it (`traits.main_purpose`) and names it."""
    made = make_agent(run_settings(agent=AGENT), episode_named(GAME), HumanLLM(), runner_maker=in_process)
    agent = TurnsAgent(made.env, made.host.llm, made.runner, prompts=made.prompts)
    try:
        stop = await Debugger(agent, breakpoints=[]).step("continue")
        assert isinstance(stop.event, ev.LLMRequested) and stop.reason.kind == "human"
        assert stop.reason.text == "awaiting your turn of n1 `turn 1`"
    finally:
        await agent.close()


async def test_human_stops_at_the_request_and_submit_resumes() -> None:
    agent = make_agent(run_settings(), episode_named(GAME), HumanLLM(), runner_maker=in_process)
    dbg = Debugger(agent, breakpoints=[])
    stop = await dbg.step("continue")
    assert isinstance(stop.event, ev.LLMRequested) and stop.reason.kind == "human"
    assert dbg.awaiting_human
    again = await dbg.step("continue")  # nothing happens until the person answers
    assert again.event is stop.event
    # The agent refuses an invalid answer and asks again.
    refused = await dbg.submit("for x in [1]:\n    helper(x)")
    assert isinstance(refused.event, ev.LLMRequested) and refused.event.attempt == 2
    assert "inside a loop" in refused.reason.text
    ok = await dbg.submit(
        'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\n'
        'run("go to sidetable 1")\nrun("put vase 1 in/on sidetable 1")'
    )
    assert isinstance(ok.event, ev.LLMAnswered) and len(ok.event.blocks) == 4
    end = await dbg.step("continue")
    assert isinstance(end.event, ev.RunFinished) and end.event.success
    await agent.close()


def test_parse_breakpoint() -> None:
    bp = parse_breakpoint("action take .* if len(seen) > 2")
    assert bp.kind is BreakpointKind.ACTION_REGEX and bp.value == "take .*"
    assert bp.condition == "len(seen) > 2"
    assert parse_breakpoint("error").kind is BreakpointKind.ANY_ERROR
    assert parse_breakpoint("depth 3").depth == 3
    assert parse_breakpoint(bp.spec()).spec() == bp.spec()
    for bad in ("depth x", "action (", "frobnicate", "stub", "error if )"):
        with pytest.raises(ValueError):
            parse_breakpoint(bad)
    assert Breakpoint("any_error").describe() == "any error"


@pytest.fixture
async def sandboxed():
    """The debugger over the sandbox worker's runner: it reads a value between two actions of a node."""
    agent = make_agent(run_settings(), episode_named(GAME), scripted())
    yield Debugger(agent)
    await agent.close()


@pytest.mark.heavy  # the sandbox worker evaluates the watched value mid-node, between a loop's actions
async def test_changes_breakpoint_stops_where_a_value_changes_even_inside_a_loop(sandboxed: Debugger) -> None:
    debugger = sandboxed
    debugger.toggle_breakpoint(1)
    watch = debugger.add(parse_breakpoint("changes obs"))
    assert watch.describe() == "`obs` changes" and parse_breakpoint(watch.spec()).spec() == "changes obs"
    stop = await debugger.step("continue")
    # unbound until the loop's first run() returns: the stop is at the loop's second action
    assert isinstance(stop.event, ev.ActionSent) and stop.event.action == "go to diningtable 1"
    assert stop.reason.breakpoint == watch.number and watch.hit_count == 1
    assert "<NameError: name 'obs' is not defined> → " in stop.reason.text and "coffeetable 1" in stop.reason.text
    stop = await debugger.step("continue")
    assert stop.reason.breakpoint == watch.number and "diningtable 1" in stop.reason.text.split("→")[1]
    # nothing else assigns obs: the run goes to its end
    stop = await debugger.step("continue")
    assert isinstance(stop.event, ev.RunFinished) and stop.event.success and watch.hit_count == 2


async def test_changes_breakpoint_with_a_condition_and_a_bad_expression(debugger: Debugger) -> None:
    debugger.toggle_breakpoint(1)
    bound = debugger.add(parse_breakpoint("changes obj if obj == 'vase 1'"))
    stop = await debugger.step("continue")
    assert stop.reason.breakpoint == bound.number and isinstance(stop.event, ev.VariablesChanged)
    assert debugger.agent.tree.nodes[stop.event.node_id].code == 'obj = "vase 1"'
    assert stop.reason.text.endswith("<NameError: name 'obj' is not defined> → vase 1")
    with pytest.raises(ValueError, match="needs a Python expression"):
        parse_breakpoint("changes len(")


async def test_an_llm_failure_stops_continue_and_a_switched_llm_answers_the_retry() -> None:
    agent = make_agent(run_settings(), episode_named(GAME), ScriptedLLM([]), runner_maker=in_process)  # no answer: LLMError
    dbg = Debugger(agent, breakpoints=[])
    stop = await dbg.step("continue")
    assert isinstance(stop.event, ev.LLMFailed) and stop.reason.kind == "llm_error"
    assert "LLM failed on n0" in stop.reason.text and "no answer for stub" in stop.reason.text
    again = await dbg.step("continue")  # retry with the same LLM: stops again, attempt 2
    assert isinstance(again.event, ev.LLMFailed) and again.event.attempt == 2
    assert not agent.host.done
    agent.host.llm = HumanLLM()  # the person answers this expansion
    assert dbg.awaiting_human
    ok = await dbg.submit(
        'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\n'
        'run("go to sidetable 1")\nrun("put vase 1 in/on sidetable 1")'
    )
    assert isinstance(ok.event, ev.LLMAnswered)
    agent.host.llm = scripted()
    end = await dbg.step("continue")
    assert isinstance(end.event, ev.RunFinished) and end.event.success
    await agent.close()


def test_the_person_answers_the_calls_of_the_role_they_took() -> None:
    """An agent with several roles: the debugger waits on a person only for their role's calls."""
    from agent.llm import InteractiveLLM

    agent = make_agent(run_settings(), episode_named(GAME), scripted(), runner_maker=in_process)
    person = HumanLLM()
    assert isinstance(person, InteractiveLLM)
    agent.host.set_llm(person, "executor")
    debugger = Debugger(agent)
    debugger.last_event = ev.LLMRequested("n1", prompt="p", role="executor")
    assert debugger.human and debugger.current_llm() is person
    debugger.last_event = ev.LLMRequested("n1", prompt="p", role="planner")
    assert not debugger.human and debugger.current_llm() is agent.host.llm
    asyncio.run(agent.close())
