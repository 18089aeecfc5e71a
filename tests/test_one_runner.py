"""Every path that builds an agent runs model code in the sandbox with its checks.

Each test gives an answer that opens a file for writing and checks that it is
refused and the file never appears: `run`, the console (Pilot), `eval`,
`--resume` of a journal an old eval wrote (it recorded an unchecked in-process
runner as trusted), a fork in the console, and the prompt workspace's
re-expansion of an earlier stub (which forks). On the toy world (tests/toyenv): what is tested is the
runner each path builds, not the world.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from agent.agents.recode.engine import Engine
from agent.runtime import events as ev
from agent.runtime.thread_runner import ThreadRunner
from agent.sessions.journal_read import read_journal
from agent.sessions.session import start_session
from envs.registry import make_env
from mockllm.scripted import ScriptEntry, ScriptedLLM
from recode_tui.console.app import build_app

from tests.console.helpers import SIZE
from tests.console.page import ConsolePage
from tests.settings import console_options
from envs.registry import EpisodeRef
from tests.eval.helpers import run_main

pytestmark = pytest.mark.heavy  # the sandbox worker


SOLVE = "solve(instruction, observation)"
GAME = "toy:vase-1"


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


def hostile(target: Path) -> str:
    return f"<think>write a file</think><execute>\nopen({str(target)!r}, 'w').write('x')\nrun('look')\n</execute>"


def script_file(tmp_path: Path, answer: str) -> Path:
    path = tmp_path / "script.jsonl"
    path.write_text(json.dumps({"stub": "*", "answer": answer}) + "\n")
    return path


def recode(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions"), OPENAI_API_KEY="")
    return run_main(list(args), env)


async def old_eval_journal(tmp_path: Path, first_answer: str) -> Path:
    """A journal as `eval` wrote it before the fix: the in-process runner, no checks, header `trusted`.

    n0 gets `first_answer`; the run is left waiting for the expansion of `finish_up`.
    """
    llm = ScriptedLLM([ScriptEntry(stub=SOLVE, answer=first_answer)])
    agent = Engine(make_env(GAME), llm, ThreadRunner())
    session = start_session(agent, tmp_path / "sessions", EpisodeRef.parse(GAME), "scripted:old-eval")
    while True:
        event = await agent.step()
        assert not isinstance(event, ev.RunFinished), event
        if isinstance(event, ev.LLMRequested) and event.node_id != "n0":
            break
    session.writer.close()
    await agent.close()
    header = read_journal(session.folder).header
    assert header.runner == "ThreadRunner" and header.run.runner.trusted is True
    return session.folder


def test_run_refuses_an_answer_that_writes_a_file(tmp_path):
    target = tmp_path / "pwned"
    result = recode(tmp_path, "run", "--game", GAME, "--llm", f"scripted:{script_file(tmp_path, hostile(target))}")
    assert "rejected: forbidden: open" in result.stdout, result.stdout + result.stderr
    assert not target.exists()


def test_eval_refuses_an_answer_that_writes_a_file(tmp_path):
    target = tmp_path / "pwned"
    out = tmp_path / "eval"
    result = recode(tmp_path, "eval", "--env", "toy", "--games", "vase-1", "--llm", f"scripted:{script_file(tmp_path, hostile(target))}",
                    "-o", str(out), "--no-progress")
    assert result.returncode == 0, result.stderr
    assert not target.exists()
    report = json.loads((out / "report.json").read_text())
    episode = report["episodes"][0]
    assert episode["reason"].startswith("rewrite limit"), episode
    assert report["plan"]["run"]["runner"]["trusted"] is False
    journal = read_journal(Path(episode["journal"]))
    header = journal.header
    assert header.runner == "SandboxRunner" and header.run.runner.trusted is False
    answers = [r for r in journal.records if r["type"] == "answer"]
    assert answers and not any(r["accepted"] for r in answers)


async def test_the_console_refuses_an_answer_that_writes_a_file(tmp_path):
    target = tmp_path / "pwned"
    llm = ScriptedLLM([ScriptEntry(stub="*", answer=hostile(target))])
    app = build_app(console_options(GAME, breakpoints=[], sessions_dir=tmp_path / "sessions"), llm)
    async with ConsolePage.open(app) as page:
        while page.finished is None:
            await page.command("c")
        assert page.finished.reason.startswith("rewrite limit")
        assert page.agent.tree.root.llm_calls[0].reason == "forbidden: open"
    assert not target.exists()


async def test_resume_of_an_old_eval_journal_runs_sandboxed_unless_asked(tmp_path):
    target = tmp_path / "pwned"
    folder = await old_eval_journal(tmp_path, hostile(target).replace("run('look')", "run('look')\nrest = finish_up(observation)"))
    assert target.exists()  # the old, unchecked runner really wrote it while recording
    target.unlink()
    look = script_file(tmp_path, "<execute>\nrun('look')\n</execute>")
    result = recode(tmp_path, "run", "--resume", str(folder), "--llm", f"scripted:{look}", "--quiet")
    assert not target.exists(), result.stdout + result.stderr
    assert "recorded in-process without checks; it replays in the sandbox" in result.stderr
    # only the user's own --trusted drops the checks
    trusted = recode(tmp_path, "run", "--resume", str(folder), "--llm", f"scripted:{look}", "--quiet", "--trusted")
    assert target.exists(), trusted.stdout + trusted.stderr


HARMLESS = "<execute>\nrun('look')\nrest = finish_up(observation)\n</execute>"


async def test_a_console_fork_of_an_old_eval_journal_refuses_an_answer_that_writes_a_file(tmp_path):
    target = tmp_path / "pwned"
    folder = await old_eval_journal(tmp_path, HARMLESS)
    app = build_app(console_options(GAME, sessions_dir=tmp_path / "sessions", resume=folder))
    async with app.run_test(size=SIZE) as pilot:
        page, control = ConsolePage(pilot), app.session_control
        await page.replaced()  # the session `--resume` opened, at its first stop
        assert control.session is not None and not control.busy
        assert page.awaiting_answer
        await page.select("n0")
        old = page.screen
        await page.replaced("F")  # the fork's first stop shown, its replay done
        assert control.session.folder != folder and page.screen is not old and not control.busy
        assert page.awaiting_answer and page.screen.editor.node_id == "n0"
        hostile_code = f"open({str(target)!r}, 'w').write('x')\nrun('look')"
        page.screen.editor.editor.load_text(hostile_code)
        await page.press("ctrl+s")
        # The fork's sandbox check refuses it in the editor already: nothing reaches the agent.
        await page.checked()
        assert page.check is not None and "forbidden: open" in page.check.message
        fork = control.session.folder
        assert app.debug_screen.debugger.awaiting_human and app.debug_screen.agent.code_check(hostile_code) == "forbidden: open"
        assert read_journal(fork).header.runner == "SandboxRunner" and not read_journal(fork).header.run.runner.trusted
    assert not target.exists()


async def test_the_workspace_reexpansion_of_an_old_eval_journal_refuses_an_answer_that_writes_a_file(tmp_path):
    target = tmp_path / "pwned"
    folder = await old_eval_journal(tmp_path, HARMLESS)
    llm = ScriptedLLM([ScriptEntry(stub="*", answer="<execute>\nrun('look')\n</execute>")])
    app = build_app(console_options(GAME, sessions_dir=tmp_path / "sessions", resume=folder), llm)
    async with app.run_test(size=SIZE) as pilot:
        page, control = ConsolePage(pilot), app.session_control
        await page.replaced()  # the session `--resume` opened, at its first stop
        assert control.session is not None and not control.busy
        old = page.screen
        # what the workspace's "use this answer" does for a stub expanded earlier
        assert control.fork_with_answer("n0", hostile(target), "scripted", page.agent.prompts)
        await page.work_done("session")  # the fork's replay, which puts its run on show
        await page.started()  # at its first stop
        assert control.session.folder != folder and page.screen is not old and not control.busy
        await page.command("n")
        first = app.debug_screen.agent.tree.nodes["n0"].llm_calls[0]
        assert first.answer == hostile(target) and not first.accepted and first.reason == "forbidden: open"
    assert not target.exists()


def test_eval_trusted_is_asked_for_and_a_resume_without_it_runs_the_checks(tmp_path):
    target = tmp_path / "pwned"
    out = tmp_path / "eval"
    script = f"scripted:{script_file(tmp_path, hostile(target))}"
    result = recode(tmp_path, "eval", "--env", "toy", "--games", "vase-1,key-1", "-c", "1", "--llm", script, "-o", str(out),
                    "--no-progress", "--trusted", "--node-timeout", "3")
    assert result.returncode == 0, result.stderr
    assert target.exists()  # --trusted: the user asked for no checks
    report = json.loads((out / "report.json").read_text())
    assert report["plan"]["run"]["runner"]["trusted"] is True and report["plan"]["run"]["runner"]["node_timeout"] == 3.0
    header = read_journal(Path(report["episodes"][0]["journal"])).header
    assert header.run.runner.trusted is True and header.run.runner.node_timeout == 3.0
    # as if it had been interrupted after the first episode; the resume does not repeat --trusted
    target.unlink()
    report["episodes"], report["status"] = report["episodes"][:1], "interrupted"
    (out / "report.json").write_text(json.dumps(report))
    again = recode(tmp_path, "eval", "--resume", str(out), "--no-progress")
    assert again.returncode == 0, again.stderr
    assert "was started with --trusted; the remaining episodes run with the sandbox's checks" in again.stderr
    assert not target.exists()
    resumed = json.loads((out / "report.json").read_text())
    assert resumed["plan"]["run"]["runner"]["trusted"] is False
    assert read_journal(Path(resumed["episodes"][1]["journal"])).header.run.runner.trusted is False


def test_an_agent_has_no_unchecked_default_runner():
    import pytest

    with pytest.raises(TypeError):
        Engine(make_env(GAME), ScriptedLLM([]))  # type: ignore[call-arg]
    from agent.sandbox.settings import RunnerSettings

    runner = RunnerSettings().make_runner()
    agent = Engine(make_env(GAME), ScriptedLLM([]), runner)
    assert agent.code_check is not None and agent.code_check("open('f', 'w')") == "forbidden: open"


# Where a code runner may be made: the one agent builder, eval's pre-started spares (from the same settings),
# and ReCode's own example player (the prompt workspace plays an author's examples with the ReCode engine).
RUNNER_MAKERS = {"agent/agents/__init__.py", "agent/sandbox/settings.py", "agent/agents/recode/authoring.py"}


def test_every_front_end_builds_its_agent_through_the_one_builder():
    """run, the console, eval and a resume hand a `RunSpec` to `agents.build_agent`; no other module makes
    a runner for an agent, so the preset, the limits, the runner's checks and a routed role's error are
    decided in one place."""
    import ast

    root = Path(__file__).resolve().parent.parent
    makers = []
    for package in ("agent", "envs", "mockllm", "recode_tui"):
        for path in sorted((root / package).rglob("*.py")):
            where, text = path.relative_to(root).as_posix(), path.read_text(encoding="utf-8")
            if "make_runner" not in text:
                continue  # no call to it can be in the file: no need to parse it
            for node in ast.walk(ast.parse(text)):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr == "make_runner" and where not in RUNNER_MAKERS):
                    makers.append(f"{where}:{node.lineno}")
    assert makers == []
