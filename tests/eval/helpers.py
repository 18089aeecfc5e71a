"""Shared by the eval tests: scripts that win chosen games, the CLI as a process, a local model."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from envs.alfworld.catalog import list_games
from mockllm.openai_server import write_profiles

SOLVE = "solve(instruction, observation)"
LOSE = '<think>just look</think><execute>\nrun("look")\n</execute>'


def instruction_when(task: str) -> str:
    """A `when` pattern matching the prompt whose current instruction is `task` (not a few-shot example)."""
    return r"- instruction \(str\): " + re.escape(task) + r"\n(?![\s\S]*- instruction \(str\))"


def walkthrough_answer(path: Path) -> str:
    steps = json.loads(Path(path).read_text())["walkthrough"]
    return "<think>follow the plan</think><execute>\nfor action in " + json.dumps(steps) + ":\n    run(action)\n</execute>"


def chosen_script(tmp_path: Path, winners: set[str], crash: set[str] = frozenset()) -> tuple[Path, dict[str, int]]:
    """A script that wins exactly `winners` among the bundled games, and the expected wins per task type.

    Games whose task sentence is shared with another game get the losing answer for both.
    """
    games = list_games()
    tasks = [g.task for g in games]
    entries, expected = [], {}
    for game in games:
        expected.setdefault(game.task_type, 0)
        if tasks.count(game.task) > 1:
            answer = LOSE
        elif game.id in crash:
            answer = '<execute>\nrun("crash now")\n</execute>'
        elif game.id in winners:
            answer = walkthrough_answer(game.path)
            expected[game.task_type] += 1
        else:
            answer = LOSE
        entries.append({"stub": SOLVE, "when": instruction_when(game.task), "answer": answer})
    path = tmp_path / "chosen.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    return path, expected


def odd_games() -> set[str]:
    return {g.id for g in list_games() if int(g.id.rsplit("-", 1)[1]) % 2 == 1}


def cli_env(tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions"), OPENAI_API_KEY="")


def recode(tmp_path: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "recode_tui", *args], capture_output=True, text=True,
                          timeout=timeout, env=cli_env(tmp_path))


def _as_in_a_terminal() -> None:
    """Ctrl-C reaches a command typed at a terminal. A test run started in the background of a
    script inherits SIGINT ignored (POSIX shells do that to `&` jobs), and so would the CLI."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "recode_tui", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=cli_env(tmp_path), preexec_fn=_as_in_a_terminal)


def read_report(folder: Path) -> dict:
    return json.loads((folder / "report.json").read_text())


def profiles_file(tmp_path: Path, base_url: str) -> Path:
    return write_profiles(tmp_path / "profiles.yaml", base_url, max_retries=0, timeout=20, prices=(2.0, 8.0))
