"""`eval` starts its environment worker before its own imports; no worker may outlive the command.

The early worker is the pool's first one when the evaluation plays its environment, and is
closed otherwise (a bad argument, a resumed report): a leak would be a process left running
after every such command.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from .helpers import cli_env

pytestmark = pytest.mark.heavy  # starts engines in other processes: not in `make quick`


def processes_marked(mark: str) -> list[int]:
    """Live processes whose environment holds `mark` (children inherit it, orphans keep it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if mark.encode() in (entry / "environ").read_bytes():
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state != "Z":
                    found.append(int(entry.name))
        except OSError:
            continue
    return found


def eval_command(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], str]:
    mark = f"RECODE_TEST_{uuid.uuid4().hex}"
    env = dict(cli_env(tmp_path), **{mark: "1"})
    done = subprocess.run([sys.executable, "-m", "recode_tui", "eval", "--llm", "demo", "--no-progress",
                           "-o", str(tmp_path / "out"), *args], capture_output=True, text=True, timeout=300, env=env)
    return done, mark


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
@pytest.mark.parametrize("args, code", [(("--games", "2"), 0),
                                        (("--game", "no-such-game"), 2),
                                        (("--games", "0"), 2)],
                         ids=["played", "bad-game", "nothing-to-play"])
def test_no_environment_worker_outlives_eval(tmp_path, args, code):
    done, mark = eval_command(tmp_path, *args)
    assert done.returncode == code, done.stdout + done.stderr
    if code:
        assert len(done.stderr.strip().splitlines()) == 1  # still one line that says what to do
    assert processes_marked(mark) == []
