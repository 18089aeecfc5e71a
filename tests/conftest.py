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


_exit_status = 0


def pytest_sessionfinish(session, exitstatus) -> None:
    global _exit_status
    _exit_status = int(exitstatus)


def pytest_unconfigure(config) -> None:
    """Leave without the interpreter's own shutdown, keeping pytest's exit status.

    Why: once every test had passed, one CI run died at interpreter exit with a
    segmentation fault (native engines' threads - the ScienceWorld JVM bridge,
    TextWorld's planner - torn down by the finaliser). The shared JVM is closed
    first; then the process ends with the status pytest reported.
    """
    import os
    import sys

    if "envs.sciworld.simulator" in sys.modules:
        try:
            sys.modules["envs.sciworld.simulator"].shared_simulator().close()
        except Exception:  # noqa: BLE001 - leaving anyway
            pass
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(_exit_status)
