"""TextWorld's built-in logic and ALFWorld's game grammar are read back from the cache at the next start,
and the games play the same (every observation and admissible-command list).

Each start is its own process (the parse happens while textworld is imported);
the cache folder is the test's own (XDG_CACHE_HOME). The parse of a first start is most of a start's CPU:
one first start fills a folder every test copies.

A file planted in the cache folder never runs code in the next start of recode-tui. Any program running as
the user can write `~/.cache/recode-tui/`; the cache is read at every start. Every file of a filled folder
is replaced by a pickle whose `__reduce__` creates a marker file (and a copy of each under a `.pickle` name),
or by JSON data naming a class the cache does not hold. The next start must not create the marker, must
parse again, and must play the game as before.
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
seen = []
other = AlfworldEnv("clean-01")  # another task sentence: the same masked grammar
seen += [other.reset().raw, other.admissible_commands]
other.close()
env = AlfworldEnv("put-01")
seen += [env.reset().raw, env.admissible_commands]
for action in env.walkthrough:
    seen += [env.step(action), env.admissible_commands]
print(json.dumps({"counts": logic_cache.counts, "grammar": logic_cache.grammar_counts,
                  "translations": logic_cache.translation_counts, "won": env.won, "seen": seen,
                  "rules": sorted(data.KB.logic.rules), "types": sorted(t.name for t in data.KB.logic.types),
                  "document": data.KB.logic.serialize()}))
"""


# One game played to its end: what a start after a planted file must still do.
PLAY = r"""
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


def _run(cache: Path, program: str = CHILD) -> subprocess.CompletedProcess:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), RECODE_ALFWORLD_SPEEDUPS="1")
    return subprocess.run([sys.executable, "-c", program], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)


def _start(cache: Path, program: str = CHILD) -> dict:
    out = _run(cache, program)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.splitlines()[-1])


def _play(cache: Path) -> subprocess.CompletedProcess:
    return _run(cache, program=PLAY)


def _kept(cache: Path) -> list[Path]:
    return sorted((cache / "recode-tui" / "textworld-logic").iterdir())


@pytest.fixture(scope="module")
def first_start(tmp_path_factory) -> tuple[Path, dict]:
    """A first start on an empty cache folder: the folder it filled and what it played (done once per module)."""
    cache = tmp_path_factory.mktemp("first")
    return cache, _start(cache)


def _copy_of(first_start: tuple[Path, dict], tmp_path: Path) -> dict:
    """The filled cache folder copied into this test's folder; the first start's result."""
    shutil.copytree(first_start[0] / "recode-tui", tmp_path / "recode-tui")
    return first_start[1]


def test_the_second_start_reads_the_logic_back_and_plays_the_game_the_same(tmp_path: Path, first_start) -> None:
    first = _copy_of(first_start, tmp_path)
    assert first["counts"] == first["grammar"] == {"read": 0, "parsed": 1}  # the grammar: once for both games
    assert first["translations"] == {"read": 0, "parsed": 4}  # two games, each translated plain and optimized
    kept = list((tmp_path / "recode-tui" / "textworld-logic").glob("*.json"))
    assert len(kept) == 6 and sum(p.name.startswith("pddl2sas-") for p in kept) == 4
    second = _start(tmp_path)
    assert second["counts"] == second["grammar"] == {"read": 1, "parsed": 0}
    assert second["translations"] == {"read": 4, "parsed": 0}  # the next start translates nothing
    # The first start's logic is TextWorld's own parse. The engine as TextWorld ships it (RECODE_ALFWORLD_SPEEDUPS=0:
    # no cache read or written) is compared with the speedups, this cache among them, by test_speedups.py.
    for key in ("seen", "rules", "types", "document", "won"):
        assert first[key] == second[key], key
    assert second["won"]


def test_a_damaged_cache_is_parsed_again(tmp_path: Path, first_start) -> None:
    _copy_of(first_start, tmp_path)
    for kept in (tmp_path / "recode-tui" / "textworld-logic").iterdir():
        kept.write_bytes(b"not data")
    again = _start(tmp_path, program=PLAY)  # one game reads every kind of file: the logic, grammar, translations
    assert again["counts"] == again["grammar"] == {"read": 0, "parsed": 1} and again["won"]
    assert again["translations"] == {"read": 0, "parsed": 2}
    rewritten = _start(tmp_path, program=PLAY)
    assert rewritten["counts"] == rewritten["grammar"] == {"read": 1, "parsed": 0}
    assert rewritten["translations"] == {"read": 2, "parsed": 0}


class _Planted:
    """Unpickling this calls `open(marker, "w")`: code chosen by whoever wrote the file."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.fixture
def cache(first_start, tmp_path: Path) -> Path:
    """This test's copy of the filled cache folder."""
    _copy_of(first_start, tmp_path)
    return tmp_path


def test_a_planted_pickle_in_the_cache_folder_never_runs(cache: Path) -> None:
    marker = cache / "MARKER"
    planted = pickle.dumps(_Planted(str(marker)))
    files = _kept(cache)
    assert len(files) == 6  # the built-in logic, the grammar, four translations (two games)
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
    rewritten = _start(cache, program=PLAY)
    assert rewritten["counts"] == rewritten["grammar"] == {"read": 1, "parsed": 0}


def test_cache_data_naming_a_class_of_its_own_choice_is_parsed_again(cache: Path) -> None:
    for kept in _kept(cache):
        document = json.loads(kept.read_text())
        document["root"] = ["o", "subprocess:Popen", [], {}]
        kept.write_text(json.dumps(document))
    again = _start(cache, program=PLAY)
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
