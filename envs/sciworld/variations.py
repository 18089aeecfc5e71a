"""The simulator's own train/dev/test variation lists, fetched from the JVM once and cached on disk.

The cache (one file per ScienceWorld version in the user cache folder) also
lets an episode's variation be checked without starting a JVM: `boil/9999`
is refused when the command starts, not after the console has opened.
"""

from __future__ import annotations

import json
from pathlib import Path

from envs.sciworld.simulator import shared_simulator
from envs.sciworld.tasks import task_names


def scienceworld_version() -> str:
    try:
        from importlib.metadata import version

        return version("scienceworld")
    except Exception:  # noqa: BLE001
        return "unknown"


def _cache_file() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("recode-tui")) / f"sciworld-variations-{scienceworld_version()}.json"


def cached_table() -> dict[str, dict[str, list[int]]] | None:
    """The variation lists when a JVM has listed them before on this machine (None: not yet)."""
    try:
        table = json.loads(_cache_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return table if isinstance(table, dict) and set(table) == set(task_names()) else None


def variation_table() -> dict[str, dict[str, list[int]]]:
    """task -> {train, dev, test} variation lists, from the simulator (cached on disk)."""
    table = cached_table()
    if table is not None:
        return table
    simulator = shared_simulator()
    table = {name: simulator.variations(name) for name in task_names()}
    path = _cache_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(table), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # a read-only cache folder only costs the listing again next time
    return table


def cached_count(task: str) -> int | None:
    """How many variations a task has (they are numbered 0..n-1), without a JVM; None when not cached."""
    table = cached_table()
    if table is None or task not in table:
        return None
    return sum(len(numbers) for numbers in table[task].values())
