"""How long reading back the TextWorld caches takes: JSON object data against the pickle it replaced.

The cache folder (`envs/alfworld/logic_cache.py`) spares each start of the
console TextWorld's parse of its built-in logic, and each game its grammar and
PDDL translations. Its files are JSON data that cannot run code when read,
where they were pickles; this measures what that costs at a start. One game is
played in a fresh cache folder (this process), then each file is read back
`--repeat` times both ways (best of the repeats, in this process: the figures
compare the two readers on the same objects, so the machine's load cancels out
in part).

User path: every start of `recode-tui run`/`tui`/`eval` on ALFWorld (the built-in
logic, then the first game's grammar and translations).

Targets: all files of one game (about 510 KB) read in at most 20 ms (measured 7.5 ms,
best of 40 under a load of ~10 on 2 cores), at most 10x what pickle takes (measured
4.6x: 1.6 ms). Either is small beside what the cache spares a start: about 0.35 s of
TextWorld's logic parse, 0.2 s of grammar and 0.3 s of PDDL translation.

Run: .venv/bin/python benchmarks/bench_logic_cache.py
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.targets import Target, Verdicts  # noqa: E402

RATIO = Target("read all of one game's files, data / pickle (best of repeats)", 10, "x",
               "measured 4.6x here; 2x margin")
TOTAL = Target("read all of one game's files as data (best of repeats)", 20, "ms", "measured 7.5 ms here; ~2.5x margin")


def _best(read, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        read()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=40, help="reads of each file, the best kept (default 40)")
    parser.add_argument("--game", default="put-01")
    args = parser.parse_args(argv)
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="bench-logic-cache-")
    from envs.alfworld import logic_cache, object_data, speedups
    from envs.alfworld.env import AlfworldEnv, _import_engine

    _import_engine()
    env = AlfworldEnv(args.game)
    env.reset()
    env.close()
    kinds = {"alfworld-grammar": speedups.GRAMMAR_CLASSES, "pddl2sas": speedups.TRANSLATION_CLASSES}
    total_data = total_pickle = 0.0
    print(f"{'file':<24} {'KB':>6} {'data ms':>8} {'pickle ms':>9}")
    for file in sorted(logic_cache.cache_dir().glob(f"*{logic_cache.SUFFIX}")):
        kind = next((k for k in kinds if file.name.startswith(k + "-")), None)
        allowed = logic_cache.allowed_classes(kinds[kind] if kind else logic_cache.LOGIC_CLASSES)
        text = file.read_bytes()
        blob = pickle.dumps(object_data.loads(text, allowed), protocol=pickle.HIGHEST_PROTOCOL)
        data = _best(lambda: object_data.loads(text, allowed), args.repeat)
        pickled = _best(lambda: pickle.loads(blob), args.repeat)
        total_data, total_pickle = total_data + data, total_pickle + pickled
        print(f"{(kind or 'textworld-logic'):<24} {len(text) / 1024:>6.0f} {data * 1000:>8.2f} {pickled * 1000:>9.2f}")
    verdicts = Verdicts("bench_logic_cache")
    ratio = total_data / total_pickle
    print(f"all: data {total_data * 1000:.1f} ms, pickle {total_pickle * 1000:.1f} ms ({ratio:.2f}x) "
          f"{verdicts.check(RATIO, ratio)} {verdicts.check(TOTAL, total_data * 1000)}")
    return verdicts.finish()


if __name__ == "__main__":
    sys.exit(main())
