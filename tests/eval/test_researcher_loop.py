"""The researcher's loop end to end, on bundled games, with a model behind the local OpenAI-compatible server.

eval with a bugged model -> the report names the failing stub and the command to open it -> open it ->
fork the faulty expansion and answer it, the model going on after it -> the process dies (SIGKILL) and the
fork resumes to a win -> export the corrected SFT pair -> a fixed eval -> compare lists the flipped episode.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mockllm.openai_server import OpenAICompatibleServer, script_responder, write_profiles
from recode_tui.commands import cli
from tests.console.page import ConsolePage

from .bugged import CLEAN_STUB, bugged_script, fixed_clean_answer
from .helpers import HeldCalls, cli_env, read_report, recode

pytestmark = pytest.mark.heavy  # starts engines in other processes: not in `make quick`

GAMES = "clean-01,put-01"


async def test_eval_open_fork_resume_export_compare(tmp_path: Path) -> None:
    model = HeldCalls(free=lambda prompt: True, respond=script_responder(str(bugged_script(tmp_path))))
    server = OpenAICompatibleServer(model).start()
    try:
        profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, max_retries=0, timeout=20)

        # 1. the eval names the node that went wrong and where the run ended, and how to open it (one episode
        # at a time: its one ALFWorld worker is the one eval starts first)
        before = tmp_path / "before"
        result = recode(tmp_path, "eval", "--llm", "profile:local", "--profiles", str(profiles), "--games", GAMES,
                        "-c", "1", "--out", str(before), "--no-progress")
        assert result.returncode == 0, result.stderr
        assert re.search(r"clean_at_sink \(clean\)\s+locate_object\s+1/1 failures; no `clean` action sent",
                         result.stdout), result.stdout
        opener = re.search(r"clean-01: recode-tui (tui --resume \S+ --at n\d+ --profiles \S+)", result.stdout)
        assert opener, result.stdout

        # 2. open it as printed (no --llm: the recorded model goes on, from the --profiles printed), fork the
        # clean step, type the fix
        server.latency = 0.2  # the model's answers after the person's take a while: the console is gone before
        args = cli.build_parser().parse_args([*opener.group(1).split(), "--sessions", str(tmp_path / "sessions"),
                                              "--no-break"])
        args.llm_given = False
        app = cli.console_app(args)
        async with app.run_test(size=(160, 48)) as pilot:
            page = ConsolePage(pilot)
            control = app.session_control
            await page.replaced()  # the eval's episode, opened: its replay replaces the start-up's screen
            clean = next(n for n in page.screen.agent.tree.nodes.values() if n.code == CLEAN_STUB)
            await page.select(clean.id)
            opened = control.session.folder
            await page.replaced("F")
            assert control.session.folder != opened  # a new branch session
            editor = page.screen.editor
            assert editor.node_id == clean.id and not editor.editor.read_only  # the editor on the clean step
            assert "cleaned = True" in editor.editor.text  # the model's faulty answer, to fix
            editor.editor.load_text(fixed_clean_answer())  # the person pastes the fix
            await page.command("ctrl+s")
            assert page.screen.agent.host.llm.name != "human"  # the model goes on after the person's answer
            fork = control.session.folder
        # The console is gone before the model finished the fork.

        # 3. a resume of the fork is killed mid-run, and the next resume wins
        env = cli_env(tmp_path)
        journal = fork / "journal.jsonl"
        recorded = len(journal.read_text().splitlines())
        model.free = lambda prompt: False  # the model holds its next answer: the kill lands while it is answering
        killed = subprocess.Popen([sys.executable, "-m", "recode_tui", "run", "--resume", str(fork), "--profiles",
                                   str(profiles)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        try:
            model.next_call()  # the resumed run has replayed what was recorded and asks the model
            killed.send_signal(signal.SIGKILL)
            assert killed.wait(timeout=10) == -signal.SIGKILL  # it was still running
        finally:
            model.free = lambda prompt: True
            model.release.set()
        assert len(journal.read_text().splitlines()) > recorded  # it had journaled something new
        server.latency = 0.0
        finished = recode(tmp_path, "run", "--resume", str(fork), "--profiles", str(profiles))  # in this process
        assert finished.returncode == 0, finished.stderr
        assert "SUCCESS: won" in finished.stdout, finished.stdout + finished.stderr

        # 4. the corrected pair, for training
        exported = recode(tmp_path, "export", str(fork), "--sft", "--corrected-only")
        assert exported.returncode == 0, exported.stderr
        pairs = [json.loads(line) for line in exported.stdout.splitlines() if line.strip()]
        assert len(pairs) == 1
        assert pairs[0]["meta"]["author"] == "person" and pairs[0]["meta"]["outcome"]["won"]
        user = next(m["content"] for m in pairs[0]["messages"] if m["role"] == "user")
        assert CLEAN_STUB in user
    finally:
        server.stop()

    # 5. the fixed model's eval, 6. compare
    after = tmp_path / "after"
    result = recode(tmp_path, "eval", "--llm", "demo", "--games", GAMES, "-c", "1", "--out", str(after),
                    "--no-progress")
    assert result.returncode == 0, result.stderr
    assert all(e["success"] for e in read_report(after)["episodes"])
    compared = recode(tmp_path, "compare", str(before), str(after))
    assert compared.returncode == 0, compared.stderr
    assert re.search(r"lost → won[\s\S]*clean-01", compared.stdout), compared.stdout
