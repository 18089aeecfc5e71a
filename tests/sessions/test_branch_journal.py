"""An answer given after a resume or a branch is journaled whole, so the new session replays again.

A resume and a branch attach their journal writer after the replay, which
stops at the stub's expansion request; the answer that follows must still be
recorded with its stub and the prompt it answered.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from agent.runtime import events as ev
from agent.sessions.export import sft_lines
from agent.sessions.journal_read import JOURNAL_FILE, read_journal
from agent.sessions.session import branch_session, fork_at_answer, resume_session
from envs.registry import make_env
from mockllm.scripted import ScriptEntry, ScriptedLLM
from tests.eval.helpers import run_main

from .test_sessions import GAME, action_log, new_session, snapshot, step_until, toy, walk_llm  # noqa: F401 - toy: the autouse fixture

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


ROOT = Path(__file__).resolve().parents[2]
LOOK = "<execute>\nsteps = ['look']\n</execute>"


def last_answer(folder: Path) -> dict:
    return [r for r in read_journal(folder).records if r["type"] == "answer"][-1]


async def test_a_forked_stub_answered_anew_journals_its_stub_and_prompt_and_the_fork_resumes(tmp_path):
    session = await new_session(tmp_path)
    await session.agent.run()
    session.writer.close()
    await session.agent.close()
    stub = session.agent.tree.root.children[0]  # steps = plan_steps(observation)
    other = ScriptedLLM([ScriptEntry(answer=LOOK)])
    fork, events = await branch_session(
        session.folder, fork_at_answer(stub.id), other, make_env, tmp_path / "sessions", f"fork {stub.id}"
    )
    asked = events[-1]
    assert isinstance(asked, ev.LLMRequested) and asked.prompt
    done = await step_until(fork.agent, lambda e: False)
    fork.writer.close()
    await fork.agent.close()
    record = last_answer(fork.folder)
    assert record["answer"] == LOOK
    assert record["stub"] == stub.code and record["prompt"] == asked.prompt

    # The process is gone: a new session from the folder replays the fork to its end.
    again, replayed = await resume_session(fork.folder, ScriptedLLM([]), make_env)
    await again.agent.close()
    again.writer.close()
    assert isinstance(replayed[-1], ev.RunFinished) and replayed[-1].reason == done[-1].reason
    assert action_log(replayed) == action_log(done) == [("look", action_log(done)[0][1])]
    user = [json.loads(line)["messages"][0]["content"] for line in sft_lines(read_journal(fork.folder))]
    assert len(user) == 2 and all("# Current function to expand" in text for text in user)


async def test_an_expansion_answered_after_a_resume_journals_its_stub_and_prompt(tmp_path):
    session = await new_session(tmp_path)
    asked = (await step_until(session.agent, lambda e: isinstance(e, ev.LLMRequested) and e.node_id == "n1"))[-1]
    before = await snapshot(session.agent)
    session.writer.close()  # the process dies while n1 waits for its answer
    await session.agent.close()

    resumed, replayed = await resume_session(session.folder, walk_llm(GAME), make_env)
    assert isinstance(replayed[-1], ev.LLMRequested) and replayed[-1].node_id == "n1"
    assert (await snapshot(resumed.agent))[0] == before[0]
    result = await resumed.agent.run()
    resumed.writer.close()
    await resumed.agent.close()
    assert result.success
    record = [r for r in read_journal(session.folder).records if r["type"] == "answer"][1]
    assert record["node_id"] == "n1" and record["stub"] == "steps = plan_steps(observation)"
    assert record["prompt"] == asked.prompt

    again, replayed = await resume_session(session.folder, ScriptedLLM([]), make_env)
    again.writer.close()
    await again.agent.close()
    assert isinstance(replayed[-1], ev.RunFinished) and replayed[-1].success


def export(*args: str) -> subprocess.CompletedProcess:
    """`recode-tui export ARGS` through the command line's `main` here (`run_main`): its output and exit status
    are the subject, not its process."""
    return run_main(["export", *args, *(["--exec"] if "--sft" not in args else [])], dict(os.environ), cwd=ROOT)


async def test_a_markdown_export_of_a_journal_that_does_not_replay_fails_with_the_reason(tmp_path):
    session = await new_session(tmp_path)
    await session.agent.run()
    session.writer.close()
    await session.agent.close()
    sessions = str(tmp_path / "sessions")
    done = export(session.folder.name, "--markdown", "--sessions", sessions)
    assert done.returncode == 0 and "**Result:** won" in done.stdout

    journal = session.folder / JOURNAL_FILE
    lines = journal.read_text().splitlines()
    first_action = next(i for i, line in enumerate(lines) if '"type": "action"' in line)
    record = json.loads(lines[first_action])
    record["observation"] = "Nothing happens."
    lines[first_action] = json.dumps(record)
    journal.write_text("\n".join(lines) + "\n")
    for kind in ("--markdown", "--tree"):
        done = export(session.folder.name, kind, "--sessions", sessions)
        assert done.returncode != 0, kind
        assert done.stdout == "" and done.stderr.count("\n") == 1
        assert "cannot export" in done.stderr and "step 1" in done.stderr and "differs from the recording" in done.stderr


async def test_sft_export_leaves_out_answers_journaled_without_their_prompt(tmp_path):
    """Journals written by the old branch code hold answers with an empty prompt: no empty user message."""
    session = await new_session(tmp_path)
    await session.agent.run()
    session.writer.close()
    await session.agent.close()
    journal = session.folder / JOURNAL_FILE
    lines = journal.read_text().splitlines()
    last = max(i for i, line in enumerate(lines) if '"type": "answer"' in line)
    record = json.loads(lines[last])
    record["prompt"], record["stub"] = "", ""
    lines[last] = json.dumps(record)
    journal.write_text("\n".join(lines) + "\n")
    done = export(session.folder.name, "--sft", "--sessions", str(tmp_path / "sessions"))
    assert done.returncode == 0
    pairs = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert len(pairs) == 1 and all(p["messages"][0]["content"] for p in pairs)
    assert done.stderr.count("\n") == 1 and "1 answer(s) were journaled without their prompt" in done.stderr
