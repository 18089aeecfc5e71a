"""How long `import envs, envs.alfworld` takes in a fresh process (target: under 50 ms).

Listing games and opening the console import these; the heavy engine
(textworld, tatsu, spacy) loads only when a game is reset. Whether it stays
out of the import is a behaviour, tested in tests/envs/test_import.py; how
fast the import is depends on the machine, so it is measured here.

Run: .venv/bin/python benchmarks/bench_import.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 0.05
CODE = """
import time
t = time.perf_counter()
import envs, envs.alfworld
from envs.alfworld import list_games, resolve_game, AlfworldEnv, make_env
print(time.perf_counter() - t)
"""


def main() -> None:
    runs = [float(subprocess.run([sys.executable, "-c", CODE], cwd=ROOT, capture_output=True, text=True,
                                 check=True).stdout) for _ in range(7)]
    best, median = min(runs), statistics.median(runs)
    verdict = "within" if best < TARGET else "OVER"
    print(f"import envs, envs.alfworld: best {best * 1000:.1f} ms, median {median * 1000:.1f} ms of {len(runs)} "
          f"fresh processes ({verdict} the {TARGET * 1000:.0f} ms target)")


if __name__ == "__main__":
    main()
