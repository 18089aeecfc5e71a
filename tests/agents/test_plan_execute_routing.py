"""Model routing for Plan-and-Execute: one LLM per role through `--llm ROLE=SPEC,...`, kept on resume,
and a person taking one role through the debugger."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path

import yaml

import pytest

from agent.runtime import events as ev
from agent.runtime.debugger import Debugger
from agent.sessions.journal_read import read_journal
from recode_tui.setup.build import make_agent, make_llm
from recode_tui.setup.usage import UsageError
from tests.settings import console_options, episode_named, run_settings
from tests.eval.helpers import run_main

pytestmark = pytest.mark.heavy  # the sandbox worker, eval's worker processes

# put-01's task on the toy world (tests/toyenv): the routing of roles is checked, not ALFWorld
GAME = "toy:vase-1"


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


PLAN = {"thought": "find it, then place it", "steps": [
    {"id": "s1", "description": "find the vase and take it", "depends_on": []},
    {"id": "s2", "description": "put the vase on sidetable 1", "depends_on": ["s1"]}]}
S1 = r"Your step: s1: find the vase[\s\S]*"
S2 = r"Your step: s2: put the vase[\s\S]*"
EXECUTOR = [  # matched by the prompt, so a fresh process (a resume) answers the same
    (S1 + r"This step so far:\n\(nothing yet\)", "Thought: tables first\nAction: go to diningtable 1"),
    (r"Latest observation: You arrive at diningtable 1", "Thought: here\nAction: take vase 1 from diningtable 1"),
    (S1 + r"Latest observation: You pick up the vase 1", "Thought: I hold it\nDone: holding vase 1"),
    (S2 + r"This step so far:\n\(nothing yet\)", "Thought: go there\nAction: go to sidetable 1"),
    (r"Latest observation: You arrive at sidetable 1", "Thought: place it\nAction: move vase 1 to sidetable 1"),
]


def write_scripts(folder: Path, executor_answers: int = len(EXECUTOR)) -> tuple[Path, Path]:
    planner, executor = folder / "planner.yaml", folder / "executor.yaml"
    planner.write_text(yaml.safe_dump({"answers": [{"purpose": "plan", "answer": json.dumps(PLAN)}]}))
    executor.write_text(yaml.safe_dump({"answers": [{"purpose": "act", "when": w, "answer": a}
                                                    for w, a in EXECUTOR[:executor_answers]]}))
    return planner, executor


def recode(*args: str, sessions: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, RECODE_TUI_SESSIONS=str(sessions))
    return run_main(list(args), env)


def test_each_role_answers_from_its_own_llm_and_a_resume_rebuilds_the_routing(tmp_path):
    planner, executor = write_scripts(tmp_path, executor_answers=4)  # the last move is missing at first
    spec = f"planner=scripted:{planner},executor=scripted:{executor}"
    sessions = tmp_path / "sessions"
    first = recode("run", "--quiet", "--game", GAME, "--agent", "plan-execute", "--llm", spec, sessions=sessions)
    # the planner's script has no executor answers and the other way round: only routing gets this far
    assert first.returncode == 1 and "no answer for stub `s2: put the vase" in first.stdout, first.stdout + first.stderr
    folder = next(sessions.iterdir())
    journal = read_journal(folder)
    assert journal.header.run.model.llm == spec and journal.header.run.agent.name == "plan-execute"
    roles = [r.get("role") for r in journal.records if r.get("type") == "answer"]
    assert roles == ["planner", "executor", "executor", "executor", "executor"]

    write_scripts(tmp_path)  # now the executor's script knows the last move too
    resumed = recode("run", "--resume", sessions=sessions)  # no --llm: the recorded routing spec
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"resuming with the session's LLM {spec}" in resumed.stderr
    assert resumed.stdout.splitlines()[-1].startswith("SUCCESS: won — 4 steps, 6 LLM calls")
    finished = [r for r in read_journal(folder).records if r.get("type") == "finished"][-1]
    assert finished["extra"]["roles"]["planner"]["calls"] == 1
    assert finished["extra"]["roles"]["executor"]["calls"] == 5


def test_a_role_the_agent_does_not_have_is_one_clear_line(tmp_path):
    planner, _ = write_scripts(tmp_path)
    result = recode("run", "--game", GAME, "--agent", "plan-execute", "--llm", f"coder=scripted:{planner}",
                    sessions=tmp_path / "s")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        f"recode-tui: error: --llm coder=scripted:{planner}: the plan-execute agent has no role coder "
        "(its roles: planner, executor, replanner)")
    recap = recode("run", "--game", GAME, "--agent", "recap", "--llm", f"planner=scripted:{planner}",
                   sessions=tmp_path / "s")
    assert recap.returncode == 2 and "the recap agent has no role planner" in recap.stderr


def test_a_plain_spec_answers_every_role_and_a_default_answers_the_roles_not_named(tmp_path):
    planner, executor = write_scripts(tmp_path)
    both = tmp_path / "both.yaml"
    both.write_text(yaml.safe_dump({"answers": yaml.safe_load(planner.read_text())["answers"]
                                    + yaml.safe_load(executor.read_text())["answers"]}))
    llm = make_llm(f"scripted:{both}")
    agent = make_agent(run_settings(agent="plan-execute"), episode_named(GAME), llm)
    assert all(agent.host.llm_for(role) is llm for role in agent.roles)
    asyncio.run(agent.close())
    routed = make_llm(f"scripted:{both},executor=scripted:{executor}")
    agent = make_agent(run_settings(agent="plan-execute"), episode_named(GAME), routed)
    assert agent.host.llm_for("executor").name == f"scripted:{executor}"
    assert agent.host.llm_for("planner").name == agent.host.llm_for("replanner").name == f"scripted:{both}"
    asyncio.run(agent.close())
    try:
        make_llm(f"planner=scripted:{both},planner=human")
    except UsageError as exc:
        assert "the role planner is given twice" in str(exc)
    else:
        raise AssertionError("a role given twice must be refused")


async def test_a_person_takes_the_executor_role_while_the_planner_is_scripted(tmp_path):
    planner, _ = write_scripts(tmp_path)
    agent = make_agent(run_settings(agent="plan-execute"), episode_named(GAME),
                         make_llm(f"planner=scripted:{planner},executor=human"))
    dbg = Debugger(agent, breakpoints=[])
    stop = await dbg.step("continue")  # the planner answered by itself; the executor's call waits for the person
    assert isinstance(stop.event, ev.LLMRequested) and stop.event.role == "executor"
    assert stop.reason.kind == "human" and dbg.awaiting_human
    assert agent.answer_skeleton(stop.event.purpose, "executor") == "Thought: \nAction: "
    refused = await dbg.submit("go to diningtable 1")  # no Action: line
    assert isinstance(refused.event, ev.LLMRequested) and "no `Action: ...`" in refused.reason.text
    for text in ("Action: go to diningtable 1", "Action: take vase 1 from diningtable 1", "Done: got it",
                 "Action: go to sidetable 1", "Thought: last one\nAction: move vase 1 to sidetable 1"):
        accepted = await dbg.submit(text)
        assert isinstance(accepted.event, ev.LLMAnswered), accepted.reason.text
        stop = await dbg.step("continue")
    assert isinstance(stop.event, ev.RunFinished) and stop.event.success
    roles = stop.event.extra["roles"]
    assert roles["planner"]["calls"] == 1 and roles["executor"]["calls"] == 6  # one refused answer counted
    await agent.close()


def test_a_headless_run_refuses_a_person_in_a_role_in_one_line(tmp_path):
    planner, _ = write_scripts(tmp_path)
    result = recode("run", "--game", GAME, "--agent", "plan-execute", "--llm",
                    f"planner=scripted:{planner},executor=human", sessions=tmp_path / "s")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].endswith(
        "a person takes a role only in the console; use `recode-tui tui`")


async def test_the_console_waits_for_the_person_only_on_the_executor_role(tmp_path):
    from recode_tui.console.app import build_app
    from tests.console.helpers import next_stop, published, refreshed
    from tests.console.page import ConsolePage

    planner, _ = write_scripts(tmp_path)
    app = build_app(console_options(GAME, f"planner=scripted:{planner},executor=human", agent="plan-execute"))
    async with ConsolePage.open(app) as page:

        async def on_to_the_person() -> None:
            """`c` until the run waits for the person: the every-call breakpoint also stops at the planner's calls."""
            while not page.awaiting_answer and page.finished is None:
                await page.command("c")

        await on_to_the_person()
        assert page.awaiting_answer and page.last_event.role == "executor"
        for text in ("Action: go to diningtable 1", "Action: take vase 1 from diningtable 1", "Done: got it",
                     "Action: go to sidetable 1", "Action: move vase 1 to sidetable 1"):
            assert page.awaiting_answer
            stop = next_stop(app)
            assert page.screen.driver.submit(f"Thought: mine\n{text}")
            await published(stop, "the stop after the person's answer")
            await refreshed(app)
            await on_to_the_person()
            assert page.finished is not None or page.last_event.role == "executor"  # never asked for the planner
        assert page.finished is not None and page.finished.success
        assert page.finished.extra["roles"]["executor"]["calls"] == 5


