"""Journal, resume, replay checks, rewind/fork and exports, on the in-memory test environment.

The toy episode (tests/toyenv) and node code run in-process (the sandbox is not what these check)
make these fast; what is ALFWorld's (a game file changed since the
recording) runs on a real ALFWorld game.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agent.agents.recode.engine import Engine
from agent.runtime import events as ev
from agent.runtime.prompts import DEFAULT_PROMPTS, PromptSet
from agent.runtime.runner import CodeRunner
from agent.runtime.thread_runner import ThreadRunner
from agent.sessions.export import PlanFormatError, markdown_transcript, sft_lines, tree_document, validate_tree_document
from agent.sessions.journal import write_draft
from agent.sessions.journal_read import JOURNAL_FILE, JournalError, read_journal
from agent.sessions.session import branch_session, fork_at_answer, resume_session, rewind_to_node, start_session
from envs.registry import make_env
from envs.alfworld.catalog import resolve_game
from mockllm.scripted import ScriptEntry, ScriptedLLM
from mockllm.journal import journal_llm
from envs.registry import EpisodeRef
from tests.settings import IN_PROCESS_REPLAY

GAME = "toy:key-1"  # put a key in box: 4 actions
ALFWORLD_GAME = "cool-03"


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


def walkthrough(episode_ref: str) -> list[str]:
    """The episode's known solution: the provider's gold path, or an ALFWorld game file's walkthrough."""
    from envs import registry

    return registry.gold_actions(episode_ref) or json.loads(resolve_game(episode_ref).read_text())["walkthrough"]


def walk_llm(episode_ref: str) -> ScriptedLLM:
    """Two levels of expansion, then the episode's known solution, one action at a time."""
    steps = walkthrough(episode_ref)
    return ScriptedLLM(
        [
            ScriptEntry(stub="solve(instruction, observation)",
                        answer="<think>plan, then act</think><execute>\nsteps = plan_steps(observation)\n"
                               "for action in steps:\n    run(action)\ndone = True\n</execute>"),
            ScriptEntry(stub="steps = plan_steps(observation)",
                        answer=f"<think>known plan</think><execute>\nsteps = {steps!r}\ncount = len(steps)\n</execute>"),
        ]
    )


async def new_session(tmp_path: Path, episode_ref: str = GAME, llm=None, runner: CodeRunner | None = None):
    """A journaled run of the walk; node code in-process (the sandbox is not what these check) unless `runner`."""
    agent = Engine(make_env(episode_ref), llm or walk_llm(episode_ref), runner or ThreadRunner())
    return start_session(agent, tmp_path / "sessions", EpisodeRef.parse(episode_ref), "scripted:test")


async def step_until(agent: Engine, predicate, limit: int = 500) -> list[ev.Event]:
    seen = []
    for _ in range(limit):
        seen.append(await agent.step())
        if predicate(seen[-1]) or isinstance(seen[-1], ev.RunFinished):
            return seen
    raise AssertionError("predicate never true")


async def snapshot(agent: Engine) -> tuple:
    tree = [(n.id, n.code, n.status.value, n.observations, n.error) for n in agent.tree.walk()]
    namespace = [(v.name, v.type, v.summary) for v in await agent.runner.variables()]
    return tree, namespace, agent.env.steps


def action_log(events: list[ev.Event]) -> list[tuple[str, str]]:
    return [(e.action, e.observation) for e in events if isinstance(e, ev.ObservationReceived)]


async def test_resume_rebuilds_the_same_tree_namespace_log_and_draft(tmp_path):
    session = await new_session(tmp_path)
    # stop mid-loop: after the third observation
    events = await step_until(session.agent, lambda e: isinstance(e, ev.ObservationReceived) and e.step == 3)
    write_draft(session.folder, "n9", "<execute>\nrun('look')\n")
    assert isinstance(await session.agent.step(), ev.ActionSent)  # the 4th action asked for, not sent
    before = await snapshot(session.agent)
    session.writer.close()  # the process "dies" here
    await session.agent.close()

    resumed, replayed = await resume_session(session.folder, walk_llm(GAME), make_env, **IN_PROCESS_REPLAY)
    # it stops at the next point that needs the outside world: the 4th action, not yet sent
    assert isinstance(replayed[-1], ev.ActionSent) and replayed[-1].step == 4
    assert await snapshot(resumed.agent) == before
    assert action_log(replayed) == action_log(events)
    assert resumed.draft["text"] == "<execute>\nrun('look')\n"
    # and it runs on to a win, appending to the same journal
    result = await resumed.agent.run()
    assert result.success
    journal = read_journal(session.folder)
    assert [r["step"] for r in journal.records if r["type"] == "action"] == list(range(1, result.steps + 1))
    assert journal.finished["success"] is True


