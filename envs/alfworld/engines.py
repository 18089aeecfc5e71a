"""A shelf of idle ALFWorld engines, reused for the next game instead of rebuilt.

Each new `PddlEnv` copies fast_downward's 33 MB shared library to a temporary
file and loads it, and nothing ever unloads it: building an engine costs about
0.1 s, and a process that plays many games grows by about 2 MB of resident
memory (and 33 MB of mappings) per game. An engine whose game is closed is
shelved here, and the next `load()` of any game replaces its whole state
(logic, PDDL state, task loaded into the library), so a shelved engine plays a
new game exactly as a fresh one does (`tests/envs/test_speedups.py` compares
transcripts). Engines beyond the shelf's capacity are unloaded.

Reuse follows the engine-speedups switch (RECODE_ALFWORLD_SPEEDUPS=0 builds a
fresh engine per game).
"""

from __future__ import annotations

import threading
from typing import Any, Callable

SHELF_SIZE = 2  # idle engines kept per process (the console can hold two games at once)

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
    """Shelve an engine whose game is over (or unload it when the shelf is full)."""
    engine.close()
    if reuse:
        with _lock:
            if len(_shelf) < SHELF_SIZE:
                _shelf.append(engine)
                return
        unload(engine)


def empty_shelf() -> None:
    """Unload every shelved engine (for whoever ends the process: no planner library is left loaded)."""
    with _lock:
        idle = list(_shelf)
        _shelf.clear()
    for engine in idle:
        unload(engine)


def unload(engine: Any) -> None:
    """Release an engine's copy of the planner library; the engine is unusable afterwards."""
    try:
        lib = engine.unwrapped.downward_lib
    except AttributeError:  # not a planner engine, or one that never loaded its library
        return
    if lib is None:
        return
    try:
        import fast_downward

        fast_downward.close_lib(lib)
    except Exception:  # noqa: BLE001 - a failed unload only costs memory
        pass
