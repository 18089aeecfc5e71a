"""A benchmark that misses its target fails: run_all.py exits non-zero, prints MISS and names the benchmark.

The real run_all.py and targets.py, copied beside a small real benchmark (bench_sum.py: three figures of
summing a range, no project import) since run_all runs every bench_*.py of its own folder. Its limit, a
microsecond, holds only scaled up (`--target-scale 1000000`); scaled down (`0.0001`) it is missed all the more. Why not the real bench_search.py: it is
1.2 CPU-s a run, and what is checked here is run_all's and the targets' part, the same for every benchmark.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

BENCH_SUM = """
import sys, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.targets import Target, Verdicts

verdicts = Verdicts("bench_sum")
for size in (10_000, 20_000, 30_000):
    began = time.perf_counter()
    sum(range(size))
    ms = (time.perf_counter() - began) * 1000
    print(f"{size:>7} | {ms:.3f} ms | {verdicts.check(Target(f'sum of {size}', 0.001, 'ms', 'a test'), ms)}")
print("cells: time of one sum")
raise SystemExit(verdicts.finish())
"""


@pytest.fixture(scope="module")
def run_all_py(tmp_path_factory) -> Path:
    """run_all.py and targets.py as the project has them, in a benchmarks folder whose one benchmark is bench_sum."""
    folder = tmp_path_factory.mktemp("bench") / "benchmarks"
    folder.mkdir()
    for name in ("run_all.py", "targets.py"):
        shutil.copy(ROOT / "benchmarks" / name, folder / name)
    (folder / "bench_sum.py").write_text(BENCH_SUM)
    return folder / "run_all.py"


def run_all(run_all_py: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(run_all_py), *args], cwd=run_all_py.parent, capture_output=True,
                          text=True, timeout=120)


def test_a_missed_target_fails_the_run_and_is_named(run_all_py):
    done = run_all(run_all_py, "--target-scale", "0.0001", "bench_sum")
    assert done.returncode != 0, done.stdout
    assert "MISS" in done.stdout
    assert "PASS" not in done.stdout.split("targets of bench_sum")[1]
    assert "0 of 1 benchmarks held their targets" in done.stdout
    assert done.stdout.rstrip().splitlines()[-1].startswith("TARGETS bench_sum: MISS 3 of 3")


def test_check_prints_the_verdicts_only_and_a_held_target_passes(run_all_py):
    done = run_all(run_all_py, "--check", "--target-scale", "1000000", "bench_sum")
    assert done.returncode == 0, done.stdout
    assert "cells: time of one sum" not in done.stdout  # the table's notes are left out
    assert "TARGETS bench_sum: PASS 3 of 3" in done.stdout
    assert "1 of 1 benchmarks held their targets" in done.stdout


def test_a_miss_exits_apart_from_a_crash():
    sys.path.insert(0, str(ROOT))
    from benchmarks.targets import MISS_EXIT, Target, Verdicts

    verdicts = Verdicts("bench_x")
    assert verdicts.check(Target("speed", 10, "/min", "test", at_least=True), 12) == "PASS"
    assert verdicts.check(Target("latency", 5, "ms", "test"), 6) == "MISS"
    assert verdicts.finish() == MISS_EXIT != 1
    assert verdicts.summary() == "TARGETS bench_x: MISS 1 of 2: latency"