async def test_a_cut_last_line_resumes_up_to_the_last_whole_record(tmp_path):
    session = await new_session(tmp_path)
    await step_until(session.agent, lambda e: isinstance(e, ev.ObservationReceived) and e.step == 2)
    session.writer.close()
    with open(session.folder / JOURNAL_FILE, "a") as handle:
        handle.write('{"type": "action", "node_id": "n4", "st')  # the crash cut this record
    resumed, replayed = await resume_session(session.folder, walk_llm(GAME), make_env, **IN_PROCESS_REPLAY)
    assert any("the last record of journal.jsonl was cut" in note for note in resumed.notes)
    assert resumed.agent.env.steps == 2


def test_corrupt_foreign_and_future_journals_are_refused_with_a_reason(tmp_path):
    folder = tmp_path / "s"
    folder.mkdir()
    journal = folder / JOURNAL_FILE
    journal.write_text('{"type": "session", "version": "recode.journal.v1"}\nnot json\n{"type": "x"}\n')
    with pytest.raises(JournalError, match="is corrupt at line 2"):
        read_journal(folder)
    journal.write_text('{"type": "session", "version": "recode.journal.v9"}\n')
    with pytest.raises(JournalError, match="is version 'recode.journal.v9'; this recode-tui reads recode.journal.v1"):
        read_journal(folder)
    journal.write_text('{"hello": 1}\n')
    with pytest.raises(JournalError, match="not a recode-tui journal"):
        read_journal(folder)
    with pytest.raises(JournalError, match="cannot read journal"):
        read_journal(tmp_path / "missing")


async def test_a_game_file_changed_since_recording_is_detected(tmp_path):
    game = tmp_path / "game.tw-pddl"
    shutil.copy(resolve_game(ALFWORLD_GAME), game)
    agent = Engine(make_env(str(game)), walk_llm(ALFWORLD_GAME), ThreadRunner())
    session = start_session(agent, tmp_path / "sessions", EpisodeRef.parse(str(game)), "scripted:test")
    await step_until(agent, lambda e: isinstance(e, ev.ObservationReceived))
    session.writer.close()
    game.write_text(game.read_text().replace('"walkthrough"', '"walkthrough" ', 1))
    with pytest.raises(JournalError, match="changed since session .* was recorded"):
        await resume_session(session.folder, walk_llm(ALFWORLD_GAME), make_env, **IN_PROCESS_REPLAY)


async def test_a_toy_episode_changed_since_recording_is_detected(tmp_path, monkeypatch):
    from dataclasses import replace

    from tests.toyenv import world

    session = await new_session(tmp_path)
    await step_until(session.agent, lambda e: isinstance(e, ev.ObservationReceived))
    session.writer.close()
    await session.agent.close()
    changed = replace(world.EPISODES["key-1"], task="put a key in the box.")
    monkeypatch.setitem(world.EPISODES, "key-1", changed)
    with pytest.raises(JournalError, match="the episode toy:key-1 changed since session .* was recorded"):
        await resume_session(session.folder, walk_llm(GAME), make_env, **IN_PROCESS_REPLAY)


async def test_replay_with_a_changed_prompt_stops_naming_the_step_and_showing_both(tmp_path):
    session = await new_session(tmp_path)
    await session.agent.run()
    session.writer.close()
    edited = tmp_path / "prompts"
    shutil.copytree(DEFAULT_PROMPTS, edited)
    (edited / "expand.txt").write_text((edited / "expand.txt").read_text().replace("# Primitive actions", "# Primitive actions (edited)"))
    resumed, events = await resume_session(session.folder, walk_llm(GAME), make_env, prompts=PromptSet(edited),
                                           **IN_PROCESS_REPLAY)
    finished = events[-1]
    assert isinstance(finished, ev.RunFinished) and not finished.success
    assert finished.reason.startswith("replay mismatch: answer 1 (node n0): the prompt differs from the recording")
    assert "-# Primitive actions" in finished.reason and "+# Primitive actions (edited)" in finished.reason


