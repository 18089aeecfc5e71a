"""Shared fixtures: real ALFWorld games for the engine and console tests."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "alfworld"


def bundled_game(task_type: str, index: int = 0) -> str:
    """The id of a bundled game of a task type (the project ships at least 10 per type)."""
    from envs.alfworld.catalog import list_games

    games = list_games([task_type])
    assert len(games) > index, f"no bundled {task_type} game #{index}"
    return games[index].id


@pytest.fixture
def put_game() -> str:
    return bundled_game("put")


@pytest.fixture
def toy_env(monkeypatch):
    """The in-memory test environment `toy` (tests/toyenv) and its test agent, registered for one test.

    RECODE_TUI_PLUGINS and PYTHONPATH name them for the processes a test starts (the command line,
    eval's environment workers). Episodes: `toy:vase-1`, `toy:key-1` (put), `toy:coin-1`, `toy:coin-2` (take).
    """
    yield from toy_registered(monkeypatch)


@pytest.fixture(scope="module")
def toy_module():
    """`toy_env` for a whole module: for a console its tests share (a module-scoped page)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield from toy_registered(monkeypatch)


def toy_registered(monkeypatch: pytest.MonkeyPatch):
    """Register the toy world and agent until the generator ends; the environment names them for child processes."""
    import os

    from tests import toyenv

    root = str(Path(__file__).resolve().parents[1])
    monkeypatch.setenv("RECODE_TUI_PLUGINS", toyenv.PLUGIN)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    toyenv.register()
    yield toyenv
    toyenv.unregister()


@pytest.fixture
def toy_game(toy_env) -> str:
    """A toy episode played like put-01: "put a vase in sidetable.", the vase on diningtable 1."""
    return "toy:vase-1"


def close_engines() -> None:
    """Close the native engines this process started: the ScienceWorld JVM and the shelved ALFWorld engines.

    Why: left to the interpreter's finalisers (py4j's threads and object
    finalisers still talking to the JVM), the JVM bridge can crash the exit
    after every test has passed. Closed here, the
    interpreter exits normally: pytest's own exit status, atexit hooks and
    temp-dir clean-up (`tests/test_exit_status.py`).
    """
    import sys

    simulator = sys.modules.get("envs.sciworld.simulator")
    if simulator is not None:
        simulator.close_shared()
    engines = sys.modules.get("envs.alfworld.engines")
    if engines is not None:
        engines.empty_shelf()


def pytest_configure(config) -> None:
    """pytest-xdist's workers set COLUMNS=80 and LINES=24; the commands a test starts would inherit
    them and print for an 80-column pipe. A test that wants a width sets it itself."""
    import os

    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ.pop("COLUMNS", None)
        os.environ.pop("LINES", None)
    deliver_ctrl_c_to_children()


def deliver_ctrl_c_to_children() -> None:
    """A suite started in the background (`make test &`, nohup, a CI runner's job) starts with SIGINT
    and SIGQUIT ignored, and an ignored signal stays ignored in every command a test starts: a server
    or `eval` that a test stops with Ctrl-C would then never stop. Give them the default again."""
    import signal

    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGQUIT) == signal.SIG_IGN:
        signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def pytest_collection_finish(session) -> None:
    """Once the tests are collected, the objects alive now (imported modules, ALFWorld's tables, the collected
    items) stay alive to the end: moved out of the collector's sight, and with collections spaced wider, the
    collector stops walking them again and again. Why: it took about a fifth of a console test's CPU
    (tests/console/test_pilot.py + test_agent_views.py: 22.6 -> 17.6 CPU-s). Cycles are still freed."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


def pytest_sessionfinish(session, exitstatus) -> None:
    close_engines()
    collect_once_then_freeze()


def collect_once_then_freeze() -> None:
    """pytest ends a session with five full garbage collections (to surface finalizers' unraisable exceptions);
    each walked every object the tests left alive (~0.9 CPU-s per xdist worker). One collection here frees the
    garbage, and its finalizers still report to pytest; the survivors are then frozen, so pytest's collections
    walk only what is new since."""
    import gc

    gc.collect()
    gc.freeze()


def pytest_unconfigure(config) -> None:
    close_engines()  # again: a session that failed to start never finished
