"""Plan-and-Execute on the real ALFWorld engine with scripted planner, executor and replanner."""

from __future__ import annotations

import asyncio
import json

from agent.runtime import events as ev
from agent.runtime.limits import Limits
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.setup.build import make_agent
from tests.settings import episode_named, run_settings

GAME = "put-01"  # put a vase in sidetable: the vase is on diningtable 1


def plan(*steps: tuple[str, str, list[str]], thought: str = "the plan") -> str:
    return json.dumps({"thought": thought, "steps": [{"id": i, "description": d, "depends_on": deps}
                                                     for i, d, deps in steps]})


def turn(decision: str, thought: str = "next") -> str:
    return f"Thought: {thought}\n{decision}"


def in_order(*answers: tuple[str, str], name: str = "scripted") -> ScriptedLLM:
    """Answers given in order, each once, matched by purpose (plan, act, replan)."""
    return ScriptedLLM([ScriptEntry(answer=a, purpose=p, once=True) for p, a in answers], name=name)


WIN_PLAN = plan(("s1", "find the vase and take it", []), ("s2", "put the vase on sidetable 1", ["s1"]))
WIN_TURNS = [
    ("act", turn("Action: go to diningtable 1")),
    ("act", turn("Action: take vase 1 from diningtable 1")),
    ("act", turn("Done: holding vase 1")),
    ("act", turn("Action: go to sidetable 1")),
    ("act", turn("Action: move vase 1 to sidetable 1")),
]


def agent_with(llm, **options):
    return make_agent(run_settings(limits=Limits(max_rewrite=2), max_steps=30, agent="plan-execute", agent_options=options),
                       episode_named(GAME), llm)


async def run(agent) -> list[ev.Event]:
    seen: list[ev.Event] = []
    try:
        await agent.run(seen.append)
    finally:
        await agent.close()
    return seen


def test_plan_execute_wins_a_bundled_game_with_steps_and_turns_as_nodes():
    agent = agent_with(in_order(("plan", WIN_PLAN), *WIN_TURNS))
    seen = asyncio.run(run(agent))
    finished = seen[-1]
    assert isinstance(finished, ev.RunFinished) and finished.success, finished
    root = agent.tree.root
    assert [c.code for c in root.children] == ["s1: find the vase and take it",
                                               "s2: put the vase on sidetable 1 [after s1]"]
    s1, s2 = root.children
    assert [c.code for c in s1.children] == ["> go to diningtable 1", "> take vase 1 from diningtable 1",
                                             "done: holding vase 1"]
    assert [c.code for c in s2.children] == ["> go to sidetable 1", "> move vase 1 to sidetable 1"]
    notes = [e for e in seen if isinstance(e, ev.AgentNote)]
    assert notes[0].label == "plan adopted" and "s2: put the vase" in notes[0].text
    roles = finished.extra["roles"]
    assert roles["planner"]["calls"] == 1 and roles["executor"]["calls"] == 5 and "replanner" not in roles
    requested = [e for e in seen if isinstance(e, ev.LLMRequested)]
    assert {(e.purpose, e.role) for e in requested} == {("plan", "planner"), ("act", "executor")}
    # the second step's executor saw the first step's output: what the environment answered, then the claim
    s2_prompt = next(e.prompt for e in requested if e.node_id == s2.id)
    assert ('- s1: done; last action `take vase 1 from diningtable 1` -> You pick up the vase 1 from the '
            'diningtable 1.; holding: vase 1; claim: "holding vase 1"') in s2_prompt
    assert "Your step: s2: put the vase on sidetable 1\n" in s2_prompt  # no `[after s1]` in the step text


def test_an_invalid_plan_is_asked_again_with_the_reason():
    cyclic = plan(("s1", "a", ["s2"]), ("s2", "b", ["s1"]))
    agent = agent_with(in_order(("plan", '{"steps": [{"id": "s1",'), ("plan", cyclic),
                                  ("plan", plan(("s1", "x", []), ("s1", "y", []))), ("plan", WIN_PLAN), *WIN_TURNS),
                         )
    agent.limits = Limits(max_rewrite=3)
    seen = asyncio.run(run(agent))
    rejected = [e for e in seen if isinstance(e, ev.LLMRejected)]
    assert [r.reason.split(" (")[0].split(":")[0] for r in rejected] == [
        "the plan is not valid JSON", "the dependencies form a cycle", "two steps have the id s1; give each step its own id"]
    assert "s1 -> s2 -> s1" in rejected[1].reason
    asks = [e for e in seen if isinstance(e, ev.LLMRequested) and e.purpose == "plan"]
    assert "not valid JSON" in asks[1].prompt and "cycle" in asks[2].prompt  # re-asked with the reason
    assert seen[-1].success