async def test_rewind_branches_before_a_node_and_keeps_the_old_session(tmp_path):
    session = await new_session(tmp_path)
    await session.agent.run()
    session.writer.close()
    original = (session.folder / JOURNAL_FILE).read_text()
    loop_node = session.agent.tree.root.children[1]  # the for loop over the walkthrough
    branch, events = await branch_session(
        session.folder, rewind_to_node(loop_node.id), walk_llm(GAME), make_env, tmp_path / "sessions", f"before {loop_node.id}",
        **IN_PROCESS_REPLAY,
    )
    assert isinstance(events[-1], ev.NodeStarted) and events[-1].node_id == loop_node.id
    assert branch.agent.env.steps == 0 and branch.agent.tree.nodes[loop_node.id].observations == []
    assert (session.folder / JOURNAL_FILE).read_text() == original  # the old branch is untouched
    header = read_journal(branch.folder).header
    assert header.parent.session == session.folder.name and header.parent.at == f"before {loop_node.id}"
    result = await branch.agent.run()
    assert result.success


async def test_fork_gives_a_stub_a_different_answer_and_both_branches_survive(tmp_path):
    session = await new_session(tmp_path)
    await session.agent.run()
    session.writer.close()
    stub = session.agent.tree.root.children[0]  # steps = plan_steps(observation)
    other = ScriptedLLM([ScriptEntry(answer="<execute>\nsteps = ['look']\n</execute>")])
    fork, events = await branch_session(
        session.folder, fork_at_answer(stub.id), other, make_env, tmp_path / "sessions", f"fork {stub.id}",
        **IN_PROCESS_REPLAY,
    )
    assert isinstance(events[-1], ev.LLMRequested) and events[-1].node_id == stub.id
    result = await fork.agent.run()
    assert not result.success and result.steps == 1
    old, new = read_journal(session.folder), read_journal(fork.folder)
    assert old.finished["success"] is True and new.finished["success"] is False
    assert [r["answer"] for r in new.records if r["type"] == "answer"][-1] == "<execute>\nsteps = ['look']\n</execute>"


async def test_exports_tree_sft_and_markdown(tmp_path):
    session = await new_session(tmp_path)
    await session.agent.run()
    session.writer.close()
    journal = read_journal(session.folder)
    document = json.loads(json.dumps(tree_document(session.agent)))
    validate_tree_document(document)
    assert len(document["nodes"]) == len(session.agent.tree) and document["meta"]["success"] is True
    broken = dict(document, edges=document["edges"][:-1])
    with pytest.raises(PlanFormatError):
        validate_tree_document(broken)
    lines = sft_lines(journal)
    accepted = sum(len(n.llm_calls) for n in session.agent.tree.walk())
    assert len(lines) == accepted == 2
    pair = json.loads(lines[0])
    assert [m["role"] for m in pair["messages"]] == ["user", "assistant"]
    assert "# Current function to expand" in pair["messages"][0]["content"]
    text = markdown_transcript(journal, [])
    assert text.startswith(f"# Session {journal.session_id}")


async def test_a_full_disk_keeps_the_run_going_and_says_so(tmp_path):
    folder = tmp_path / "sessions"
    agent = Engine(make_env(GAME), walk_llm(GAME), ThreadRunner())
    session = start_session(agent, folder, EpisodeRef.parse(GAME), "scripted:test")
    session.writer.close()
    journal = session.folder / JOURNAL_FILE
    journal.unlink()
    journal.symlink_to("/dev/full")  # every write fails with ENOSPC
    session.writer._fd = os.open(journal, os.O_WRONLY | os.O_APPEND)
    result = await agent.run()
    assert result.success
    assert session.writer.error.startswith("journal write failed (No space left on device): ")
    assert "kept in memory and retried with the next" in session.writer.error


async def test_a_journal_serves_as_a_scripted_llm_for_another_run(tmp_path):
    session = await new_session(tmp_path)
    await session.agent.run()
    session.writer.close()
    again = Engine(make_env(GAME), journal_llm(session.folder / JOURNAL_FILE), ThreadRunner())
    result = await again.run()
    assert result.success and result.llm_calls == 2


