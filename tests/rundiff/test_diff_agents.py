"""Diffs of the other agents on the real ALFWorld engine: ReCAP's subtask tree by path and code,
and two different agents on one game (steps only).
"""

from __future__ import annotations

from pathlib import Path

from agent.sessions.journal_read import read_journal
from agent.eval.rundiff.diff import diff_runs
from agent.sessions.session import start_session
from recode_tui.commands import cli
from tests.agents.scripts import react_llm, walkthrough
from tests.agents.test_recap import CHILD, GAME, WIN, agent_with, in_order
from tests.rundiff.test_diff_fork import play, plan_llm
from tests.settings import episode_named, in_process, run_settings
from envs.registry import EpisodeRef

LOOK_FIRST = CHILD.replace("1. action: go to diningtable 1", "1. action: look\n2. action: go to diningtable 1").replace(
    "2. action: take vase", "3. action: take vase")


async def recap_run(tmp_path: Path, answers) -> Path:
    agent = agent_with(in_order(*answers))
    session = start_session(agent, tmp_path / f"sessions-{len(answers)}-{answers[1][1][:12]}", EpisodeRef.parse(GAME), "scripted:recap")
    await agent.run()
    await agent.close()
    session.writer.close()
    return session.folder


async def test_recap_subtasks_align_by_path_and_the_changed_decomposition_is_the_divergence(tmp_path) -> None:
    a = await recap_run(tmp_path, WIN)
    b = await recap_run(tmp_path, [WIN[0], ("decompose", LOOK_FIRST), *WIN[2:]])
    diff = diff_runs(read_journal(a), read_journal(b))
    d = diff.divergence
    assert d is not None and d.kind == "answer" and d.call_a.purpose == "decompose"
    assert d.call_a.stub == d.call_b.stub == "find the vase and take it"
    assert "+1. action: look" in d.answer_diff
    assert d.step == 1 and d.action_a.action == "go to diningtable 1" and d.action_b.action == "look"
    assert diff.nodes is not None
    row = diff.nodes[diff.node_divergence_row]
    assert row.path == "0.0" and row.a.code == row.b.code == "find the vase and take it"
    under = [r for r in diff.nodes if r.path.startswith("0.0.")]
    # ReCAP commits one item at a time: B's child plan began with a look, then the refine took the vase
    assert [(r.op, r.a.code if r.a else None, r.b.code if r.b else None) for r in under] == [
        ("changed", "> go to diningtable 1", "> look"),
        ("changed", "> take vase 1 from diningtable 1", "> take vase 1 from diningtable 1")]


async def test_two_agents_on_one_game_are_diffed_by_their_steps(tmp_path, capsys) -> None:
    steps = walkthrough(GAME)
    recode = await play(tmp_path, GAME, plan_llm(steps))
    from recode_tui.setup.build import make_agent
    from agent.runtime.limits import Limits

    agent = make_agent(run_settings(max_steps=30, agent="react"), episode_named(GAME),
                         react_llm(steps[:1] + ["look"] + steps[1:]), runner_maker=in_process)
    # another folder: two sessions of one game started in the same second by one process get one id
    session = start_session(agent, tmp_path / "react", EpisodeRef.parse(GAME), "scripted:react")
    await agent.run()
    await agent.close()
    session.writer.close()
    assert cli.main(["diff", str(recode), str(session.folder), "--width", "100"]) == 0
    out = capsys.readouterr().out
    assert "(recode," in out and "(react," in out
    assert "nodes, by path and code" not in out  # two agents: no tree to align
    tail = out.split("environment steps (A │ B):")[1].splitlines()
    assert tail[1].startswith("    1 go to diningtable 1")  # the same first step (a stretch too short to fold)
    assert tail[2].startswith("!") and "│   2 look →" in tail[2]  # ReAct's extra look, only in B: the divergence
    assert any(line.startswith("  ··· ") for line in tail)  # the rest is equal, folded


async def test_plan_execute_steps_and_turns_align_by_path_and_a_reworded_step_is_changed(tmp_path) -> None:
    from tests.agents.test_plan_execute import WIN_TURNS, agent_with as plan_agent, in_order as plan_order, plan

    reworded = plan(("s1", "take the vase from the diningtable", []), ("s2", "put the vase on sidetable 1", ["s1"]))
    folders = []
    for name, first in (("a", plan(("s1", "find the vase and take it", []),
                                   ("s2", "put the vase on sidetable 1", ["s1"]))), ("b", reworded)):
        agent = plan_agent(plan_order(("plan", first), *WIN_TURNS))
        session = start_session(agent, tmp_path / name, EpisodeRef.parse(GAME), "scripted:plan")
        await agent.run()
        await agent.close()
        session.writer.close()
        folders.append(session.folder)
    diff = diff_runs(read_journal(folders[0]), read_journal(folders[1]))
    d = diff.divergence
    assert d is not None and d.call_a.purpose == "plan" and d.before_step == 1  # the plans differ, before any action
    assert d.action_a is None and d.action_b is None and d.step == 5  # the same 4 actions: they never part
    assert any("take the vase from the diningtable" in line for line in d.answer_diff)
    assert diff.nodes is not None
    shape = [(r.op, r.path, r.a.code if r.a else None, r.b.code if r.b else None) for r in diff.nodes]
    assert shape[1] == ("changed", "0.0", "s1: find the vase and take it", "s1: take the vase from the diningtable")
    # the turns under the reworded step sent the same actions: they align under it by path and code
    assert shape[2] == ("equal", "0.0.0", "> go to diningtable 1", "> go to diningtable 1")
    assert ("equal", "0.1.1", "> move vase 1 to sidetable 1", "> move vase 1 to sidetable 1") in shape
