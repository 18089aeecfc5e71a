"""ALFWorld environment: real TextWorld/ALFWorld engine, bundled generated games.

Cheap to import: the engine (textworld, alfworld) loads on the first reset().
"""

from __future__ import annotations

from envs.alfworld.catalog import GameInfo, game_info, list_games, list_split, resolve_game
from envs.alfworld.env import AlfworldEnv, make_env
from envs.alfworld.gamefile import TASK_TYPES

__all__ = [
    "AlfworldEnv",
    "GameInfo",
    "TASK_TYPES",
    "game_info",
    "list_games",
    "list_split",
    "make_env",
    "resolve_game",
]
