"""Play ScienceWorld episodes with `recode-tui run --llm gold` in this process; one JSON line each.

    python tests/envs/sciworld_gold_runs.py SESSIONS_DIR boil/21 melt/21 ...

Run as a process of its own so that two halves of a sweep run side by side,
each with its own JVM (tests/envs/test_sciworld_all_tasks.py); its sample
calls `play` in the test's process.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from recode_tui.commands.cli import main  # noqa: E402


def play(sessions: str, episodes: list[str]) -> None:
    for episode in episodes:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main(["run", "--env", "sciworld", "--game", episode, "--llm", "gold", "--quiet",
                         "--sessions", sessions])
        lines = out.getvalue().strip().splitlines()
        print(json.dumps({"episode": episode, "exit": code, "last": lines[-1] if lines else ""}), flush=True)


if __name__ == "__main__":
    play(sys.argv[1], sys.argv[2:])
