"""A file planted in the TextWorld cache folder never runs code in the next start of recode-tui.

Any program running as the user can write `~/.cache/recode-tui/`; the cache is
read at every start. The first start fills the test's own cache folder; every file
in it is then replaced by a pickle whose `__reduce__` creates a marker file (and a
copy of each under a `.pickle` name), and by JSON data naming a class the cache does
not hold. The next start must not create the marker, must parse again, and must play
the game as before.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy  # starts the engine in other processes

ROOT = Path(__file__).resolve().parents[2]
CHILD = r"""
import json
from envs.alfworld import logic_cache
from envs.alfworld.env import AlfworldEnv, _import_engine
_import_engine()
env = AlfworldEnv("put-01")
env.reset()
for action in env.walkthrough:
    env.step(action)
print(json.dumps({"counts": logic_cache.counts, "grammar": logic_cache.grammar_counts,
                  "translations": logic_cache.translation_counts, "won": env.won}))
"""


class _Planted:
    """Unpickling this calls `open(marker, "w")`: code chosen by whoever wrote the file."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _play(cache: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), RECODE_ALFWORLD_SPEEDUPS="1")
    return subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def _start(cache: Path) -> dict:
    out = _play(cache)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.splitlines()[-1])


def _kept(cache: Path) -> list[Path]:
    return sorted((cache / "recode-tui" / "textworld-logic").iterdir())


@pytest.fixture(scope="module")
def filled(tmp_path_factory) -> Path:
    """A cache folder as one start leaves it (the parse is most of a start's time: done once, copied per test)."""
    cache = tmp_path_factory.mktemp("filled")
    _start(cache)
    return cache


@pytest.fixture
def cache(filled: Path, tmp_path: Path) -> Path:
    """This test's copy of the filled cache folder."""
    shutil.copytree(filled / "recode-tui", tmp_path / "recode-tui")
    return tmp_path


def test_a_planted_pickle_in_the_cache_folder_never_runs(cache: Path) -> None:
    marker = cache / "MARKER"
    planted = pickle.dumps(_Planted(str(marker)))
    files = _kept(cache)
    assert len(files) == 4  # the built-in logic, the grammar, two translations
    for kept in files:
        kept.write_bytes(planted)
        kept.with_suffix(".pickle").write_bytes(planted)
    played = _play(cache)
    assert not marker.exists(), "a file in the cache folder ran code"
    assert played.returncode == 0, played.stderr[-2000:]
    again = json.loads(played.stdout.splitlines()[-1])
    assert again["counts"] == again["grammar"] == {"read": 0, "parsed": 1} and again["won"]
    assert again["translations"] == {"read": 0, "parsed": 2}
    assert not [kept for kept in _kept(cache) if kept.suffix == ".pickle"]  # old pickles are deleted, unread
    rewritten = _start(cache)
    assert rewritten["counts"] == rewritten["grammar"] == {"read": 1, "parsed": 0}


def test_cache_data_naming_a_class_of_its_own_choice_is_parsed_again(cache: Path) -> None:
    for kept in _kept(cache):
        document = json.loads(kept.read_text())
        document["root"] = ["o", "subprocess:Popen", [], {}]
        kept.write_text(json.dumps(document))
    again = _start(cache)
    assert again["counts"] == again["grammar"] == {"read": 0, "parsed": 1} and again["won"]
    assert again["translations"] == {"read": 0, "parsed": 2}


def test_a_grammar_expression_the_game_does_not_have_is_parsed_again(cache: Path) -> None:
    """TextWorld evals a grammar's `{expressions}`: one brought by the cache file would be code from it."""
    marker = cache / "MARKER"
    grammar = next(path for path in _kept(cache) if path.name.startswith("alfworld-grammar-"))
    text = grammar.read_text()
    assert '"r.name"' in text
    grammar.write_text(text.replace('"r.name"', json.dumps(f"open({str(marker)!r}, 'w') and r.name")))
    played = _play(cache)
    assert not marker.exists(), "an expression from the cache folder ran"
    assert played.returncode == 0, played.stderr[-2000:]
    again = json.loads(played.stdout.splitlines()[-1])
    assert again["grammar"] == {"read": 0, "parsed": 1} and again["won"]
