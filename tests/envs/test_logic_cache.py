"""TextWorld's built-in logic is read back from the cache at the next start, and the game plays the same.

Each start is its own process (the parse happens while textworld is imported);
the cache folder is the test's own (XDG_CACHE_HOME).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy  # starts engines in other processes

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import json, time
t = time.perf_counter()
from envs.alfworld import logic_cache
from envs.alfworld.env import AlfworldEnv, _import_engine
_import_engine()
imported = time.perf_counter() - t
import textworld.generator.data as data
env = AlfworldEnv("put-01")
seen = [env.reset().raw]
for action in env.walkthrough:
    seen.append(env.step(action))
print(json.dumps({"counts": logic_cache.counts, "import_s": imported, "won": env.won, "seen": seen,
                  "rules": sorted(data.KB.logic.rules), "types": sorted(t.name for t in data.KB.logic.types),
                  "document": data.KB.logic.serialize()}))
"""


def _start(cache: Path, speedups: str = "1") -> dict:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), RECODE_ALFWORLD_SPEEDUPS=speedups)
    out = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.splitlines()[-1])


def test_the_second_start_reads_the_logic_back_and_plays_the_game_the_same(tmp_path: Path) -> None:
    first = _start(tmp_path)
    assert first["counts"] == {"read": 0, "parsed": 1}
    assert len(list((tmp_path / "recode-tui" / "textworld-logic").glob("*.pickle"))) == 1
    second = _start(tmp_path)
    assert second["counts"] == {"read": 1, "parsed": 0}
    untouched = _start(tmp_path / "off", speedups="0")  # the engine as TextWorld ships it
    assert untouched["counts"] == {"read": 0, "parsed": 0}
    for key in ("seen", "rules", "types", "document", "won"):
        assert first[key] == second[key] == untouched[key], key
    assert second["won"]


def test_a_damaged_cache_is_parsed_again(tmp_path: Path) -> None:
    _start(tmp_path)
    (pickle,) = (tmp_path / "recode-tui" / "textworld-logic").glob("*.pickle")
    pickle.write_bytes(b"not a pickle")
    again = _start(tmp_path)
    assert again["counts"] == {"read": 0, "parsed": 1} and again["won"]
    assert _start(tmp_path)["counts"] == {"read": 1, "parsed": 0}  # rewritten
