"""Every one of ScienceWorld's 30 tasks is won by the gold-path demo through `recode-tui run`.

One test variation per task, in this process (one JVM for all 30, as a worker
keeps it). About a minute: the two Mendelian-genetics tasks take 10-15 s each
to compute their gold path. `benchmarks/bench_sciworld_gold.py` runs the same
sweep through `eval -c 2`, with its table.
"""

from __future__ import annotations

import json
import shutil

import pytest

from envs.sciworld.tasks import task_names
from envs.sciworld.variations import variation_table
from recode_tui.commands.cli import main

pytestmark = pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (.ci/run installs one)")


def test_the_gold_demo_wins_a_test_variation_of_every_task_through_run(tmp_path, capsys) -> None:
    table = variation_table()
    names = list(task_names())
    assert len(names) == 30
    lost = []
    for name in names:
        episode = f"{name}/{table[name]['test'][0]}"
        code = main(["run", "--env", "sciworld", "--game", episode, "--llm", "gold", "--quiet",
                     "--sessions", str(tmp_path)])
        lines = capsys.readouterr().out.strip().splitlines()
        if code != 0 or not lines or not lines[-1].startswith("SUCCESS"):
            lost.append(f"{episode}: exit {code}: {lines[-1] if lines else 'no output'}")
    assert not lost, "\n".join(lost)
    # each run left a journal that ends in a win
    endings = []
    for journal in tmp_path.glob("*/journal.jsonl"):
        last = json.loads(journal.read_text().strip().splitlines()[-1])
        endings.append(last.get("success"))
    assert len(endings) == 30 and all(endings), endings