async def test_a_session_whose_prompt_set_was_edited_mid_run_resumes_with_that_set(tmp_path):
    edited = tmp_path / "edited-prompts"
    shutil.copytree(DEFAULT_PROMPTS, edited)
    (edited / "expand.txt").write_text((edited / "expand.txt").read_text() + "\nKeep plans short.\n")
    agent = Engine(make_env(GAME), walk_llm(GAME), ThreadRunner())
    session = start_session(agent, tmp_path / "sessions", EpisodeRef.parse(GAME), "scripted:test")
    session.writer.current_prompts = lambda: agent.prompts  # as the console wires it
    await step_until(agent, lambda e: isinstance(e, ev.LLMAnswered))  # solve, with the bundled set
    agent.prompts = PromptSet(edited)  # the person saved an edited set in the workspace
    await step_until(agent, lambda e: isinstance(e, ev.ObservationReceived) and e.step == 2)
    session.writer.close()
    answers = [r for r in read_journal(session.folder).records if r["type"] == "answer"]
    assert "prompt_hash" not in answers[0] and answers[1]["prompt_hash"] == PromptSet(edited).content_hash()

    resumed, replayed = await resume_session(session.folder, walk_llm(GAME), make_env, **IN_PROCESS_REPLAY)
    assert not any(isinstance(e, ev.RunFinished) for e in replayed), replayed[-1]
    assert resumed.agent.prompts.root == edited and resumed.notes == []
    assert (await resumed.agent.run()).success
    resumed.writer.close()

    shutil.rmtree(edited)  # the edited set is gone: still resumable, with a note
    again, _ = await resume_session(session.folder, walk_llm(GAME), make_env, **IN_PROCESS_REPLAY)
    assert any("is not on disk as it was" in note for note in again.notes)
    await again.agent.close()


async def test_answer_times_are_journaled_and_a_resume_shows_the_recorded_ones(tmp_path):
    from agent.llm.openai_client import OpenAILLM
    from agent.llm.profiles import PriceTable, Profile
    from mockllm.openai_server import OpenAICompatibleServer, entries_responder

    with OpenAICompatibleServer(entries_responder(walk_llm(GAME).entries), latency=0.05) as server:
        profile = Profile(name="local", model="m", api_key="k", base_url=server.base_url, timeout=10.0, max_retries=0)
        session = await new_session(tmp_path, llm=OpenAILLM(profile, PriceTable({})))
        await step_until(session.agent, lambda e: isinstance(e, ev.ObservationReceived) and e.step == 2)
        session.writer.close()
        await session.agent.close()
    recorded = [r["seconds"] for r in read_journal(session.folder).records if r.get("type") == "answer"]
    assert len(recorded) == 2 and all(s >= 0.05 for s in recorded)  # the server's latency: the answer's own time
    resumed, _ = await resume_session(session.folder, ScriptedLLM([]), make_env, **IN_PROCESS_REPLAY)  # instant
    shown = [e.seconds for n in resumed.agent.tree.walk() for e in n.llm_calls]
    assert shown == pytest.approx(recorded, abs=1e-3)  # the recorded times, not the replay's
    await resumed.agent.close()


async def test_every_record_is_on_disk_before_the_agent_goes_on(tmp_path, monkeypatch):
    """An answer (and every other record) is fsynced before the next observer, and so the run, sees it:
    a crash right after an answer was taken never loses it. os.fsync is wrapped (a spy that still syncs)."""
    real_fsync = os.fsync
    synced: dict[str, int] = {"size": 0}
    session = await new_session(tmp_path)
    journal = session.folder / JOURNAL_FILE

    def fsync_spy(fd: int) -> None:
        real_fsync(fd)
        if os.path.realpath(f"/proc/self/fd/{fd}") == str(journal.resolve()):
            synced["size"] = os.fstat(fd).st_size

    synced["size"] = journal.stat().st_size  # the header, synced when the session started
    monkeypatch.setattr(os, "fsync", fsync_spy)
    unsynced: list[str] = []

    def after_the_journal(event: ev.Event) -> None:
        if journal.stat().st_size > synced["size"]:
            unsynced.append(type(event).__name__)

    session.agent.host.observers.append(after_the_journal)
    result = await session.agent.run()
    await session.agent.close()
    session.writer.close()
    answers = [r for r in read_journal(session.folder).records if r.get("type") == "answer"]
    assert result.success and len(answers) == 2
    assert unsynced == []


async def test_two_sessions_of_one_game_started_in_the_same_second_keep_their_own_journals(tmp_path, monkeypatch):
    """eval's workers or a script can start the same game twice within a second: each run has its
    own folder and journal (before, the second appended to the first's, and a resume replayed both)."""
    import agent.sessions.journal as journal_module

    monkeypatch.setattr(journal_module.time, "strftime", lambda fmt, *a: "20261125-120000")  # one second
    first, second = await new_session(tmp_path), await new_session(tmp_path)
    try:
        assert first.folder != second.folder
        for session in (first, second):
            lines = (session.folder / JOURNAL_FILE).read_text().splitlines()
            assert [json.loads(line)["type"] for line in lines].count("session") == 1
    finally:
        for session in (first, second):
            await session.agent.close()
