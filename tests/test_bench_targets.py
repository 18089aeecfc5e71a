"""A benchmark that misses its target fails: run_all.py exits non-zero, prints MISS and names the benchmark.

The real run_all.py runs the real bench_search.py (a few seconds, no agent) with
every limit scaled to the impossible (`--target-scale 0.0001`), then as it is.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUN_ALL = ROOT / "benchmarks" / "run_all.py"


def run_all(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(RUN_ALL), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_a_missed_target_fails_the_run_and_is_named():
    done = run_all("--target-scale", "0.0001", "bench_search")
    assert done.returncode != 0, done.stdout
    assert "MISS" in done.stdout
    assert "PASS" not in done.stdout.split("targets of bench_search")[1]
    assert "0 of 1 benchmarks held their targets" in done.stdout
    assert done.stdout.rstrip().splitlines()[-1].startswith("TARGETS bench_search: MISS 3 of 3")


def test_check_prints_the_verdicts_only_and_a_held_target_passes():
    done = run_all("--check", "--target-scale", "1000", "bench_search")
    assert done.returncode == 0, done.stdout
    assert "cells: median time" not in done.stdout  # the table's notes are left out
    assert "TARGETS bench_search: PASS 3 of 3" in done.stdout
    assert "1 of 1 benchmarks held their targets" in done.stdout


def test_a_miss_exits_apart_from_a_crash():
    sys.path.insert(0, str(ROOT))
    from benchmarks.targets import MISS_EXIT, Target, Verdicts

    verdicts = Verdicts("bench_x")
    assert verdicts.check(Target("speed", 10, "/min", "test", at_least=True), 12) == "PASS"
    assert verdicts.check(Target("latency", 5, "ms", "test"), 6) == "MISS"
    assert verdicts.finish() == MISS_EXIT != 1
    assert verdicts.summary() == "TARGETS bench_x: MISS 1 of 2: latency"
