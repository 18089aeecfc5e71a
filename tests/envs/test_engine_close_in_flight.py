"""An ALFWorld game closed while a thread still drives its engine: the engine is shelved only after.

Shelved engines serve the next game. Shelving one that a reset or step still uses lets two threads
into one planner library (fast_downward keeps its state in C), which crashed a test process with a
segmentation fault when a console closed while its game was still loading.
"""

from __future__ import annotations

import threading

from envs.alfworld import engines
from envs.registry import make_env


def test_a_closed_game_gives_its_engine_back_only_when_its_reset_ends(monkeypatch):
    env = make_env("put-01")
    env.reset()
    engine = env._engine  # the real planner engine this game plays on
    entered, go_on = threading.Event(), threading.Event()
    real_reset = type(engine).reset

    def held_reset(self):
        if self is engine:
            entered.set()
            go_on.wait(30)
        return real_reset(self)

    monkeypatch.setattr(type(engine), "reset", held_reset)
    engines.empty_shelf()
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(env.reset()))
    worker.start()
    try:
        assert entered.wait(30), "the reset never reached the engine"
        env.close()  # while the reset runs, as a console quitting mid-load does
        taken = engines.take(lambda: None, reuse=True)
        assert taken is not engine, "the engine was shelved while a thread still used it"
    finally:
        go_on.set()
        worker.join(30)
    assert result, "the reset did not finish"
    again = engines.take(lambda: None, reuse=True)
    assert again is engine  # back on the shelf once the reset ended
    engines.give_back(again, reuse=True)
