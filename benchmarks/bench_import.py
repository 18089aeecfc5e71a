"""How long `import envs, envs.alfworld` takes in a fresh process (target: under 50 ms), and
`recode-tui --help` (`eval --help`, `run --help`) from the process start to its exit (target: 0.10 s).

Listing games and opening the console import these; the heavy agent
(textworld, tatsu, spacy) loads only when a game is reset. Whether it stays
out of the import is a behaviour, tested in tests/envs/test_import.py; how
fast the import is depends on the machine, so it is measured here.

`--help` builds the argument parser and exits: it imports no command module,
agent or agent (tested in tests/test_help_imports.py). Its target is issue
24's figure for the previous release, 0.10 s, as an absolute limit; the bare
interpreter with argparse (`python -c "import argparse; ..."`) is measured
beside it so a slow machine shows as such, not as a regression.

User paths: the start of every command (`recode-tui games list`, `tui`, `run`), before a game is loaded;
`recode-tui --help` and `recode-tui COMMAND --help` as typed at a shell.

Run: .venv/bin/python benchmarks/bench_import.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.targets import Target, Verdicts  # noqa: E402

TARGET = Target("import envs, envs.alfworld (best of 7)", 50, "ms", "its earlier test (moved here in cf05c19)")
HELP_RUNS = 10
HELP_COMMANDS = (("--help",), ("eval", "--help"), ("run", "--help"))
HELP_TARGETS = {command: Target(f"recode-tui {' '.join(command)} (median of {HELP_RUNS})", 100, "ms",
                                "issue 24: 0.10 s at the previous release")
                for command in HELP_COMMANDS}
BARE = "import argparse; argparse.ArgumentParser(prog='recode-tui').parse_args([])"
CODE = """
import time
t = time.perf_counter()
import envs, envs.alfworld
from envs.alfworld.catalog import list_games, resolve_game
from envs.registry import make_env
from envs.alfworld.env import AlfworldEnv
print(time.perf_counter() - t)
"""


def wall_ms(argv: list[str]) -> float:
    """One fresh process from its start to its exit, as a shell would time it (output discarded)."""
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) * 1000


def help_figures(verdicts: Verdicts) -> None:
    """`recode-tui [COMMAND] --help`: medians of fresh processes, interleaved with the bare interpreter's."""
    times: dict[tuple[str, ...], list[float]] = {command: [] for command in HELP_COMMANDS}
    bare: list[float] = []
    for _ in range(HELP_RUNS):
        bare.append(wall_ms([sys.executable, "-c", BARE]))
        for command in HELP_COMMANDS:
            times[command].append(wall_ms([sys.executable, "-m", "recode_tui", *command]))
    start = statistics.median(bare)
    print(f"python start-up + argparse (no recode-tui): median {start:.1f} ms of {HELP_RUNS}")
    for command, runs in times.items():
        median = statistics.median(runs)
        verdict = verdicts.check(HELP_TARGETS[command], median)
        print(f"recode-tui {' '.join(command)}: median {median:.1f} ms, best {min(runs):.1f} ms of {len(runs)} "
              f"({median - start:+.1f} ms over bare python + argparse): {verdict} "
              f"(target {HELP_TARGETS[command].describe()})")


def main() -> int:
    verdicts = Verdicts("bench_import")
    runs = [float(subprocess.run([sys.executable, "-c", CODE], cwd=ROOT, capture_output=True, text=True,
                                 check=True).stdout) for _ in range(7)]
    best, median = min(runs), statistics.median(runs)
    verdict = verdicts.check(TARGET, best * 1000)
    print(f"import envs, envs.alfworld: best {best * 1000:.1f} ms, median {median * 1000:.1f} ms of {len(runs)} "
          f"fresh processes: {verdict} (target {TARGET.describe()})")
    help_figures(verdicts)
    return verdicts.finish()


if __name__ == "__main__":
    raise SystemExit(main())
