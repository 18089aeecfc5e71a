"""`import envs` / `import envs.alfworld` must not load the heavy engine (its speed: benchmarks/bench_import.py)."""

from __future__ import annotations

import subprocess
import sys

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CODE = """
import sys
import envs, envs.alfworld
from envs.alfworld.catalog import list_games, resolve_game
from envs.registry import make_env
from envs.alfworld.env import AlfworldEnv
heavy = sorted(m for m in ("textworld", "alfworld", "tatsu", "spacy") if m in sys.modules)
print(",".join(heavy) or "none")
"""


def test_import_does_not_load_engine():
    out = subprocess.run([sys.executable, "-c", CODE], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "none"


def test_listing_games_does_not_load_engine():
    code = (
        "import sys, envs; from envs.alfworld import catalog; from envs.registry import make_env; "
        "catalog.list_games(); catalog.resolve_game('put-01'); "
        "make_env('heat-01'); print('textworld' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
