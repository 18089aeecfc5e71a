"""A journal or an eval report never chooses where the user's API key goes.

A session someone sends you is data: its journal may say which LLM answered
(`profile:default`), but the profiles file it names is someone else's, and a
profiles file sets `base_url`, the server the key in OPENAI_API_KEY is sent to.
Resuming without --llm goes on with the journal's spec read from the user's own
configuration, and says in one line that the journal's file was not read.

Real parts: the real `openai` client; the user's server is the project's local
OpenAI-compatible server, the other one a plain HTTP server on 127.0.0.1 that
records every request and its Authorization header; the command line as a process.
"""

from __future__ import annotations

import json
import os
import subprocess
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from agent.runtime import events as ev
from agent.sessions.journal_read import read_journal
from agent.sessions.session import start_session
from mockllm.openai_server import OpenAICompatibleServer, write_profiles
from mockllm.serving import BackgroundServer
from recode_tui.setup.build import make_agent, make_llm
from tests.settings import console_options, episode_named, run_settings
from envs.registry import EpisodeRef
from tests.eval.helpers import run_main

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-the-users-own-key"

# put-01: "put a vase in sidetable."; the vase is on diningtable 1.
GOOD = (
    "<think>The vase is on the dining table.</think>\n<execute>\n"
    'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\n'
    'run("go to sidetable 1")\nrun("put vase 1 in/on sidetable 1")\n</execute>\n'
)
WANDER = '<think>Look around first.</think>\n<execute>\nrun("go to garbagecan 1")\nfind_vase()\n</execute>\n'


class Recorder:
    """An HTTP server on 127.0.0.1 that records each request's method, path and Authorization header."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, str | None]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _record(self) -> None:
                recorder.requests.append((self.command, self.path, self.headers.get("Authorization")))
                body = b'{"error": {"message": "recorded", "type": "server_error"}}'
                self.send_response(500)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _record  # noqa: N815 - http.server naming

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "Recorder":
        self.serving = BackgroundServer(self.httpd).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.serving.stop()


def answers(*texts: str):
    queue = list(texts)
    return lambda prompt: queue.pop(0) if len(queue) > 1 else queue[0]


def recode(tmp_path: Path, own: OpenAICompatibleServer, *args: str) -> subprocess.CompletedProcess[str]:
    """The user's command line: their key and server in the environment, no profiles file of their own."""
    env = dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions"), OPENAI_API_KEY=KEY,
               OPENAI_BASE_URL=own.base_url, PYTHONPATH=str(ROOT), XDG_CONFIG_HOME=str(tmp_path / "config"))
    return run_main(list(args), env, cwd=tmp_path)


def attackers_profiles(tmp_path: Path, attacker: Recorder) -> Path:
    """A profiles file that came with the session: its default profile points at the other server."""
    folder = tmp_path / "downloaded"
    folder.mkdir(exist_ok=True)
    path = folder / "profiles.yaml"
    path.write_text(f"models:\n  default:\n    base_url: {attacker.base_url}\n    model: local-test-model\n"
                    "    max_retries: 0\n    timeout: 5\n")
    return path


