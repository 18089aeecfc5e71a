"""ReAct on the real ALFWorld engine with scripted answer lists."""

from __future__ import annotations

import pytest

from agent.agents.react.agent import ReActAgent
from agent.runtime import events as ev
from agent.runtime.limits import Limits
from agent.runtime.tree import NodeStatus
from agent.sessions.session import resume_session, start_session
from envs.registry import make_env
from mockllm.human import HumanLLM
from mockllm.scripted import ScriptEntry, ScriptedLLM
from recode_tui.setup.build import make_agent

from .scripts import TASK_TYPES, first_game, react_answer, react_llm, walkthrough
from tests.settings import episode_named, run_settings
from envs.registry import EpisodeRef

PUT = ["go to diningtable 1", "take vase 1 from diningtable 1", "go to sidetable 1", "move vase 1 to sidetable 1"]


async def play(agent) -> list[ev.Event]:
    events = []
    try:
        while not agent.host.done:
            events.append(await agent.step())
    finally:
        await agent.close()
    return events


# real ALFWorld games: `put` in `make quick`, every type in `make test`
@pytest.mark.parametrize("task_type", [t if t == "put" else pytest.param(t, marks=pytest.mark.heavy) for t in TASK_TYPES])
async def test_react_wins_a_bundled_game_of_each_task_type(task_type):
    game = first_game(task_type)
    actions = walkthrough(game)
    agent = make_agent(run_settings(agent="react"), episode_named(game), react_llm(actions))
    assert isinstance(agent, ReActAgent)
    events = await play(agent)
    finished = events[-1]
    assert finished.success and finished.reason == "won" and finished.steps == len(actions)
    assert finished.llm_calls == len(actions)  # one call per turn
    assert [t.code for t in agent.tree.root.children] == actions
    assert all(t.status is NodeStatus.COMPLETED for t in agent.tree.root.children)
    # the turn's examples are the task type's own
    prompt = next(e.prompt for e in events if isinstance(e, ev.LLMRequested))
    assert agent.prompts.examples("alfworld", task_type).splitlines()[0] in prompt


async def test_each_turn_is_a_node_with_its_events_in_order():
    agent = make_agent(run_settings(agent="react"), episode_named("put-01"), react_llm(PUT))
    events = await play(agent)
    root, first = agent.tree.root, agent.tree.root.children[0]
    kinds = [(type(e).__name__, e.node_id) for e in events[:9]]
    assert kinds == [
        ("RunStarted", root.id), ("NodeStarted", root.id),
        ("NodeStarted", first.id), ("LLMRequested", first.id), ("LLMAnswered", root.id),
        ("ActionSent", first.id), ("ObservationReceived", first.id), ("NodeCompleted", first.id),
        ("NodeStarted", agent.tree.root.children[1].id),
    ]
    received = next(e for e in events if isinstance(e, ev.LLMAnswered))
    assert received.child_ids == (first.id,) and received.blocks == (PUT[0],) and received.purpose == "act"
    assert first.thought == "the next step of my plan" and "diningtable 1" in first.observations[0]
    # the second turn's prompt carries the first turn's thought, action and observation
    second = [e.prompt for e in events if isinstance(e, ev.LLMRequested)][1]
    assert "[turn 1]\nThought: the next step of my plan\nAction: go to diningtable 1\nObservation: You arrive at diningtable 1" in second


async def test_invalid_answers_are_asked_again_with_the_reason():
    answers = [
        "Thought: I will just think",  # no action
        "Thought: both\nAction: go to diningtable 1\nAction: take vase 1 from diningtable 1",  # two actions
        "Thought: go\nAction: walk over to the table",  # not ALFWorld's grammar
        react_answer(PUT[0]),
    ]
    llm = ScriptedLLM([ScriptEntry(a, purpose="act", once=True) for a in answers])
    agent = make_agent(run_settings(agent="react"), episode_named("put-01"), llm)
    events = []
    while agent.env.steps < 1:
        events.append(await agent.step())
    await agent.close()
    rejected = [e.reason for e in events if isinstance(e, ev.LLMRejected)]
    assert len(rejected) == 3
    assert rejected[0].startswith("the answer has no action")
    assert rejected[1].startswith("the answer has 2 actions")
    assert "`walk over to the table` is not an action of alfworld" in rejected[2]
    prompts = [e.prompt for e in events if isinstance(e, ev.LLMRequested)]
    assert len(prompts) == 4 and [e.attempt for e in events if isinstance(e, ev.LLMRequested)] == [1, 2, 3, 4]
    for prompt, reason in zip(prompts[1:], rejected):
        assert "# Your previous answer was not taken" in prompt and reason in prompt
    assert agent.env.steps == 1 and agent.tree.root.children[0].code == PUT[0]  # nothing sent before


async def test_too_many_invalid_answers_end_the_run_with_the_reason():
    llm = ScriptedLLM([ScriptEntry("Thought: hmm", purpose="act")])
    agent = make_agent(run_settings(agent="react", limits=Limits(max_rewrite=2)), episode_named("put-01"), llm)
    events = await play(agent)
    finished = events[-1]
    assert not finished.success and finished.reason.startswith("rewrite limit: 3 invalid answers in a row")
    assert agent.env.steps == 0 and agent.tree.root.children[0].status is NodeStatus.ERROR


