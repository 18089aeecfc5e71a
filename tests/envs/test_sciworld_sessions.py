"""A journaled ScienceWorld run forks: the branch replays on the simulator up to a stub, then goes its own way."""

from __future__ import annotations

import shutil

import pytest

from agent.agents.recode.engine import Engine
from agent.runtime import events as ev
from agent.runtime.prompts import DEFAULT_PROMPTS, PromptSet
from agent.sandbox.settings import RunnerSettings
from agent.sessions.journal_read import JOURNAL_FILE, read_journal
from agent.sessions.session import branch_session, fork_at_answer, start_session
from envs import registry
from mockllm.gold import gold_llm
from mockllm.scripted import ScriptedLLM, ScriptEntry
from envs.registry import EpisodeRef

pytestmark = [pytest.mark.heavy, pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (.ci/run installs one)")]

GAME = "sciworld:find-non-living-thing/0"


async def test_a_fork_at_a_sub_goal_replays_the_simulator_up_to_it_and_both_branches_survive(tmp_path) -> None:
    sessions = tmp_path / "sessions"
    agent = Engine(registry.make_env(GAME), gold_llm(Engine, registry.gold_actions(GAME)), RunnerSettings().make_runner(),
                    prompts=PromptSet(DEFAULT_PROMPTS))
    session = start_session(agent, sessions, EpisodeRef.parse(GAME), "gold")
    try:
        assert (await agent.run()).success
    finally:
        session.writer.close()
        await agent.close()
    original = (session.folder / JOURNAL_FILE).read_text()
    last = agent.tree.root.children[-1]  # the last sub-goal: focus on the thing, put it in the box
    other = ScriptedLLM([ScriptEntry(answer='<execute>\nrun("look around")\n</execute>')])
    fork, events = await branch_session(session.folder, fork_at_answer(last.id), other, registry.make_env, sessions,
                                        f"fork {last.id}")
    try:
        assert isinstance(events[-1], ev.LLMRequested) and events[-1].node_id == last.id
        replayed = fork.agent.env.steps
        assert replayed > 0 and fork.agent.env.score > 0  # the earlier actions really ran on the simulator again
        result = await fork.agent.run()
    finally:
        fork.writer.close()
        await fork.agent.close()
    assert not result.success and result.steps == replayed + 1  # the new answer's one action, then the plan ends
    assert result.reason == "no pending nodes left and the task is not done"
    assert (session.folder / JOURNAL_FILE).read_text() == original  # the won branch is untouched
    old, new = read_journal(session.folder), read_journal(fork.folder)
    assert old.finished["success"] is True and new.finished["success"] is False
    assert new.header.run.env.name == "sciworld" and new.header.parent.session == session.folder.name
