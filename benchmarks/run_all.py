"""Run every benchmark in this folder, one after another, each printing its table with PASS/MISS per figure.

Run: make bench   (or .venv/bin/python benchmarks/run_all.py [--check] [--target-scale X] [name ...])

Each benchmark holds its targets (benchmarks/targets.py) and exits non-zero on
a miss; this exits non-zero when any benchmark missed a target or crashed, and
ends with which. `--check` prints only the verdicts (the lines with PASS or
MISS) instead of the whole tables; `--target-scale X` multiplies every limit
(0.0001: every target impossible, to see a miss fail).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.targets import MISS_EXIT, SCALE_ENV, SUMMARY  # noqa: E402


def run_one(script: Path, env: dict, verdicts_only: bool) -> tuple[int, list[str]]:
    """Run one benchmark, echoing its output; its exit status and its summary lines."""
    summaries = []
    with subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env,
                          bufsize=1) as child:
        assert child.stdout is not None
        for line in child.stdout:
            if line.startswith(SUMMARY + " "):
                summaries.append(line.rstrip())
            if not verdicts_only or "PASS" in line or "MISS" in line:
                print(line, end="", flush=True)
    return child.returncode, summaries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="run only the benchmarks whose name contains one of these")
    parser.add_argument("--check", action="store_true", help="print only the PASS/MISS lines, not the tables")
    parser.add_argument("--target-scale", type=float, default=None, help="multiply every target's limit by this")
    args = parser.parse_args(argv)
    env = dict(os.environ, PYTHONUNBUFFERED="1")  # the tables show as they are printed, not when a script ends
    if args.target_scale is not None:
        env[SCALE_ENV] = str(args.target_scale)
    scripts = sorted(HERE.glob("bench_*.py"))
    if args.names:
        scripts = [s for s in scripts if any(n in s.stem for n in args.names)]
    bad = []
    for script in scripts:
        print(f"\n## {script.stem}\n", flush=True)
        code, summaries = run_one(script, env, args.check)
        if code == MISS_EXIT:
            bad.append(summaries[-1] if summaries else f"{script.stem}: MISS")
        elif code:
            bad.append(f"{script.stem}: crashed or failed (exit {code})")
    print(f"\n{len(scripts) - len(bad)} of {len(scripts)} benchmarks held their targets")
    for line in bad:
        print(("" if line.startswith(SUMMARY) else SUMMARY + " ") + line)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
