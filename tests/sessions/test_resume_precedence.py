"""On resume, what protects the machine is the user's, never the journal's; what the run was continues.

Through the command line's `main` (in this process, as `recode-tui` runs it) on the bundled
ALFWorld game put-01 with a scripted LLM: a crafted journal cannot raise the node time limit or
drop the sandbox's checks; a session started on a named profile from a profiles file resumes on it
or says in one line what to pass; a workspace fork's edited prompt set is found again by its hash.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.sessions.journal_read import JOURNAL_FILE, read_journal
from tests.eval.helpers import run_main
from tests.toyenv import SCRIPTS

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


ROOT = Path(__file__).resolve().parents[2]
SPIN = """answers:
  - stub: "*"
    answer: |
      <think>spin</think>
      <execute>
      n = 0
      while True:
          n += 1
      </execute>
"""
LOOK = f"scripted:{SCRIPTS / 'look.jsonl'}"  # the toy world's answer that only looks


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    return dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions"), PYTHONPATH=str(ROOT),
                XDG_CONFIG_HOME=str(tmp_path / "config"), RECODE_TUI_PROMPTS=str(tmp_path / "prompts"), **extra)


def only_session(tmp_path: Path) -> Path:
    (folder,) = (tmp_path / "sessions").iterdir()
    return folder


def test_a_journal_can_lower_the_node_time_limit_but_never_raise_it_or_drop_the_checks(tmp_path):
    script = tmp_path / "spin.yaml"
    script.write_text(SPIN)
    env = environment(tmp_path)
    # the user's limit is short: each node spins until it, and what is checked is whose limit holds, not its length
    first = run_main(["run", "--llm", f"scripted:{script}", "--node-timeout", "0.3", "--quiet"], env, cwd=tmp_path)
    assert "FAILED" in first.stdout, first.stdout + first.stderr  # each node spun until its 0.3 s limit
    folder = only_session(tmp_path)
    journal = folder / JOURNAL_FILE
    lines = journal.read_text().splitlines()
    header = json.loads(lines[0])
    header["run"]["runner"].update(node_timeout=1e9, trusted=True)  # a journal asking for more
    header["runner"] = "ThreadRunner"
    journal.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    # a process of its own, so that the old behaviour (a node spinning for 1e9 s) ends with the test
    resumed = subprocess.run([sys.executable, "-m", "recode_tui", "run", "--resume", folder.name,
                              "--node-timeout", "0.3", "--llm", f"scripted:{script}", "--quiet"],
                             env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "FAILED" in resumed.stdout, resumed.stdout + resumed.stderr  # replayed to its end, each node stopped at 0.3 s
    assert "recorded a node time limit of 1e+09 s; it replays with yours, 0.3 s" in resumed.stderr
    assert "it replays in the sandbox with the checks" in resumed.stderr


def test_a_profile_session_resumes_on_its_model_or_says_in_one_line_which_profiles_file_to_pass(tmp_path):
    from mockllm.openai_server import OpenAICompatibleServer, write_profiles
    from tests.sessions.test_journal_profiles import GOOD, WANDER, answers

    env = environment(tmp_path, OPENAI_API_KEY="")
    with OpenAICompatibleServer(answers(WANDER, GOOD)) as server:
        (tmp_path / "mine").mkdir()
        profiles = write_profiles(tmp_path / "mine" / "profiles.yaml", server.base_url, max_retries=0, timeout=5)
        first = run_main(["run", "--llm", "profile:local", "--profiles", str(profiles), "--max-steps", "1",
                          "--quiet"], env, cwd=tmp_path)
        assert "FAILED" in first.stdout, first.stdout + first.stderr  # out of steps after the first action
        folder = only_session(tmp_path)
        refused = run_main(["run", "--resume", folder.name, "--quiet"], env, cwd=tmp_path)
        assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
        assert f"`recode-tui run --resume {folder.name} --profiles {profiles.resolve()}`" in refused.stderr
        calls = len(server.calls)
        again = run_main(["run", "--resume", folder.name, "--profiles", str(profiles), "--quiet"], env, cwd=tmp_path)
        assert again.returncode == 1 and len(server.calls) == calls  # a finished run replays; nothing is asked
    assert not [r for r in read_journal(folder).records if r["type"] == "llm"]  # no switch, no claimed --llm


def test_eval_resume_keeps_the_users_node_time_limit_when_the_report_asks_for_more(tmp_path, toy_env):
    """On the toy world (tests/toyenv): what is checked is the resume's settings, not the engine."""
    env = environment(tmp_path)
    out = tmp_path / "eval"
    first = run_main(["eval", "--env", "toy", "--games", "vase-1,key-1", "--llm", LOOK, "-o", str(out),
                      "--no-progress", "-c", "1"], env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    report = json.loads((out / "report.json").read_text())
    report["plan"]["run"]["runner"]["node_timeout"] = 1e9  # a report asking for more
    report["episodes"], report["status"] = report["episodes"][:1], "interrupted"
    (out / "report.json").write_text(json.dumps(report))
    again = run_main(["eval", "--resume", str(out), "--no-progress"], env, cwd=tmp_path)  # no --node-timeout
    assert again.returncode == 0, again.stderr
    assert "node time limit of 1e+09 s; the remaining episodes run with yours, 5 s" in again.stderr
    assert json.loads((out / "report.json").read_text())["plan"]["run"]["runner"]["node_timeout"] == 5


def test_a_fallback_the_console_journaled_is_not_kept_by_a_later_resume(tmp_path):
    """A branch whose recorded LLM could not be built went on with the console's own (journaled as a
    fallback): the next resume goes on with the session's own LLM again, not the fallback."""
    env = environment(tmp_path)
    first = run_main(["run", "--llm", "demo", "--max-steps", "1", "--quiet"], env, cwd=tmp_path)
    assert "FAILED" in first.stdout, first.stdout + first.stderr
    journal = only_session(tmp_path) / JOURNAL_FILE
    lines = journal.read_text().splitlines()
    fallback = {"type": "llm", "spec": "human", "profiles": None, "at": 1.0,
                "why": "fallback: the session's LLM demo cannot be used (a test says so)"}
    journal.write_text("\n".join([lines[0], json.dumps(fallback), *lines[1:]]) + "\n")
    resumed = run_main(["run", "--resume", "--quiet"], env, cwd=tmp_path)
    assert "resuming with the session's LLM demo" in resumed.stderr, resumed.stderr


def test_the_header_records_where_a_profile_went_and_its_key_variable_never_the_key(tmp_path):
    from mockllm.openai_server import OpenAICompatibleServer
    from tests.sessions.test_journal_profiles import GOOD, answers

    secret = "sk-the-users-own-secret"
    with OpenAICompatibleServer(answers(GOOD)) as server:
        profiles = tmp_path / "profiles.yaml"
        profiles.write_text(f"models:\n  mine:\n    base_url: {server.base_url}\n    model: local-test-model\n"
                            "    api_key_env: MY_MODEL_KEY\n    max_retries: 0\n    timeout: 5\n")
        done = run_main(["run", "--llm", "profile:mine", "--profiles", str(profiles), "--quiet"],
                        environment(tmp_path, MY_MODEL_KEY=secret), cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
    folder = only_session(tmp_path)
    header = read_journal(folder).header
    assert (header.run.model.model, header.run.model.base_url, header.run.model.key_env) == ("local-test-model", server.base_url, "MY_MODEL_KEY")
    assert secret not in (folder / JOURNAL_FILE).read_text()


def test_diff_names_every_setting_that_differs_between_two_runs_from_their_headers(tmp_path):
    env = environment(tmp_path)
    assert run_main(["run", "--llm", "demo", "--quiet"], env, cwd=tmp_path).returncode == 0
    assert run_main(["run", "--llm", "demo", "--max-depth", "7", "--node-timeout", "3", "--quiet"], env,
                    cwd=tmp_path).returncode == 0
    a, b = sorted((tmp_path / "sessions").iterdir(), key=lambda folder: read_journal(folder).header.created)
    shown = run_main(["diff", a.name, b.name], env, cwd=tmp_path)
    [line] = [line for line in shown.stdout.splitlines() if line.startswith("settings differ: ")]
    assert "limits.max_depth 10 → 7" in line and "runner.node_timeout 5.0 → 3.0" in line, line
    document = json.loads(run_main(["diff", a.name, b.name, "--json"], env, cwd=tmp_path).stdout)
    assert [d["setting"] for d in document["settings_differ"]] == ["limits.max_depth", "runner.node_timeout"]
    assert document["settings_differ"][0]["b"] == 7
