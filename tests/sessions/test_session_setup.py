"""A session remembers its model set-up; `--resume` finds the latest work; a broken replay has a way on.

Real parts: the real `openai` client against the local OpenAI-compatible server
on 127.0.0.1, the real ALFWorld games, the command line as a process, real journals.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from agent.runtime import events as ev
from agent.sessions.journal import write_draft
from agent.sessions.journal_read import read_journal
from agent.sessions.model_record import profiles_in_use
from agent.sessions.session import start_session
from mockllm.openai_server import OpenAICompatibleServer, write_profiles
from recode_tui.setup.build import make_agent, make_llm
from recode_tui.setup.sessions import find_resume
from tests.settings import episode_named, run_settings
from envs.registry import EpisodeRef
from tests.eval.helpers import run_main

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


ROOT = Path(__file__).resolve().parents[2]

# put-01: "put a vase in sidetable."; the vase is on diningtable 1.
GOOD = (
    "<think>The vase is on the dining table.</think>\n<execute>\n"
    'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\n'
    'run("go to sidetable 1")\nrun("put vase 1 in/on sidetable 1")\n</execute>\n'
)
WANDER = '<think>Look around first.</think>\n<execute>\nrun("go to garbagecan 1")\nfind_vase()\n</execute>\n'


def answers(*texts: str):
    queue = list(texts)
    return lambda prompt: queue.pop(0) if len(queue) > 1 else queue[0]


def recode(tmp_path: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The command line as a user runs it, from a folder with no profiles file of its own."""
    env = dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions"), OPENAI_API_KEY="",
               PYTHONPATH=str(ROOT), XDG_CONFIG_HOME=str(tmp_path / "config"))
    return run_main(list(args), env, cwd=tmp_path)


async def profile_session(tmp_path: Path, server: OpenAICompatibleServer, path: Path | None = None) -> Path:
    """A run under `profile:local` that stops after its first action, as a killed run would."""
    profiles = str(write_profiles(path or tmp_path / "profiles.yaml", server.base_url, max_retries=0, timeout=10))
    agent = make_agent(run_settings(max_steps=80), episode_named("put-01"), make_llm("profile:local", profiles))
    session = start_session(agent, tmp_path / "sessions", EpisodeRef.parse("put-01"), "profile:local",
                            profiles=profiles_in_use("profile:local", profiles))
    while not isinstance(await agent.step(), ev.ObservationReceived):
        pass
    session.writer.close()
    await agent.close()
    return session.folder


async def test_run_resume_without_llm_goes_on_with_the_recorded_profile_from_the_users_own_file(tmp_path: Path) -> None:
    with OpenAICompatibleServer(answers(WANDER, GOOD)) as server:
        own = tmp_path / "config" / "recode-tui" / "profiles.yaml"  # the default file (XDG_CONFIG_HOME)
        own.parent.mkdir(parents=True)
        folder = await profile_session(tmp_path, server, own)
        assert read_journal(folder).header.run.model.profiles == str(own.resolve())
        done = recode(tmp_path, "run", "--resume", folder.name, "--quiet")
        assert done.returncode == 0, done.stderr + done.stdout
        assert f"resuming with the session's LLM profile:local from your profiles file {own.resolve()}" in done.stderr
        assert "never read" not in done.stderr  # the journal names the user's own file
        assert len(server.calls) == 2  # the second expansion came from the model, not a script or a person
    sources = [r["source"] for r in read_journal(folder).records if r["type"] == "answer"]
    assert sources == ["model", "model"]


async def test_an_explicit_llm_on_resume_overrides_and_says_so_and_is_journaled(tmp_path: Path) -> None:
    with OpenAICompatibleServer(answers(WANDER, GOOD)) as server:
        folder = await profile_session(tmp_path, server)
        done = recode(tmp_path, "run", "--resume", folder.name, "--quiet", "--llm", "demo")
    assert "--llm demo given: it answers instead of the session's profile:local" in done.stderr
    switches = [r for r in read_journal(folder).records if r["type"] == "llm"]
    assert switches and switches[-1]["spec"] == "demo"
    assert read_journal(folder).llm_setup[0] == "demo"


