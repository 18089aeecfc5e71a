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