def test_a_routed_llm_handed_over_whole_still_answers_each_role_with_its_own(tmp_path):
    """A fork gives the person the forked call, then hands the session's LLM back as `agent.host.llm`."""
    planner, executor = write_scripts(tmp_path)
    routed = make_llm(f"planner=scripted:{planner},executor=scripted:{executor}")
    agent = make_agent(run_settings(agent="plan-execute"), episode_named(GAME), make_llm("human"))
    agent.host.llm = routed  # what the console's hand-back after a typed answer does
    assert agent.host.llm_for("executor").name == f"scripted:{executor}"
    assert agent.host.llm_for("planner").name == agent.host.llm_for("replanner").name == f"scripted:{planner}"
    asyncio.run(agent.close())


def test_eval_refuses_a_role_the_agent_lacks_before_any_episode(tmp_path):
    planner, executor = write_scripts(tmp_path)
    result = recode("eval", "--env", "toy", "--games", "vase-1", "--agent", "recap", "--llm",
                    f"planner=scripted:{planner},executor=scripted:{executor}", "-o", str(tmp_path / "e"),
                    sessions=tmp_path / "s")
    assert result.returncode == 2 and not (tmp_path / "e").exists()
    assert result.stderr.strip().splitlines()[-1].endswith(
        "the recap agent has no role planner, executor (its roles: none (it has one LLM: give --llm SPEC))")
    won = recode("eval", "--env", "toy", "--games", "vase-1", "--agent", "plan-execute", "--no-progress", "-c", "1", "--llm",
                 f"planner=scripted:{planner},executor=scripted:{executor}", "-o", str(tmp_path / "ok"),
                 sessions=tmp_path / "s")
    assert won.returncode == 0 and "│ overall   │        1 │       1 │ 100.0%" in won.stdout, won.stdout + won.stderr


def test_a_role_given_the_demo_names_demo_as_its_answer_source_in_the_run_lines_and_the_journal(tmp_path):
    sessions = tmp_path / "sessions"
    # the executor plays the same bundled file, named as a script: only the planner's answers are the demo's
    executor = Path(__file__).resolve().parents[2] / "mockllm" / "demos" / "plan-execute-alfworld.jsonl"
    spec = f"planner=demo,executor=scripted:{executor}"
    # the demo plays the bundled games: this one keeps ALFWorld's put-01
    done = recode("run", "--game", "put-01", "--agent", "plan-execute", "--llm", spec, sessions=sessions)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " answered by demo: " in done.stdout and " answered by scripted: " in done.stdout, done.stdout
    journal = read_journal(next(sessions.iterdir()))
    sources = {(r.get("role"), r.get("source")) for r in journal.records if r.get("type") == "answer"}
    assert sources == {("planner", "demo"), ("executor", "scripted")}