def test_eval_resume_reads_the_users_profiles_and_says_the_concurrency(tmp_path: Path, toy_env) -> None:
    """On the toy world (tests/toyenv): what is checked is where the settings come from, not the engine."""
    with OpenAICompatibleServer(answers(GOOD)) as server:
        profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, max_retries=0, timeout=10)
        out = tmp_path / "eval"
        first = recode(tmp_path, "eval", "--env", "toy", "--games", "vase-1,key-1", "--llm", "profile:local",
                       "--profiles", str(profiles), "-o", str(out), "--no-progress", "-c", "2")
        assert first.returncode == 0, first.stderr
        report = json.loads((out / "report.json").read_text())
        assert report["plan"]["run"]["model"]["profiles"] == str(profiles.resolve())
        assert report["concurrency_used"] == [2]
        journal = Path(report["episodes"][0]["journal"])
        assert read_journal(journal).header.run.model.profiles == str(profiles.resolve())
        report["episodes"] = report["episodes"][:1]  # as if interrupted after one episode
        report["status"] = "interrupted"
        (out / "report.json").write_text(json.dumps(report))
        calls = len(server.calls)
        again = recode(tmp_path, "eval", "--resume", str(out), "--no-progress", "-c", "3", "--profiles", str(profiles))
        assert again.returncode == 0, again.stderr + again.stdout
        assert len(server.calls) > calls  # the model played the remaining episode
    assert "1 at a time (earlier runs: 2 at a time)" in again.stdout
    assert "concurrency used: 1 episodes at a time" in again.stdout
    final = json.loads((out / "report.json").read_text())
    assert len(final["episodes"]) == 2 and final["concurrency_used"] == [2, 1]


def test_resume_without_an_id_picks_the_console_session_with_a_later_draft(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    console = recode(tmp_path, "run", "--llm", "demo", "--quiet")  # stands for the console session
    headless = recode(tmp_path, "run", "--llm", "demo", "--quiet", "--game", "put-02")
    assert console.returncode in (0, 1) and headless.returncode in (0, 1)
    [first] = [p for p in sessions.iterdir() if "put-01" in p.name]
    [later] = [p for p in sessions.iterdir() if "put-02" in p.name]
    past = time.time() - 60
    os.utime(first / "journal.jsonl", (past, past))  # the console started earlier than the headless run
    assert find_resume(str(sessions), "") == later
    assert write_draft(first, "n1", 'run("look")') == ""  # then its person typed (the console saves drafts)
    assert find_resume(str(sessions), "") == first


def test_sessions_list_shows_last_activity_and_can_show_unfinished_only(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    recode(tmp_path, "run", "--llm", "demo", "--quiet")
    agent = make_agent(run_settings(max_steps=80), episode_named("put-02"), make_llm("demo"))
    open_one = start_session(agent, sessions, EpisodeRef.parse("put-02"), "demo")
    open_one.writer.close()
    listed = recode(tmp_path, "sessions", "list")
    assert listed.returncode == 0
    header, *lines = listed.stdout.splitlines()
    assert header.split()[:5] == ["SESSION", "GAME", "AGENT", "RESULT", "LAST"]  # a header row names the columns
    assert len(lines) == 2 and time.strftime("%Y-%m-%d") in lines[0]
    assert header.index("RESULT") == lines[0].index(lines[0].split()[3])  # the header stands over its column
    assert any("won" in line or "failed" in line for line in lines)
    header, *unfinished = recode(tmp_path, "sessions", "list", "--unfinished").stdout.splitlines()
    assert len(unfinished) == 1 and open_one.folder.name in unfinished[0] and "unfinished" in unfinished[0]


def corrupt(folder: Path, line: int) -> None:
    lines = (folder / "journal.jsonl").read_text().splitlines(keepends=True)
    lines[line - 1] = lines[line - 1][: len(lines[line - 1]) // 2] + "\n"
    (folder / "journal.jsonl").write_text("".join(lines))


def test_a_corrupt_line_names_the_flag_and_the_flag_goes_on_from_the_last_good_point(tmp_path: Path) -> None:
    won = recode(tmp_path, "run", "--llm", "demo", "--quiet")
    assert won.returncode == 0, won.stderr
    [folder] = list((tmp_path / "sessions").iterdir())
    records = len(read_journal(folder).records)
    corrupt(folder, 4)
    failed = recode(tmp_path, "run", "--resume", folder.name, "--quiet")
    assert failed.returncode != 0
    assert "corrupt at line 4" in failed.stderr and f"--resume {folder.name} --from-last-good" in failed.stderr
    again = recode(tmp_path, "run", "--resume", folder.name, "--from-last-good", "--quiet")
    assert again.returncode == 0, again.stderr + again.stdout  # the demo script plays the rest and wins
    branch = next(p for p in (tmp_path / "sessions").iterdir() if p.name.endswith("~last-good"))
    journal = read_journal(branch)
    assert journal.header.parent.at == "last good point" and journal.header.parent.records == 2
    assert journal.finished["success"] is True and len(journal.records) >= records - 1
