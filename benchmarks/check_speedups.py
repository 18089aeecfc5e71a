"""The ALFWorld speedups change nothing a player sees: the whole sweep, with and without them.

    .venv/bin/python benchmarks/check_speedups.py            # 60 bundled games (+ 140 valid_seen when ../shared has them)
    .venv/bin/python benchmarks/check_speedups.py --bundled  # the bundled games only

Each game is played twice per setting by `tests/envs/engine_transcript.py` (its
walkthrough, then seeded random admissible commands with two odd ones mixed
in) in a process of its own per setting, and every observation, admissible
command list and won/done flag is compared. `tests/envs/test_speedups.py`
runs a four-game sample of this in `make test`. Prints a table and exits 1 on
the first difference.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from envs.alfworld.catalog import list_games, list_split  # noqa: E402

SHARED = ROOT.parent / "shared" / "alfworld"
TRANSCRIPT = ROOT / "tests" / "envs" / "engine_transcript.py"


def transcripts(games: list[str], speedups: str) -> tuple[list[dict], float]:
    began = time.monotonic()
    done = subprocess.run([sys.executable, str(TRANSCRIPT), *games], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, RECODE_ALFWORLD_SPEEDUPS=speedups))
    if done.returncode:
        raise SystemExit(f"engine_transcript.py failed ({speedups=}): {done.stderr.strip().splitlines()[-1:]}")
    return [json.loads(line) for line in done.stdout.splitlines()][:-1], time.monotonic() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundled", action="store_true", help="only the 60 bundled games")
    args = parser.parse_args()
    sets = {"bundled": [g.id for g in list_games()]}
    if not args.bundled and (SHARED / "json_2.1.1" / "valid_seen").is_dir():
        os.environ["ALFWORLD_DATA"] = str(SHARED)
        sets["valid_seen"] = [g.id for g in list_split("valid_seen")]
    print("| games | count | steps compared | plain s | with speedups s | same |\n|---|---|---|---|---|---|")
    same_everywhere = True
    for name, games in sets.items():
        (plain, plain_s), (fast, fast_s) = transcripts(games, "0"), transcripts(games, "1")
        steps = sum(len(run) for t in plain for run in t["runs"])
        differences = [a["game"] for a, b in zip(plain, fast) if a != b] + (["(count)"] if len(plain) != len(fast) else [])
        same_everywhere &= not differences
        print(f"| {name} | {len(games)} | {steps} | {plain_s:.0f} | {fast_s:.0f} | "
              f"{'yes' if not differences else 'NO: ' + ', '.join(differences[:5])} |", flush=True)
    return 0 if same_everywhere else 1


if __name__ == "__main__":
    raise SystemExit(main())