async def test_the_admissible_level_refuses_what_the_state_does_not_allow():
    answers = [react_answer("take vase 1 from diningtable 1"), react_answer(PUT[0])]
    llm = ScriptedLLM([ScriptEntry(a, purpose="act", once=True) for a in answers])
    agent = make_agent(run_settings(agent="react", agent_options={"check": "admissible"}),
                         episode_named("put-01"), llm)
    events = []
    while agent.env.steps < 1:
        events.append(await agent.step())
    await agent.close()
    [rejected] = [e for e in events if isinstance(e, ev.LLMRejected)]
    assert "cannot be done now" in rejected.reason and "go to diningtable 1" in rejected.reason


async def test_a_window_keeps_only_the_last_turns_in_the_prompt():
    agent = make_agent(run_settings(agent="react", agent_options={"window": 1}), episode_named("put-01"),
                         react_llm(PUT))
    events = await play(agent)
    last = [e.prompt for e in events if isinstance(e, ev.LLMRequested)][-1]
    assert "(turns 1-2 are not shown: only the last 1 turns are kept)" in last
    assert "[turn 3]\nThought" in last and "Action: go to diningtable 1" not in last.split("# Your task")[1]
    assert events[-1].success


async def test_a_journaled_react_run_resumes_at_the_same_turn(tmp_path):
    llm = ScriptedLLM([ScriptEntry(react_answer(a), purpose="act", once=True) for a in PUT[:2]])
    agent = make_agent(run_settings(agent="react"), episode_named("put-01"), llm)
    session = start_session(agent, tmp_path, EpisodeRef.parse("put-01"), "scripted")
    events = []
    while not isinstance(event := await agent.step(), ev.LLMFailed):  # the script has no third answer
        events.append(event)
    waiting = [e for e in events if isinstance(e, ev.LLMRequested)][-1]
    await agent.close()
    session.writer.close()

    resumed, replayed = await resume_session(session.folder, HumanLLM(), make_env)
    try:
        again = resumed.agent
        assert isinstance(again, ReActAgent) and again.env.steps == 2
        last = replayed[-1]
        assert isinstance(last, ev.LLMRequested) and last.node_id == waiting.node_id
        assert last.prompt == waiting.prompt  # the same trajectory, rebuilt from the journal
        assert [t.code for t in again.tree.root.children] == [*PUT[:2], "turn 3"]
    finally:
        await resumed.agent.close()
        resumed.writer.close()


async def test_a_react_run_forks_at_one_turn_to_answer_it_again(tmp_path):
    from agent.sessions.session import branch_session, fork_at_answer

    agent = make_agent(run_settings(agent="react"), episode_named("put-01"), react_llm(PUT))
    session = start_session(agent, tmp_path, EpisodeRef.parse("put-01"), "scripted")
    await play(agent)
    session.writer.close()
    second = agent.tree.root.children[1]
    assert second.llm_calls and second.llm_calls[-1].answer.endswith(PUT[1])  # the turn keeps its call

    branch, events = await branch_session(session.folder, fork_at_answer(second.id), HumanLLM(), make_env,
                                          tmp_path, f"fork {second.id}")
    try:
        assert isinstance(events[-1], ev.LLMRequested) and events[-1].node_id == second.id
        assert branch.agent.env.steps == 1  # the first turn replayed, the second to be answered again
    finally:
        await branch.agent.close()
        branch.writer.close()


async def test_the_default_breakpoint_stops_at_every_react_call():
    from agent.runtime.debugger import Debugger, StepMode

    agent = make_agent(run_settings(agent="react"), episode_named("put-01"), react_llm(PUT))
    debugger = Debugger(agent)  # the default set-up: every LLM call (ReCode calls it "every stub expansion")
    try:
        stops = []
        while not agent.host.done:
            stop = await debugger.step(StepMode.CONTINUE)
            stops.append(stop.reason.text)
    finally:
        await agent.close()
    assert stops[:2] == ["breakpoint 1: every LLM call — act call of n1",
                         "breakpoint 1: every LLM call — act call of n2"]
    assert debugger.breakpoints[0].spec() == "every-stub"  # saved as before: an older debug.json reads the same
    assert len(stops) == 5 and stops[-1].startswith("episode won")


def test_the_answer_reader_takes_the_usual_variants_of_one_action():
    from agent.agents.react.answer import parse_react

    assert parse_react("Thought: x\nAction: > go to desk 1.").blocks == ("go to desk 1",)
    assert parse_react("**Thought:** x\n**Action:** `open drawer 1`").blocks == ("open drawer 1",)
    imagined = parse_react("Thought: a\nAction: go to desk 1\nObservation: You arrive at desk 1.")
    assert imagined.accepted and "the text after the action was ignored" in imagined.notes[0]
    assert parse_react("Action: look").notes == ("no thought given",)
    assert parse_react("Thought: a\nAction:").message.startswith("the `Action:` line is empty")


async def test_the_run_log_names_each_turn_its_answer_was_for():
    """The answer is reported on the task (so trees add the turn under it), but the log names the turn,
    as the request's line did: `act of n2 answered`, not `act of n0` for every turn."""
    from agent.runtime.event_text import log_line

    seen = await play(make_agent(run_settings(agent="react"), episode_named("put-01"), react_llm(PUT)))
    assert seen[-1].success
    answered = [log_line(e).strip() for e in seen if isinstance(e, ev.LLMAnswered)]
    assert [line.split(" answered")[0] for line in answered] == ["+ act of n1", "+ act of n2", "+ act of n3",
                                                                "+ act of n4"]
    assert "answered by scripted: take vase 1 from diningtable 1" in answered[1]
