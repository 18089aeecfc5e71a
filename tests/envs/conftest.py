"""Shared fixtures for the ALFWorld environment tests (real engine, no mocks)."""

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
