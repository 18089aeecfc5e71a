"""Statements typed at a stop (`!`) are journaled and replayed at the same point by resume and fork.

In the sandbox's worker: a statement typed while a node waits for its action (mid-node) runs only there
(the in-process runner refuses it until the node ends)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.runtime import events as ev
from agent.sandbox.settings import RunnerSettings
from agent.sessions.journal_read import read_journal
from agent.sessions.session import branch_session, fork_at_answer, resume_session
from envs.registry import make_env
from mockllm.scripted import ScriptedLLM

from .test_sessions import GAME, new_session, step_until, toy  # noqa: F401 - toy: the autouse fixture


def in_the_sandbox():
    return RunnerSettings().make_runner()


async def value(agent, expression: str) -> str:
    return (await agent.runner.evaluate(expression))[1]


async def test_a_fork_keeps_the_statements_before_its_point_and_drops_the_later_ones(tmp_path: Path) -> None:
    session = await new_session(tmp_path, runner=in_the_sandbox())
    agent = session.agent
    await step_until(agent, lambda e: isinstance(e, ev.RunStarted))
    await agent.host.run_statement("note = 'before the plan'")
    await step_until(agent, lambda e: isinstance(e, ev.ActionSent))  # inside the loop, after the stub's expansion
    await agent.host.run_statement("late = action")
    finished = await agent.run()
    session.writer.close()
    await agent.close()
    assert finished.success
    stub = agent.tree.root.children[0]  # steps = plan_steps(observation)
    kinds = [r["type"] for r in read_journal(session.folder).records]
    assert kinds.count("statement") == 2

    again, replayed = await resume_session(session.folder, ScriptedLLM([]), make_env)
    assert [e.code for e in replayed if isinstance(e, ev.StatementRun)] == ["note = 'before the plan'", "late = action"]
    assert await value(again.agent, "note") == "before the plan"
    assert await value(again.agent, "late") == await value(again.agent, "steps[0]")  # the first action: same point
    again.writer.close()
    await again.agent.close()

    fork, events = await branch_session(session.folder, fork_at_answer(stub.id), ScriptedLLM([]), make_env,
                                        tmp_path / "sessions", f"fork {stub.id}")
    assert await value(fork.agent, "note") == "before the plan"
    with pytest.raises(Exception, match="NameError"):
        await value(fork.agent, "late")  # typed after the fork's point: not part of the fork
    statements = [r["code"] for r in read_journal(fork.folder).records if r["type"] == "statement"]
    assert statements == ["note = 'before the plan'"]
    assert not fork.agent.host.replay_queue
    fork.writer.close()
    await fork.agent.close()


async def test_a_statement_after_an_llm_failure_replays_at_its_point(tmp_path: Path) -> None:
    from agent.llm import LLMError

    from .test_sessions import walk_llm

    class FlakyOnce:
        """Fails its first call, like a model server that was down for a moment."""

        name = "flaky"

        def __init__(self) -> None:
            self.inner, self.failed = walk_llm(GAME), False

        async def complete(self, prompt, context=None):
            if not self.failed:
                self.failed = True
                raise LLMError("HTTP 500")
            return await self.inner.complete(prompt, context)

    session = await new_session(tmp_path, llm=FlakyOnce(), runner=in_the_sandbox())
    agent = session.agent
    await step_until(agent, lambda e: isinstance(e, ev.LLMFailed))
    await step_until(agent, lambda e: isinstance(e, ev.ObservationReceived))  # one event later is another action
    await agent.host.run_statement("first = action")
    await agent.run()
    session.writer.close()
    await agent.close()
    again, _ = await resume_session(session.folder, ScriptedLLM([]), make_env)
    assert await value(again.agent, "first") == await value(again.agent, "steps[0]")
    again.writer.close()
    await again.agent.close()
