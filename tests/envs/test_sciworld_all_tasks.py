"""Every one of ScienceWorld's 30 tasks is won by the gold-path demo through `recode-tui run`.

One test variation per task. The tasks are played in two processes side by
side, each with its own JVM (as eval's workers are): the two Mendelian-genetics
tasks need 10-15 s each to compute their gold path, and one goes to each half.
The whole sweep (about half a minute idle, two minutes on a busy 2-core
machine) is marked `slow` (`make slow`); `make test` plays a sample of 4 tasks
from four families that no other test plays (boil, find-animal and the others
are played by the ScienceWorld tests beside this one), in the test's own
process on its JVM (a JVM's start and warm-up cost more than the four episodes). `benchmarks/bench_sciworld_gold.py` runs the
same sweep through `eval -c 2`, with its table.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from envs.sciworld.tasks import task_names
from envs.sciworld.variations import variation_table
from tests.envs.sciworld_gold_runs import play

pytestmark = [pytest.mark.heavy, pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (.ci/run installs one)")]

HERE = Path(__file__).resolve().parent


SAMPLE = ("test-conductivity", "chemistry-mix", "lifespan-longest-lived-then-shortest-lived", "identify-life-stages-2")


def test_the_gold_demo_wins_a_test_variation_of_a_sample_of_tasks_through_run(tmp_path, capsys, process_jvm) -> None:
    assert set(SAMPLE) <= set(task_names())
    episodes = first_test_variations(list(SAMPLE))
    play(str(tmp_path), episodes)
    all_won(tmp_path, episodes, [json.loads(line) for line in capsys.readouterr().out.splitlines()])


@pytest.mark.slow
def test_the_gold_demo_wins_a_test_variation_of_every_task_through_run(tmp_path) -> None:
    names = list(task_names())
    assert len(names) == 30
    gold_demo_wins(tmp_path, names, processes=2)


def first_test_variations(names: list[str]) -> list[str]:
    table = variation_table()
    return [f"{name}/{table[name]['test'][0]}" for name in names]


def gold_demo_wins(tmp_path: Path, names: list[str], processes: int) -> None:
    episodes = first_test_variations(names)
    halves = [episodes[i::processes] for i in range(processes)]  # the two genetics tasks are last: one in each half
    if any(name.startswith("mendelian") for name in names):
        assert all(any(e.startswith("mendelian") for e in half) for half in halves)
    runs = [subprocess.Popen([sys.executable, str(HERE / "sciworld_gold_runs.py"), str(tmp_path), *half],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for half in halves]
    results = []
    for run in runs:
        out, err = run.communicate(timeout=600)
        assert run.returncode == 0, err[-2000:]
        results += [json.loads(line) for line in out.splitlines()]
    all_won(tmp_path, episodes, results)


def all_won(tmp_path: Path, episodes: list[str], results: list[dict]) -> None:
    """Each episode's run exited 0 saying SUCCESS, and left a journal that ends in a win."""
    assert sorted(r["episode"] for r in results) == sorted(episodes)
    lost = [f"{r['episode']}: exit {r['exit']}: {r['last']}" for r in results
            if r["exit"] != 0 or not r["last"].startswith("SUCCESS")]
    assert not lost, "\n".join(lost)
    # each run left a journal that ends in a win
    endings = [json.loads(j.read_text().strip().splitlines()[-1]).get("success") for j in tmp_path.glob("*/journal.jsonl")]
    assert len(endings) == len(episodes) and all(endings), endings
