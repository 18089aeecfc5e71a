"""Which sandbox a run's node code had (its layers, the walls raised, strict or weak) is recorded in the
journal header and the eval report's plan, and `diff`/`compare` name it when two runs differ there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.sessions.journal_read import read_journal
from tests.eval.helpers import run_main
from tests.sessions.test_resume_precedence import LOOK, environment

pytestmark = pytest.mark.heavy  # the sandbox worker


def test_diff_names_the_sandbox_two_runs_had(tmp_path: Path) -> None:
    env = environment(tmp_path)
    assert run_main(["run", "--llm", "demo", "--quiet"], env, cwd=tmp_path).returncode == 0
    bare = run_main(["run", "--llm", "demo", "--quiet"], {**env, "RECODE_SANDBOX_LAYERS": "os"}, cwd=tmp_path)
    assert bare.returncode == 0, bare.stderr
    a, b = sorted((tmp_path / "sessions").iterdir(), key=lambda folder: read_journal(folder).header.created)
    assert (read_journal(a).header.run.sandbox or "").startswith("all layers; walls: ")
    assert (read_journal(b).header.run.sandbox or "").startswith("kernel walls alone; walls: ")
    shown = run_main(["diff", a.name, b.name], env, cwd=tmp_path)
    [line] = [line for line in shown.stdout.splitlines() if line.startswith("settings differ: ")]
    assert "sandbox 'all layers; walls: " in line and "→ 'kernel walls alone; walls: " in line, line


def test_compare_names_the_sandbox_two_evaluations_had(tmp_path: Path, toy_env) -> None:
    """On the toy world (tests/toyenv): what is checked is the record of the sandbox, not the engine."""
    env = environment(tmp_path)
    for out, layers in (("full", "all"), ("bare", "os")):
        done = run_main(["eval", "--env", "toy", "--games", "vase-1", "--llm", LOOK, "-o", str(tmp_path / out),
                         "--no-progress"],
                        {**env, "RECODE_SANDBOX_LAYERS": layers}, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    plan = json.loads((tmp_path / "bare" / "report.json").read_text())["plan"]
    assert plan["run"]["sandbox"].startswith("kernel walls alone; walls: ")
    shown = run_main(["compare", str(tmp_path / "full"), str(tmp_path / "bare")], env, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    [line] = [line for line in shown.stdout.splitlines() if line.startswith("  sandbox: ")]
    assert line.startswith("  sandbox: all layers; walls: ") and "→ kernel walls alone; walls: " in line, line