def test_a_failing_step_triggers_a_replan_with_a_diff_and_the_run_still_wins():
    first = plan(("s1", "find the vase on the sofa and take it", []), ("s2", "put the vase on sidetable 1", ["s1"]))
    replanned = plan(("s3", "take the vase from diningtable 1", []),
                     ("s2", "put the vase on sidetable 1", ["s3"]), thought="the sofa had no vase")
    llm = in_order(
        ("plan", first),
        ("act", turn("Action: go to sofa 1")),
        ("act", turn("Failed: no vase on sofa 1")),
        ("replan", replanned),
        *WIN_TURNS[:2], ("act", turn("Done: holding vase 1")), *WIN_TURNS[3:],
    )
    agent = agent_with(llm, max_replans=1)
    seen = asyncio.run(run(agent))
    assert seen[-1].success, seen[-1]
    note = next(e for e in seen if isinstance(e, ev.AgentNote) and e.label == "replan")
    assert note.text.splitlines() == ["why: step s1 failed: no vase on sofa 1",
                                      "- s1: find the vase on the sofa and take it",
                                      "+ s3: take the vase from diningtable 1",
                                      "~ s2: put the vase on sidetable 1 [after s3] (was: put the vase on sidetable 1)"]
    replan_ask = next(e for e in seen if isinstance(e, ev.LLMRequested) and e.purpose == "replan")
    assert replan_ask.role == "replanner" and "[failed] s1: find the vase on the sofa" in replan_ask.prompt
    assert "You arrive at sofa 1" in replan_ask.prompt
    statuses = [(n.code.split(":")[0], n.status.value) for n in agent.tree.root.children]
    assert statuses == [("s1", "ERROR"), ("s2", "SKIP"), ("s3", "COMPLETED"), ("s2", "COMPLETED")]
    assert seen[-1].extra["roles"]["replanner"]["calls"] == 1


def test_replans_stop_at_max_replans():
    hopeless = plan(("s1", "find the vase on the sofa", []))
    llm = ScriptedLLM([ScriptEntry(hopeless, purpose="plan"), ScriptEntry(plan(("s9", "look on the sofa", [])), purpose="replan"),
                       ScriptEntry(turn("Failed: nothing there"), purpose="act")])
    agent = agent_with(llm, max_replans=2)
    seen = asyncio.run(run(agent))
    finished = seen[-1]
    assert not finished.success and finished.reason.startswith("replan limit: step s9 failed: nothing there")
    assert finished.extra["roles"]["replanner"]["calls"] == 2
    assert sum(isinstance(e, ev.AgentNote) and e.label == "replan" for e in seen) == 2


def test_executor_budget_running_out_fails_the_step():
    llm = ScriptedLLM([ScriptEntry(plan(("s1", "wander", [])), purpose="plan"),
                       ScriptEntry(turn("Action: look"), purpose="act")])
    agent = agent_with(llm, max_replans=0, executor_steps=3)
    seen = asyncio.run(run(agent))
    assert seen[-1].reason == "replan limit: step s1 failed: its budget of 3 executor turns ran out (max_replans 0)"
    assert len(agent.tree.root.children[0].children) == 3


def test_too_many_invalid_executor_answers_end_the_run_with_the_step_failed():
    llm = ScriptedLLM([ScriptEntry(plan(("s1", "find the vase", [])), purpose="plan"),
                       ScriptEntry("I would go to the table", purpose="act")])
    agent = agent_with(llm)
    seen = asyncio.run(run(agent))
    assert seen[-1].reason.startswith("rewrite limit: 3 invalid answers in a row for `s1: find the vase`")
    assert sum(isinstance(e, ev.LLMRejected) for e in seen) == 3
    assert agent.tree.root.children[0].status.value == "ERROR"


