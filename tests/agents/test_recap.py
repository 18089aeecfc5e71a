"""ReCAP on the real ALFWorld engine with scripted decompositions."""

from __future__ import annotations

import asyncio

from agent.runtime import events as ev
from agent.runtime.limits import Limits
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.setup.build import make_agent
from tests.settings import episode_named, run_settings
from envs.registry import EpisodeRef

GAME = "put-01"  # put a vase in sidetable: the vase is on diningtable 1

ROOT = """Thought: root plan: find the vase, then put it on the sidetable.
Subtasks:
1. subtask: find the vase and take it
2. action: go to sidetable 1
3. action: move vase 1 to sidetable 1"""
CHILD = """Thought: tables first.
Subtasks:
1. action: go to diningtable 1
2. action: take vase 1 from diningtable 1"""
CHILD_2 = """Thought: the vase is here.
Subtasks:
1. action: take vase 1 from diningtable 1"""
CHILD_DONE = "Thought: I hold it.\nDone: holding vase 1"
ROOT_2 = """Thought: now place it.
Subtasks:
1. action: go to sidetable 1
2. action: move vase 1 to sidetable 1"""
ROOT_3 = "Thought: at the sidetable.\nSubtasks:\n1. action: move vase 1 to sidetable 1"

WIN = [("decompose", ROOT), ("decompose", CHILD), ("refine", CHILD_2), ("refine", CHILD_DONE),
       ("refine", ROOT_2), ("refine", ROOT_3)]


def in_order(*answers: tuple[str, str]) -> ScriptedLLM:
    return ScriptedLLM([ScriptEntry(answer=a, purpose=p, once=True) for p, a in answers])


def agent_with(llm, **options):
    return make_agent(run_settings(limits=Limits(max_rewrite=2), max_steps=30, agent="recap", agent_options=options),
                       episode_named(GAME), llm)


async def run(agent) -> list[ev.Event]:
    seen: list[ev.Event] = []
    try:
        await agent.run(seen.append)
    finally:
        await agent.close()
    return seen


def test_recap_wins_a_bundled_game_with_a_subtask_tree():
    agent = agent_with(in_order(*WIN))
    seen = asyncio.run(run(agent))
    assert seen[-1].success, seen[-1]
    root = agent.tree.root
    assert [c.code for c in root.children] == ["find the vase and take it", "> go to sidetable 1",
                                               "> move vase 1 to sidetable 1"]
    child = root.children[0]
    assert [c.code for c in child.children] == ["> go to diningtable 1", "> take vase 1 from diningtable 1"]
    assert child.status.value == "COMPLETED" and child.observations == [
        'done; last action `take vase 1 from diningtable 1` -> You pick up the vase 1 from the diningtable 1.; '
        'holding: vase 1; claim: "holding vase 1"']
    purposes = [e.purpose for e in seen if isinstance(e, ev.LLMRequested)]
    assert purposes == ["decompose", "decompose", "refine", "refine", "refine", "refine"]
    # only the first item is committed: the root's plan-ahead items became nodes one at a time
    received = [e for e in seen if isinstance(e, ev.LLMAnswered) and e.node_id == root.id]
    assert received[0].blocks == ("subtask: find the vase and take it", "action: go to sidetable 1",
                                  "action: move vase 1 to sidetable 1")
    assert all(len(e.child_ids) == 1 for e in received)


def test_the_parent_plan_is_reinjected_when_a_composite_subtask_returns():
    agent = agent_with(in_order(*WIN))
    seen = asyncio.run(run(agent))
    note = next(e for e in seen if isinstance(e, ev.AgentNote))
    assert note.label == "re-injection" and note.node_id == agent.tree.root.id
    ask = next(e for e in seen if isinstance(e, ev.LLMRequested) and e.node_id == agent.tree.root.id
               and e.purpose == "refine")
    for line in ("The subtask `find the vase and take it` returned: done; last action `take vase 1 from diningtable 1` "
                 '-> You pick up the vase 1 from the diningtable 1.; holding: vase 1; claim: "holding vase 1"',
                 "What you hold (from the observations): vase 1",
                 "Your latest thought here: root plan: find the vase, then put it on the sidetable.",
                 "Your remaining subtasks here were:\n1. action: go to sidetable 1\n2. action: move vase 1 to sidetable 1",
                 "Latest observation: You pick up the vase 1 from the diningtable 1."):
        assert line in ask.prompt
    assert "of 30 steps left" in ask.prompt and ask.prompt.rstrip().endswith("Answer for the current level only.")