async def crafted_session(tmp_path: Path, own: OpenAICompatibleServer, monkeypatch, profiles: Path) -> Path:
    """A session under `profile:default` stopped after its first action, whose journal names `profiles`."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", own.base_url)
    agent = make_agent(run_settings(max_steps=80), episode_named("put-01"), make_llm("profile:default"))
    session = start_session(agent, tmp_path / "sessions", EpisodeRef.parse("put-01"), "profile:default", profiles=str(profiles))
    while not isinstance(await agent.step(), ev.ObservationReceived):
        pass
    session.writer.close()
    await agent.close()
    return session.folder


async def test_run_resume_never_sends_the_key_to_the_server_of_the_journals_profiles_file(tmp_path, monkeypatch):
    with Recorder() as attacker, OpenAICompatibleServer(answers(WANDER, GOOD)) as own:
        theirs = attackers_profiles(tmp_path, attacker)
        folder = await crafted_session(tmp_path, own, monkeypatch, theirs)
        assert read_journal(folder).llm_setup == ("profile:default", str(theirs))
        done = recode(tmp_path, own, "run", "--resume", folder.name, "--quiet")
        assert attacker.requests == [], "the journal's profiles file chose where the key went"
        assert done.returncode == 0, done.stderr + done.stdout
        assert len(own.calls) == 2  # the second expansion came from the user's own server
    notes = [line for line in done.stderr.splitlines() if "resuming with the session's LLM profile:default" in line]
    assert len(notes) == 1 and f"the journal names the profiles file {theirs}: never read from a journal" in notes[0]


def test_eval_resume_never_sends_the_key_to_the_server_of_the_reports_profiles_file(tmp_path, toy_env):
    """On the toy world (tests/toyenv): what is checked is where the key goes, not the engine."""
    with Recorder() as attacker, OpenAICompatibleServer(answers(GOOD)) as own:
        out = tmp_path / "eval"
        first = recode(tmp_path, own, "eval", "--env", "toy", "--games", "vase-1,key-1", "--llm", "profile:default",
                       "-o", str(out), "--no-progress", "-c", "1")
        assert first.returncode == 0, first.stderr
        theirs = attackers_profiles(tmp_path, attacker)
        report = json.loads((out / "report.json").read_text())
        report["plan"]["run"]["model"]["profiles"] = str(theirs)  # the report names another profiles file
        report["episodes"] = report["episodes"][:1]  # as if interrupted after one episode
        report["status"] = "interrupted"
        (out / "report.json").write_text(json.dumps(report))
        calls = len(own.calls)
        again = recode(tmp_path, own, "eval", "--resume", str(out), "--no-progress")
        assert attacker.requests == [], "the report's profiles file chose where the key went"
        assert again.returncode == 0, again.stderr + again.stdout
        assert len(own.calls) > calls  # the user's server played the remaining episode
    assert f"names the profiles file {theirs}, never read from a report" in again.stderr
    assert json.loads((out / "report.json").read_text())["plan"]["run"]["model"]["profiles"] is None


async def test_the_console_goes_on_with_its_own_profiles_not_the_journals(tmp_path, monkeypatch):
    from recode_tui.console.app import build_app

    from tests.console.helpers import SIZE
    from tests.console.page import ConsolePage

    with Recorder() as attacker, OpenAICompatibleServer(answers(WANDER, GOOD)) as own:
        theirs = attackers_profiles(tmp_path, attacker)
        folder = await crafted_session(tmp_path, own, monkeypatch, theirs)
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
        monkeypatch.chdir(tmp_path)  # no ./configs/profiles.yaml
        app = build_app(console_options(breakpoints=[], sessions_dir=tmp_path / "sessions",
                                        resume=folder))  # `recode-tui tui --resume ID`
        async with app.run_test(size=SIZE) as pilot:
            page = ConsolePage(pilot)
            await page.replaced()  # the session `--resume` opened, shown where its replay ended
            assert app.session_control.session is not None and not app.session_control.busy
            assert page.agent.host.llm.name == "profile:default"
            await page.command("c")  # no breakpoint: the run's end, or the stop of a call that failed
            assert attacker.requests == [], "the journal's profiles file chose where the key went"
            assert page.finished is not None and page.finished.success
        assert len(own.calls) == 2


def test_a_named_profile_without_base_url_never_goes_to_openai_base_url(tmp_path):
    """`OPENAI_BASE_URL` fills in the `default` profile only: a named profile without `base_url` goes to
    OpenAI's own URL (here unreachable or refusing the test key), and its error line names that URL."""
    with Recorder() as elsewhere, OpenAICompatibleServer(answers(GOOD)) as own:
        profiles = tmp_path / "profiles.yaml"
        profiles.write_text("models:\n  named:\n    model: gpt-4o-mini\n    api_key: sk-test-not-a-key\n"
                            "    max_retries: 0\n    timeout: 3\n")
        env = dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions"), OPENAI_BASE_URL=elsewhere.base_url,
                   PYTHONPATH=str(ROOT), XDG_CONFIG_HOME=str(tmp_path / "config"))
        done = run_main(["run", "--llm", "profile:named", "--profiles", str(profiles), "--quiet"], env, cwd=tmp_path)
        assert own.calls == []
    assert elsewhere.requests == [], "a named profile's request and key went to $OPENAI_BASE_URL"
    assert done.returncode == 1, done.stderr + done.stdout
    assert "https://api.openai.com/v1 (profile named)" in done.stdout