def test_replan_every_step_asks_the_replanner_after_each_finished_step():
    keep = plan(("s2", "put the vase on sidetable 1", ["s1"]), thought="on track")
    agent = agent_with(in_order(("plan", WIN_PLAN), *WIN_TURNS[:3], ("replan", keep), *WIN_TURNS[3:]),
                         replan_every_step=True)
    seen = asyncio.run(run(agent))
    assert seen[-1].success, seen[-1]
    note = next(e for e in seen if isinstance(e, ev.AgentNote) and e.label == "replan")
    assert note.text.splitlines() == ["why: step s1 finished (its outcome is listed below)",
                                      "  s2: put the vase on sidetable 1 [after s1]"]
    ask = next(e for e in seen if isinstance(e, ev.LLMRequested) and e.purpose == "replan")
    assert ("[done] s1: find the vase and take it -> last action `take vase 1 from diningtable 1` -> You pick up "
            'the vase 1 from the diningtable 1.; holding: vase 1; claim: "holding vase 1"') in ask.prompt
    assert "Finished steps (s1) are kept" in ask.prompt
    assert [c.code for c in agent.tree.root.children] == [  # the unchanged step keeps its node
        "s1: find the vase and take it", "s2: put the vase on sidetable 1 [after s1]"]


def test_agent_notes_read_as_what_was_decided_in_the_run_log():
    from agent.runtime.event_text import short

    note = ev.AgentNote("n0", label="replan", text="why: step s1 failed: no vase on sofa 1\n- s1: ...")
    assert short(note) == "replan at n0: why: step s1 failed: no vase on sofa 1 …"


def test_judge_and_skeleton_give_the_editor_each_roles_format():
    agent = agent_with(in_order())
    skeleton = agent.answer_skeleton("plan", "planner")
    assert json.loads(skeleton)["steps"][1]["depends_on"] == ["s1"]
    empty = agent.judge(skeleton, "plan", "planner", known=frozenset({"instruction"}))
    assert not empty.accepted and empty.message == "step s1 has no description"
    good = agent.judge(WIN_PLAN, "plan", "planner")
    assert good.accepted and good.blocks[1] == "s2: put the vase on sidetable 1 [after s1]"
    assert agent.judge('{"steps": []}', "replan", "replanner").accepted  # a replanner may give up
    assert not agent.judge('{"steps": []}', "plan", "planner").accepted
    assert agent.answer_skeleton("act", "executor") == "Thought: \nAction: "
    assert agent.judge("Thought: x\nAction: look", "act", "executor").blocks == ("look",)
    assert "exactly one" in agent.judge("Action: look\nDone: ok", "act", "executor").message
    asyncio.run(agent.close())


def test_a_step_waits_for_the_steps_it_depends_on_even_when_listed_first():
    """`depends_on`, not list order, decides what runs next: s1 needs s2's vase, so s2 runs first."""
    backwards = plan(("s1", "put the vase on sidetable 1", ["s2"]), ("s2", "find the vase and take it", []))
    turns = [WIN_TURNS[0], WIN_TURNS[1], ("act", turn("Done: holding vase 1")), WIN_TURNS[3], WIN_TURNS[4]]
    agent = agent_with(in_order(("plan", backwards), *turns))
    seen = asyncio.run(run(agent))
    assert isinstance(seen[-1], ev.RunFinished) and seen[-1].success, seen[-1]
    s1, s2 = agent.tree.root.children
    acted = [e.node_id for e in seen if isinstance(e, ev.LLMRequested) and e.purpose == "act"]
    assert acted[0] == s2.id, "s1 ran before the step it depends on"
    assert acted.index(s1.id) > max(i for i, node in enumerate(acted) if node == s2.id)
    assert [c.code for c in s2.children][0] == "> go to diningtable 1"
    assert [c.code for c in s1.children] == ["> go to sidetable 1", "> move vase 1 to sidetable 1"]


