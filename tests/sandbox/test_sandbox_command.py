"""The command line's side of the walls: `recode-tui sandbox`, the refusal where a wall is missing, `--sandbox weak`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.sandbox.probe import ATTEMPTS

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel walls are Linux's")


def _cli(*args: str, path: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, **env)
    if path is not None:
        environment["PATH"] = path
    return subprocess.run([sys.executable, "-m", "recode_tui", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=180, env=environment)


def test_sandbox_prints_each_wall_shown_by_real_attempts():
    done = _cli("sandbox")
    assert done.returncode == 0, done.stderr
    table = done.stdout.split("\nwalls ", 1)[1].split("\nmemory budget: ")[0]
    rows = {line.split()[0]: line.split()[1:] for line in table.splitlines()[1:] if line.strip()}
    assert rows["all"][:2] == ["walls", "yes"] and set(rows["all"][2:]) == {"held"}, done.stdout
    assert rows["seccomp"][0] == "yes" and "ESCAPED" in rows["seccomp"]  # reading files is not seccomp's job
    exec_column = 1 + ATTEMPTS.index("exec")
    # the namespaces hold the worker's interpreter, which it can exec in its own place; Landlock grants no exec
    assert rows["namespaces"][exec_column] == "ESCAPED" and rows["landlock"][exec_column] == "held", done.stdout
    assert max(map(len, done.stdout.splitlines())) <= 80
    budget = done.stdout.split("\nmemory budget: ", 1)[1]  # which budget keeps the worker's memory here, and why
    first = budget.splitlines()[0]
    assert first.startswith("a cgroup v2 memory.max") or first.endswith("memfd, SysV shm, mqueues refused"), budget


def test_without_bubblewrap_model_code_is_refused_in_one_line_unless_weak(tmp_path, toy_game):
    """On the toy world (a third of ALFWorld's CPU): the sandbox's worker still runs the model's code."""
    empty = tmp_path / "bin"
    empty.mkdir()  # a PATH without bwrap: the namespaces cannot be raised
    done = _cli("run", "--game", toy_game, "--llm", "gold", "--sessions", str(tmp_path / "s"), path=str(empty))
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "namespaces" in lines[0] and "bubblewrap" in lines[0] and "--sandbox weak" in lines[0]
    weak = _cli("run", "--game", toy_game, "--llm", "gold", "--sandbox", "weak", "--sessions", str(tmp_path / "s"),
                path=str(empty))
    assert weak.returncode == 0, weak.stderr
    assert "without these kernel walls: namespaces" in weak.stderr
    assert "won" in weak.stdout.lower()


def test_a_bad_sandbox_setting_is_one_line():
    done = _cli("run", "--game", "put-01", "--llm", "demo", RECODE_SANDBOX_LAYERS="none")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "RECODE_SANDBOX_LAYERS" in done.stderr
