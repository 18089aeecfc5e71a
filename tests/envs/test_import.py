"""`import envs` / `import envs.alfworld` must stay cheap: no textworld, < 50 ms."""

from __future__ import annotations

import subprocess
import sys

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CODE = """
import sys, time
t = time.perf_counter()
import envs, envs.alfworld
from envs.alfworld import list_games, resolve_game, AlfworldEnv, make_env
dt = time.perf_counter() - t
heavy = sorted(m for m in ("textworld", "alfworld", "tatsu", "spacy") if m in sys.modules)
print(dt, ",".join(heavy))
"""


def _run() -> tuple[float, str]:
    out = subprocess.run(
        [sys.executable, "-c", CODE], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return float(out[0]), (out[1] if len(out) > 1 else "")


def test_import_does_not_load_engine_and_is_fast():
    runs = [_run() for _ in range(5)]
    assert all(heavy == "" for _, heavy in runs), runs
    assert min(dt for dt, _ in runs) < 0.05, runs


def test_listing_games_does_not_load_engine():
    code = (
        "import sys, envs.alfworld as a; a.list_games(); a.resolve_game('put-01'); "
        "a.make_env('heat-01'); print('textworld' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
