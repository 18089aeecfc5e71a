"""How long `/` takes to search the environment log, per keystroke, as the log grows.

    .venv/bin/python benchmarks/bench_search.py

The search runs on the UI thread at every keystroke, so it must stay well under
a frame's worth of waiting for the logs people really have (hundreds to a few
thousand lines) and usable at the console's 100k-line ceiling. Lines look like
ALFWorld observations; "many" matches every line, "rare" one line in 7, "none"
nothing (the whole text is still read).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from recode_tui.console.search import find_all  # noqa: E402

PATTERNS = {"many": "vase", "rare": "mug 3", "none": "zebra", "case-sensitive": "Cabinet"}


def log_lines(count: int) -> list[str]:
    return [f"      You arrive at cabinet {i}. On the cabinet {i}, you see a mug {i % 7}, and a vase 2." for i in range(count)]


def median_ms(lines: list[str], pattern: str, runs: int = 7) -> tuple[float, int]:
    times = []
    found = 0
    for _ in range(runs):
        began = time.perf_counter()
        found = len(find_all(lines, pattern))
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times), found


def main() -> None:
    sizes = (1_000, 10_000, 100_000)
    print(f"{'log lines':>10} | " + " | ".join(f"{name:>16}" for name in PATTERNS))
    print("-" * 11 + "|" + "|".join("-" * 18 for _ in PATTERNS))
    for size in sizes:
        lines = log_lines(size)
        cells = []
        for pattern in PATTERNS.values():
            ms, found = median_ms(lines, pattern)
            cells.append(f"{ms:7.2f} ms {found:>5}")
        print(f"{size:>10} | " + " | ".join(f"{c:>16}" for c in cells))
    print("\ncells: median time per search, matches found (capped at 10000)")


if __name__ == "__main__":
    main()
