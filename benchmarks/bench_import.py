"""How long `import envs, envs.alfworld` takes in a fresh process (target: under 50 ms).

Listing games and opening the console import these; the heavy engine
(textworld, tatsu, spacy) loads only when a game is reset. Whether it stays
out of the import is a behaviour, tested in tests/envs/test_import.py; how
fast the import is depends on the machine, so it is measured here.

User path: the start of every command (`recode-tui games list`, `tui`, `run`), before a game is loaded.

Run: .venv/bin/python benchmarks/bench_import.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.targets import Target, Verdicts  # noqa: E402

TARGET = Target("import envs, envs.alfworld (best of 7)", 50, "ms", "its earlier test (moved here in cf05c19)")
CODE = """
import time
t = time.perf_counter()
import envs, envs.alfworld
from envs.alfworld import list_games, resolve_game, AlfworldEnv, make_env
print(time.perf_counter() - t)
"""


def main() -> int:
    verdicts = Verdicts("bench_import")
    runs = [float(subprocess.run([sys.executable, "-c", CODE], cwd=ROOT, capture_output=True, text=True,
                                 check=True).stdout) for _ in range(7)]
    best, median = min(runs), statistics.median(runs)
    verdict = verdicts.check(TARGET, best * 1000)
    print(f"import envs, envs.alfworld: best {best * 1000:.1f} ms, median {median * 1000:.1f} ms of {len(runs)} "
          f"fresh processes: {verdict} (target {TARGET.describe()})")
    return verdicts.finish()


if __name__ == "__main__":
    raise SystemExit(main())
