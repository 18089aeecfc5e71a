"""Node code that iterates a set of strings or draws from `random` sends the same actions when its
session is resumed: each worker has the same string-hash seed, and each node's `random` is seeded from
the run's seed, which the journal header records. Runs on the in-memory test environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.agents.recode.engine import Engine
from agent.runtime import events as ev
from agent.sandbox.settings import RunnerSettings
from agent.sessions.journal_read import read_journal
from agent.sessions.session import branch_session, resume_session, start_session
from envs.registry import make_env
from mockllm.scripted import ScriptEntry, ScriptedLLM
from envs.registry import EpisodeRef

# heavy: the sandbox worker: its string-hash seed and its seeding of `random` are what these check
pytestmark = pytest.mark.heavy

GAME = "toy:key-1"
CODE = (
    "import random\n"
    "for w in {'apple', 'pear', 'fig', 'kiwi', 'plum', 'lime', 'date'}:\n"
    "    run('look ' + w)\n"
    "for i in range(4):\n"
    "    run('take ' + random.choice(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j']))\n"
    "luck = random.random()\n"
)
ACTIONS = 11


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


def llm() -> ScriptedLLM:
    return ScriptedLLM([ScriptEntry(stub="solve(instruction, observation)",
                                    answer=f"<think>look around, then pick</think><execute>\n{CODE}</execute>")])


def actions(events: list[ev.Event]) -> list[str]:
    """The actions sent, and why the run ended if it did (a replay that mismatched ends the run)."""
    return [e.action if isinstance(e, ev.ObservationReceived) else f"ended: {e.reason}"
            for e in events if isinstance(e, (ev.ObservationReceived, ev.RunFinished))]


async def recorded_session(tmp_path: Path):
    """A fresh run (its own random run seed, as a user's) stopped after every action of the node was sent."""
    agent = Engine(make_env(GAME), llm(), RunnerSettings().make_runner())
    session = start_session(agent, tmp_path / "sessions", EpisodeRef.parse(GAME), "scripted:test")
    seen: list[ev.Event] = []
    while len(actions(seen)) < ACTIONS:
        seen.append(await agent.step())
        assert not isinstance(seen[-1], ev.RunFinished), seen[-1]
    session.writer.close()
    await agent.close()
    return session, actions(seen)


async def test_a_resumed_session_sends_the_same_actions_from_sets_and_random(tmp_path):
    session, recorded = await recorded_session(tmp_path)
    assert sorted(recorded[:7]) == sorted(f"look {w}" for w in ("apple", "pear", "fig", "kiwi", "plum", "lime", "date"))
    for _ in range(2):  # each resume is a new worker process, with the run's recorded seed
        resumed, replayed = await resume_session(session.folder, llm(), make_env)
        try:
            assert actions(replayed)[:ACTIONS] == recorded
        finally:
            resumed.writer.close()
            await resumed.agent.close()
    assert isinstance(read_journal(session.folder).header.run.runner.seed, int)


async def test_a_copied_session_replays_the_recorded_draws_and_keeps_the_runs_seed(tmp_path):
    session, recorded = await recorded_session(tmp_path)
    forked, replayed = await branch_session(session.folder, None, llm(), make_env, tmp_path / "sessions", "copy")
    try:
        assert actions(replayed)[:ACTIONS] == recorded
        seed = read_journal(session.folder).header.run.runner.seed
        assert read_journal(forked.folder).header.run.runner.seed == seed
    finally:
        forked.writer.close()
        await forked.agent.close()