def test_the_window_drops_old_rounds_but_keeps_the_root_path():
    agent = agent_with(in_order(*WIN), window=1)
    seen = asyncio.run(run(agent))
    assert seen[-1].success
    asks = [e for e in seen if isinstance(e, ev.LLMRequested)]
    child_last = asks[3].prompt  # the child level's third call: rounds 1 (root), 2, 3 (child) so far
    assert "root plan: find the vase" in child_last  # the root's round, older than the window, is kept
    assert "(kept: on the path to the current subtask)" in child_last
    assert "tables first." not in child_last  # round 2 (the child's first) was cut
    assert "[... 1 earlier round cut from the window ...]" in child_last
    back_at_root = asks[5].prompt  # root's last call: only its own latest round and the newest are shown
    assert "tables first." not in back_at_root and "the vase is here." not in back_at_root
    assert "[... 4 earlier rounds cut from the window ...]" in back_at_root and "now place it." in back_at_root
    # with the default window nothing is cut and the prompt grows with the conversation
    wide = [e.prompt for e in asyncio.run(run(agent_with(in_order(*WIN)))) if isinstance(e, ev.LLMRequested)]
    assert "cut from the window" not in wide[-1] and "tables first." in wide[-1]
    assert len(back_at_root) < len(wide[-1])


def test_an_invalid_list_is_asked_again_and_limits_end_a_level():
    bad = "Thought: hmm\nSubtasks:\n1. go to diningtable 1"
    agent = agent_with(in_order(("decompose", bad), *WIN))
    seen = asyncio.run(run(agent))
    rejected = [e for e in seen if isinstance(e, ev.LLMRejected)]
    assert len(rejected) == 1 and "is not `N. action: COMMAND` or `N. subtask: DESCRIPTION`" in rejected[0].reason
    assert seen[-1].success
    looping = ScriptedLLM([ScriptEntry("Thought: look\nSubtasks:\n1. action: look", purpose=p) for p in ("decompose", "refine")])
    seen = asyncio.run(run(agent_with(looping, max_revisions=3)))
    assert seen[-1].reason == "the task level ended (failed: revision limit: 3 revisions at this level) but the task is not done"
    assert seen[-1].steps == 4


def test_a_composite_past_the_depth_limit_returns_failed_to_its_parent():
    deep = ScriptedLLM([ScriptEntry("Thought: split\nSubtasks:\n1. subtask: deeper", purpose="decompose"),
                        ScriptEntry("Thought: give up\nFailed: too deep", purpose="refine")])
    agent = make_agent(run_settings(limits=Limits(max_depth=2), max_steps=30, agent="recap"), episode_named(GAME),
                         deep)
    seen = asyncio.run(run(agent))
    errors = [e for e in seen if isinstance(e, ev.NodeError)]
    assert "past the depth limit (2)" in errors[0].error
    depths = [e.depth for e in seen if isinstance(e, ev.NodeStarted)]
    assert max(depths) == 3 and not seen[-1].success


async def test_a_journal_resumes_to_the_same_place_with_the_window_and_reinjection_rebuilt(tmp_path):
    from agent.sessions.session import resume_session, start_session
    from envs.registry import make_env

    agent = agent_with(in_order(*WIN), window=2)
    session = start_session(agent, tmp_path, EpisodeRef.parse(GAME), "scripted:win")
    asks = 0
    while asks < 5:  # up to the root's call after the subtask returned (the re-injection)
        event = await agent.step()
        asks += isinstance(event, ev.LLMRequested)
    where, window, codes = event, agent.window_text(), [n.code for n in agent.tree.walk()]
    session.writer.close()
    await agent.close()

    resumed, events = await resume_session(session.folder, in_order(*WIN[4:]), make_env)
    again = resumed.agent
    assert isinstance(events[-1], ev.LLMRequested)
    assert (events[-1].node_id, events[-1].prompt, events[-1].purpose) == (where.node_id, where.prompt, "refine")
    assert again.window_text() == window and [n.code for n in again.tree.walk()] == codes
    assert "Your remaining subtasks here were:\n1. action: go to sidetable 1" in events[-1].prompt
    finished = await again.run()
    await again.close()
    resumed.writer.close()
    assert finished.success and finished.llm_calls == 6


