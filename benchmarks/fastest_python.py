"""Print the fastest Python (3.10+, able to make a venv) on this machine: the interpreter `make` builds .venv with.

Why: the same Python version runs this project's code at very different speeds depending on how it was built. On
the project's 2-core machines, pyenv's 3.11 (built without profile-guided and link-time optimisation, pyenv's
default) ran the loop below in 0.82 CPU-s where Debian's 3.11 (built with both) took 0.43, and `make quick` took
166 CPU-s against 119. So `make` times a short loop of dict, string and attribute work on each candidate and
takes the fastest; with one candidate, or none that works, it is `python3`.

Run by any python3 (standard library only). `make PYTHON=/path/to/python ...` still chooses by hand.
"""

from __future__ import annotations  # annotations below read by any python3 (3.8 too)

import os
import shutil
import subprocess
import sys

CANDIDATES = ("python3", "python3.13", "python3.12", "python3.11", "python3.10", "/usr/bin/python3",
              "/usr/local/bin/python3")
# Fails on a Python older than 3.10, or one without venv's pip bootstrap (Debian splits it into python3.X-venv).
LOOP = """
import sys, time, venv, ensurepip
assert sys.version_info >= (3, 10)
class Node:
    def __init__(self, value):
        self.value = value
best = float("inf")
for _ in range(3):
    start = time.process_time()
    table = {}
    for i in range(150_000):
        table[i % 997] = Node(str(i)).value + "x"
    sorted(table.values())
    best = min(best, time.process_time() - start)
print(best, sys.executable)
"""


def timings() -> dict[str, float | None]:
    """Each candidate's best time for the loop (None: unusable), by the interpreter it runs (a pyenv shim and the
    Python it starts are one). Started all at once: a version manager's shim can take a second to answer."""
    runs = {}
    for name in CANDIDATES:
        path = shutil.which(name)
        if path is not None and path not in runs:
            try:
                runs[path] = subprocess.Popen([path, "-I", "-c", LOOP], stdout=subprocess.PIPE,
                                              stderr=subprocess.DEVNULL, text=True)
            except OSError:
                continue
    times: dict[str, float | None] = {}
    for path, run in runs.items():
        try:
            out, _ = run.communicate(timeout=30)
            best, executable = out.split(maxsplit=1)
            times[os.path.realpath(executable.strip())] = float(best) if run.returncode == 0 else None
        except (ValueError, subprocess.TimeoutExpired):
            run.kill()
            times.setdefault(path, None)
    return times


def main() -> None:
    times = timings()
    working = {path: t for path, t in times.items() if t is not None}
    print(min(working, key=working.__getitem__) if working else "python3")
    if "-v" in sys.argv:
        for path, t in sorted(times.items(), key=lambda item: item[1] if item[1] is not None else float("inf")):
            print(f"  {path}: {'unusable' if t is None else f'{t:.3f} CPU-s'}", file=sys.stderr)


if __name__ == "__main__":
    main()
