"""`recode-tui diff` on a fork and its parent, played on a real ALFWorld game with a scripted LLM.

The parent solves cool-03 by its walkthrough; the fork gives the plan stub
another answer (a shorter plan). The diff must name that edited expansion as
the first divergence, with the answer diff showing the edit, and refuse a run
of another game with one line.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agent.agents.recode.engine import Engine
from agent.sessions.journal_read import read_journal
from agent.eval.rundiff.diff import diff_runs
from agent.runtime.thread_runner import ThreadRunner
from agent.sessions.session import branch_session, fork_at_answer, start_session
from envs.registry import make_env
from mockllm.scripted import ScriptEntry, ScriptedLLM
from recode_tui.commands import cli
from envs.registry import EpisodeRef
from tests.settings import IN_PROCESS_REPLAY

GAME = "cool-03"
PLAN = "steps = plan_steps(observation)"


def walkthrough(episode_ref: str) -> list[str]:
    from envs.alfworld.catalog import resolve_game

    return json.loads(resolve_game(episode_ref).read_text())["walkthrough"]


def plan_llm(steps: list[str]) -> ScriptedLLM:
    return ScriptedLLM([
        ScriptEntry(stub="solve(instruction, observation)",
                    answer=f"<think>plan, then act</think><execute>\n{PLAN}\nfor action in steps:\n    run(action)\n"
                           "</execute>"),
        ScriptEntry(stub=PLAN, answer=f"<think>known plan</think><execute>\nsteps = {steps!r}\n</execute>"),
    ])


async def play(tmp_path: Path, episode_ref: str, llm: ScriptedLLM) -> Path:
    agent = Engine(make_env(episode_ref), llm, ThreadRunner())  # in-process: the sandbox is not what a diff reads
    session = start_session(agent, tmp_path / "sessions", EpisodeRef.parse(episode_ref), "scripted:test")
    await agent.run()
    session.writer.close()
    await agent.close()
    return session.folder


async def fork_of(tmp_path: Path, parent: Path, answer_steps: list[str]) -> Path:
    stub = next(r["node_id"] for r in read_journal(parent).records if r.get("type") == "answer" and r["stub"] == PLAN)
    fork, _ = await branch_session(parent, fork_at_answer(stub), plan_llm(answer_steps), make_env,
                                   tmp_path / "sessions", f"fork {stub}", **IN_PROCESS_REPLAY)
    await fork.agent.run()
    fork.writer.close()
    await fork.agent.close()
    return fork.folder


def make_fork_and_parent(folder: Path) -> tuple[Path, Path]:
    """The parent solves the game; its fork keeps the plan's first four steps, then looks."""
    async def make() -> tuple[Path, Path]:
        steps = walkthrough(GAME)
        parent = await play(folder, GAME, plan_llm(steps))
        return parent, await fork_of(folder, parent, steps[:4] + ["look"])

    return asyncio.run(make())


@pytest.fixture(scope="module")
def fork_and_parent(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Made once for the module: the tests only read the two journals."""
    return make_fork_and_parent(tmp_path_factory.mktemp("fork"))


async def test_diff_of_a_fork_and_its_parent_names_the_edited_expansion_first(fork_and_parent, capsys) -> None:
    parent, fork = fork_and_parent
    assert cli.main(["diff", str(parent), str(fork), "--width", "120"]) == 0
    out = capsys.readouterr().out
    steps = walkthrough(GAME)
    first = out.split("the LLM call that led there:")[0]
    # the fork's answer differs before any action; its plan keeps the first four steps, so the actions part at 5
    assert "first divergence: an LLM answer, before step 1; the actions part at step 5 (4 equal steps" in first
    assert f"A at step 5: > {steps[4]}" in first and "B at step 5: > look" in first
    call = out.split("the LLM call that led there:")[1].split("nodes, by path and code")[0]
    assert f"A: call 2 (expand) for n1 at 0.0 {PLAN}" in call
    assert "the prompts are the same" in call
    assert f"-steps = {steps!r}" in call and f"+steps = {steps[:4] + ['look']!r}" in call
    # the side by side: the equal walkthrough steps folded, then where they part
    tail = out.split("environment steps (A │ B):")[1]
    assert "··· 4 equal steps (rows 1-4) ···" in tail
    assert f"! {5:>3} {steps[4]}" in tail and f"│ {5:>3} look" in tail


async def test_diff_json_has_the_documented_shape(fork_and_parent, capsys) -> None:
    parent, fork = fork_and_parent
    assert cli.main(["diff", str(parent), str(fork), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["version"] == "recode.diff.v1" and document["kind"] == "runs"
    divergence = document["divergence"]
    assert divergence["kind"] == "answer" and divergence["llm_call"]["a"]["node_id"] == "n1"
    assert divergence["llm_call"]["a"]["stub"] == divergence["llm_call"]["b"]["stub"] == PLAN
    assert [row["op"] for row in document["steps"][:5]] == ["equal"] * 4 + ["changed"]
    assert document["divergence"]["step"] == 5 and document["divergence"]["action"]["b"]["action"] == "look"
    changed = [row for row in document["nodes"] if row["op"] != "equal"]
    assert changed[0]["path"] == "0.0" and changed[0]["a"]["code"] == PLAN


async def test_sessions_are_found_by_id_in_the_sessions_folder(fork_and_parent, capsys) -> None:
    parent, fork = fork_and_parent
    assert cli.main(["diff", parent.name, fork.name, "--sessions", str(parent.parent)]) == 0
    assert "the actions part at step 5" in capsys.readouterr().out
    assert cli.main(["diff", parent.name, "no-such-session", "--sessions", str(parent.parent)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no session 'no-such-session'" in err and "sessions list" in err


async def test_a_run_of_another_game_is_refused_with_one_line(fork_and_parent, tmp_path, capsys) -> None:
    parent, _ = fork_and_parent
    other = await play(tmp_path, "put-01", plan_llm(walkthrough("put-01")))
    assert cli.main(["diff", str(parent), str(other)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "played cool-03" in err and "played put-01" in err and "same episode" in err


async def test_the_same_run_twice_has_no_divergence(fork_and_parent) -> None:
    parent, _ = fork_and_parent
    diff = diff_runs(read_journal(parent), read_journal(parent))
    assert diff.divergence is None and all(row.op == "equal" for row in diff.steps)