def test_judge_and_skeleton_give_the_editor_the_subtask_format():
    agent = agent_with(in_order())
    assert agent.answer_skeleton("decompose") == "Thought: \nSubtasks:\n1. action: \n2. subtask: \n"
    assert agent.judge(agent.answer_skeleton("decompose"), "decompose").message == "line 3: the action is empty"
    verdict = agent.judge(ROOT, "decompose")
    assert verdict.accepted and verdict.blocks[0] == "subtask: find the vase and take it"
    assert agent.judge(CHILD_DONE, "refine").accepted
    assert "both a subtask list and Done" in agent.judge(ROOT + "\nDone: x", "refine").message
    asyncio.run(agent.close())


def test_a_returned_done_the_environment_contradicts_is_re_injected_as_a_claim():
    """Like Plan-and-Execute's steps: a level's result is what the environment answered in it and what the
    agent holds; its `Done:` text is the model's claim, marked when the observations do not bear it out."""
    child = "Thought: take it.\nSubtasks:\n1. action: take vase 1 from diningtable 1"  # not there: Nothing happens.
    llm = in_order(("decompose", ROOT), ("decompose", child), ("refine", CHILD_DONE),
                   ("refine", "Thought: fetch it.\nSubtasks:\n1. action: go to diningtable 1"),
                   ("refine", "Thought: here.\nSubtasks:\n1. action: take vase 1 from diningtable 1"),
                   ("refine", ROOT_2), ("refine", ROOT_3))
    seen = asyncio.run(run(agent_with(llm)))
    assert seen[-1].success, seen[-1]
    note = next(e for e in seen if isinstance(e, ev.AgentNote) and e.label == "re-injection")
    assert note.text.startswith(
        "The subtask `find the vase and take it` returned: done; last action `take vase 1 from diningtable 1` -> "
        'Nothing happens. [action failed: nothing changed]; holding: nothing; (claim, not borne out: "holding vase 1"; '
        "every action of this part failed")
    asks = [e.prompt for e in seen if isinstance(e, ev.LLMRequested)]
    assert "Observation after `take vase 1 from diningtable 1`:\nNothing happens.  [action failed: nothing changed]" \
        in asks[2]
    assert "What you hold (from the observations): nothing" in asks[3]
    assert "What you hold (from the observations): vase 1" in asks[5]


def test_the_prompt_states_its_window_and_stops_growing_past_it():
    """Each round adds its answer and what it was told (~400 characters here) until the window is full;
    past it the oldest round is cut for each new one, so the prompt length stays flat."""
    look = "Thought: look again.\nSubtasks:\n1. action: look\n2. action: go to diningtable 1"
    rounds = 80
    llm = ScriptedLLM([ScriptEntry(answer=look, purpose="decompose", once=True),
                       ScriptEntry(answer=look, purpose="refine")])
    agent = make_agent(run_settings(limits=Limits(max_rewrite=2), max_steps=rounds, agent="recap", agent_options={"max_revisions": rounds + 5}),
                         episode_named(GAME), llm)
    seen = asyncio.run(run(agent))
    sizes = [len(e.prompt) for e in seen if isinstance(e, ev.LLMRequested)]
    assert len(sizes) >= 75
    first = next(e.prompt for e in seen if isinstance(e, ev.LLMRequested))
    assert "the conversation above keeps your latest 64 rounds" in first
    assert sizes[40] - sizes[10] > 30 * 200  # it grows while the window fills
    past = sizes[66:]
    assert max(past) - min(past) < 50, past  # and is flat once the 64 rounds are full
