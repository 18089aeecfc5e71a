"""Shared fixtures for the environment tests (real engines, no mocks)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SHARED_ALFWORLD = (ROOT / ".." / "shared" / "alfworld").resolve()


@pytest.fixture
def shared_data(monkeypatch):
    """Point ALFWORLD_DATA at ../shared/alfworld, or skip when it is absent."""
    if not (SHARED_ALFWORLD / "json_2.1.1" / "valid_seen").is_dir():
        pytest.skip("real ALFWorld data not found at ../shared/alfworld")
    monkeypatch.setenv("ALFWORLD_DATA", str(SHARED_ALFWORLD))
    return SHARED_ALFWORLD


@pytest.fixture
def shared_data_if_any(monkeypatch) -> bool:
    """Point ALFWORLD_DATA at ../shared/alfworld when it is there; say whether it is."""
    if not (SHARED_ALFWORLD / "json_2.1.1" / "valid_seen").is_dir():
        return False
    monkeypatch.setenv("ALFWORLD_DATA", str(SHARED_ALFWORLD))
    return True


@pytest.fixture
def process_jvm():
    """The process's own simulator, whose JVM the tests before have started: a test that kills it or lets it
    hang costs no JVM of its own (the next call starts a new one, as every later user of it would need)."""
    from envs.sciworld.simulator import shared_simulator  # ScienceWorld loads only for its tests

    simulator = shared_simulator()
    timeout = simulator.call_timeout
    yield simulator
    simulator.call_timeout = timeout
