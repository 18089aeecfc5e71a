"""Text environments the ReCode engine drives (see envs.base for the protocol).

Importing this package is cheap: environment engines load lazily.
"""

from __future__ import annotations

from envs.base import Env, EnvError, Reset

__all__ = ["Env", "EnvError", "Reset", "make_env"]


def make_env(game: str, max_steps: int = 80) -> Env:
    """An ALFWorld environment for a bundled id, a split id or a game path."""
    from envs.alfworld.catalog import make_env as _make

    return _make(game, max_steps=max_steps)
