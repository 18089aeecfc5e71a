"""A shelf of idle ALFWorld engines, reused for the next game instead of rebuilt.

Each new `PddlEnv` copies fast_downward's 33 MB shared library to a temporary
file and loads it: building an engine costs about 0.1 s, and each copy adds
about 2 MB of resident memory (and 33 MB of mappings) to the process. An
engine whose game is closed is shelved here, and the next `load()` of any game
replaces its whole state (logic, PDDL state, task loaded into the library), so
a shelved engine plays a new game exactly as a fresh one does
(`tests/envs/test_speedups.py` compares transcripts); an engine whose game
failed to load is shelved too, so a malformed game costs no copy.

A copy is never unloaded: every copy registers its planner plugins (function
pointers into its own code) in one registry that all copies share (a C++
static that the dynamic linker makes unique), so unmapping a copy leaves the
registry pointing into freed code, and the next engine built, or the process's
exit, crashed with a segmentation fault. The shelf therefore keeps every
engine it is given: a process holds as many copies as it had games open at once.

Reuse follows the engine-speedups switch (RECODE_ALFWORLD_SPEEDUPS=0 builds a
fresh engine per game).
"""

from __future__ import annotations

import threading
from typing import Any, Callable

_shelf: list[Any] = []
_lock = threading.Lock()


def take(build: Callable[[], Any], reuse: bool) -> Any:
    """An idle engine from the shelf, or a newly built one."""
    if reuse:
        with _lock:
            if _shelf:
                return _shelf.pop()
    return build()


def give_back(engine: Any, reuse: bool) -> None:
    """Shelve an engine whose game is over or failed to load (closed first)."""
    engine.close()
    if reuse:
        with _lock:
            _shelf.append(engine)


def empty_shelf() -> None:
    """Forget the idle engines, freeing the task each one's planner holds (their library copies stay loaded)."""
    with _lock:
        idle = list(_shelf)
        _shelf.clear()
    for engine in idle:
        _free_task(engine)


def _free_task(engine: Any) -> None:
    """Free the planning task an engine's library copy holds; the engine is not used afterwards."""
    try:
        lib = engine.unwrapped.downward_lib
    except AttributeError:  # not a planner engine
        return
    if lib is None:  # a planner engine that never loaded its library
        return
    try:
        lib.cleanup()
    except Exception:  # noqa: BLE001 - a task left allocated only costs memory
        pass
