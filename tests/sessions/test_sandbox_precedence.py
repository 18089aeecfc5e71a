"""The sandbox is the user's, never the file's: the policy travels from the edge in the run's settings.

`--sandbox` reaches every episode of an evaluation without being written into the process
environment (a later command in the same process, a notebook's next call, keeps its own), and on
resume a journal may ask for more walls than the user's, never fewer; a difference is said in one line.
Through the command line's `main` on the bundled ALFWorld game put-01 with scripted LLMs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent.sandbox.walls import missing_walls
from agent.sessions.journal_read import JOURNAL_FILE, read_journal
from recode_tui.commands.cli import main
from tests.eval.helpers import run_main
from tests.sessions.test_resume_precedence import LOOK, environment, only_session

pytestmark = [pytest.mark.heavy,  # real ALFWorld, eval's workers and the sandbox worker: not in `make quick`
              pytest.mark.skipif(bool(missing_walls()), reason="needs every kernel wall (recode-tui sandbox says why)")]

# Node code that imports `os`: the static checks refuse it; with the Python layers off (the kernel's
# walls alone) it runs. A replay behind more layers than the recording had therefore differs from it.
IMPORTS_OS = """answers:
  - stub: "*"
    answer: |
      <think>count the files</think>
      <execute>
      import os
      seen = len(os.listdir('.'))
      run('look')
      </execute>
"""
ALL = "all layers; walls: namespaces, landlock, seccomp; strict"


def test_eval_sandbox_flag_reaches_every_episode_and_never_the_next_command(tmp_path, monkeypatch, toy_env):
    for name, value in environment(tmp_path).items():
        monkeypatch.setenv(name, value)
    for name in ("RECODE_SANDBOX", "RECODE_SANDBOX_LAYERS", "RECODE_SANDBOX_WALLS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "weak"
    assert main(["eval", "--sandbox", "weak", "--env", "toy", "--games", "vase-1", "--llm", LOOK, "-o", str(out),
                 "--no-progress"]) == 0  # the toy world: the sandbox's settings are checked, not the engine
    plan = json.loads((out / "report.json").read_text())["plan"]
    assert plan["run"]["sandbox"] == "all layers; walls: namespaces, landlock, seccomp; weak"
    [journal] = list((out / "journals").iterdir())
    assert read_journal(journal).header.run.sandbox == plan["run"]["sandbox"]  # what the episode's runner had
    # the next command in this process asked for nothing: it gets the strict default, not eval's --sandbox
    assert main(["run", "--llm", "demo", "--quiet"]) == 0
    assert read_journal(only_session(tmp_path)).header.run.sandbox == ALL


def _recorded_without_layers(tmp_path: Path, recorded: str) -> tuple[dict[str, str], Path]:
    """A session whose node code imported `os` with the Python layers off, its header saying `recorded`."""
    script = tmp_path / "imports-os.yaml"
    script.write_text(IMPORTS_OS)
    env = environment(tmp_path)
    first = run_main(["run", "--llm", f"scripted:{script}", "--max-steps", "2", "--quiet"],
                     {**env, "RECODE_SANDBOX_LAYERS": "os"}, cwd=tmp_path)
    assert "FAILED" in first.stdout, first.stdout + first.stderr
    folder = only_session(tmp_path)
    journal = folder / JOURNAL_FILE
    lines = journal.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["run"]["sandbox"] == "kernel walls alone; walls: namespaces, landlock, seccomp; strict"
    header["run"]["sandbox"] = recorded
    journal.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    return env, folder


def test_a_journal_asking_for_weaker_walls_replays_behind_yours_and_says_so(tmp_path):
    env, folder = _recorded_without_layers(tmp_path, "kernel walls alone; walls: none; weak")
    resumed = run_main(["run", "--resume", folder.name, "--llm", f"scripted:{tmp_path / 'imports-os.yaml'}",
                        "--quiet"], env, cwd=tmp_path)
    # behind your checks the recorded `import os` is refused, so the replay no longer matches the recording
    assert resumed.returncode == 2 and "differs from the recording" in resumed.stderr, resumed.stderr
    [said] = [line for line in resumed.stderr.splitlines() if "sandbox" in line]
    assert said == ("note: this session recorded a weaker sandbox (kernel walls alone; walls: none; weak); it "
                    f"runs with yours ({ALL}): a record never lowers the sandbox")


def test_a_journal_may_ask_for_more_walls_than_yours_and_gets_them(tmp_path):
    env, folder = _recorded_without_layers(tmp_path, ALL)
    resumed = run_main(["run", "--resume", folder.name, "--llm", f"scripted:{tmp_path / 'imports-os.yaml'}",
                        "--quiet"], {**env, "RECODE_SANDBOX_LAYERS": "os"}, cwd=tmp_path)
    assert resumed.returncode == 2 and "differs from the recording" in resumed.stderr, resumed.stderr  # layers on
    assert f"note: this session recorded a stronger sandbox than yours; it keeps it ({ALL})" in resumed.stderr
    assert "RECODE_SANDBOX" not in os.environ


def test_a_resumed_evaluation_whose_report_asks_for_weaker_walls_runs_behind_yours(tmp_path, toy_env):
    """On the toy world (tests/toyenv): what is checked is whose sandbox holds, not the engine."""
    env = environment(tmp_path)
    out = tmp_path / "eval"
    first = run_main(["eval", "--env", "toy", "--games", "vase-1", "--llm", LOOK, "-o", str(out), "--no-progress"],
                     {**env, "RECODE_SANDBOX_LAYERS": "os"}, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    report_file = out / "report.json"
    report = json.loads(report_file.read_text())
    report["plan"]["run"]["sandbox"] = "kernel walls alone; walls: none; weak"  # a crafted report asking for less
    report_file.write_text(json.dumps(report))
    resumed = run_main(["eval", "--resume", str(out), "--repeat", "2", "--no-progress"], env, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    [said] = [line for line in resumed.stderr.splitlines() if "sandbox" in line]
    assert said == ("note: this evaluation recorded a weaker sandbox (kernel walls alone; walls: none; weak); it "
                    f"runs with yours ({ALL}): a record never lowers the sandbox")
    assert json.loads(report_file.read_text())["plan"]["run"]["sandbox"] == ALL
    had = sorted(str(read_journal(folder).header.run.sandbox) for folder in (out / "journals").iterdir())
    assert had == [ALL, "kernel walls alone; walls: namespaces, landlock, seccomp; strict"]  # the new play: yours