def test_a_done_claim_the_environment_contradicts_is_shown_as_a_claim_not_as_the_steps_result():
    """The executor says `Done: holding vase 1` after `take` answered "Nothing happens.": later prompts
    show what the environment answered and mark the words as a claim; the replanner sees the same."""
    wrong = plan(("s1", "take the vase", []), ("s2", "put the vase on sidetable 1", ["s1"]))
    llm = in_order(
        ("plan", wrong),
        ("act", turn("Action: take vase 1 from diningtable 1")),  # not there yet: Nothing happens.
        ("act", turn("Done: holding vase 1")),
        ("act", turn("Done: the vase is on sidetable 1")),  # no action at all: nothing supports it
        ("replan", plan(("s3", "find the vase, take it and put it on sidetable 1", [])),),
        *WIN_TURNS[:2], *WIN_TURNS[3:],
    )
    agent = agent_with(llm)
    seen = asyncio.run(run(agent))
    assert seen[-1].success, seen[-1]
    asks = [e for e in seen if isinstance(e, ev.LLMRequested)]
    s2 = agent.tree.root.children[1]
    s2_prompt = next(e.prompt for e in asks if e.node_id == s2.id)
    assert "- s1: holding vase 1" not in s2_prompt
    assert ("- s1: done; last action `take vase 1 from diningtable 1` -> Nothing happens. [action failed: nothing "
            'changed]; holding: nothing; (claim, not borne out: "holding vase 1"; every action of this part failed') \
        in s2_prompt
    assert "What you hold (from the observations): nothing" in s2_prompt
    replan = next(e.prompt for e in asks if e.purpose == "replan")
    assert ('(claim, not borne out: "the vase is on sidetable 1"; no action was sent in this part, so no '
            "observation supports it)") in replan
    assert "[done] s1: take the vase -> last action" in replan  # the plan line shows the answer, not the words


def test_the_replanner_sees_every_finished_step_in_full_and_older_ones_summarised_past_the_stated_budget():
    """A search of six places, then a failure: the replanner gets each action the executor sent with its
    answer (not only the last 4); past `history_chars` the oldest step is summarised, and the budget is said."""
    places = ["sofa 1", "armchair 1", "coffeetable 1", "coffeetable 2", "garbagecan 1", "drawer 1"]
    search = plan(("s1", "look around the sofa", []), ("s2", "search the tables and the rest", ["s1"]))
    turns = [("act", turn("Action: go to sofa 1")), ("act", turn("Done: looked at the sofa"))]
    turns += [("act", turn(f"Action: go to {p}")) for p in places[1:]]
    turns += [("act", turn("Failed: no vase anywhere I looked"))]
    replanned = plan(("s3", "take the vase from diningtable 1 and put it on sidetable 1", []))
    rest = [("act", turn("Action: go to diningtable 1")), ("act", turn("Action: take vase 1 from diningtable 1")),
            *WIN_TURNS[3:]]
    seen = asyncio.run(run(agent_with(in_order(("plan", search), *turns, ("replan", replanned), *rest))))
    assert seen[-1].success, seen[-1]
    prompt = next(e.prompt for e in seen if isinstance(e, ev.LLMRequested) and e.purpose == "replan")
    for place in places:  # all six visits, the first ones too
        assert f"  > go to {place}\n    You arrive at {place}." in prompt
    assert "in full up to 4000 characters" in prompt
    assert "Finished steps (s1) are kept" in prompt

    seen = asyncio.run(run(agent_with(in_order(("plan", search), *turns, ("replan", replanned), *rest),
                                       history_chars=300)))
    prompt = next(e.prompt for e in seen if isinstance(e, ev.LLMRequested) and e.purpose == "replan")
    assert "in full up to 300 characters" in prompt
    assert "s1: look around the sofa [done] (summarised: 1 actions)" in prompt
    assert "  > go to drawer 1\n    You arrive at drawer 1." in prompt  # the latest step stays in full


def test_the_first_replan_says_no_step_has_finished_without_double_brackets():
    first = plan(("s1", "find the vase on the sofa and take it", []), ("s2", "put it on sidetable 1", ["s1"]))
    llm = in_order(("plan", first), ("act", turn("Failed: not on the sofa")),
                   ("replan", plan(("s3", "take the vase from diningtable 1 and put it on sidetable 1", []))),
                   ("act", turn("Action: go to diningtable 1")), ("act", turn("Action: take vase 1 from diningtable 1")),
                   *WIN_TURNS[3:])
    seen = asyncio.run(run(agent_with(llm)))
    assert seen[-1].success, seen[-1]
    prompt = next(e.prompt for e in seen if isinstance(e, ev.LLMRequested) and e.purpose == "replan")
    assert "((none))" not in prompt and "No step has finished yet: every step you write is new." in prompt
