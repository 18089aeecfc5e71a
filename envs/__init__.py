"""Text environments the agents drive (`envs.base.Env`, listed by an `envs.provider.EnvProvider`).

Importing this package is cheap: environment agents load lazily.
"""

from __future__ import annotations

from envs.base import Env

__all__ = ["make_env"]


def make_env(episode_ref: str, max_steps: int | None = None) -> Env:
    """An environment for an episode reference (`put-01`, `alfworld:valid_seen/3`, `sciworld:boil/0`, a game path).

    None as `max_steps`: the episode's own limit (see envs.registry).
    """
    from envs import registry

    return registry.make_env(episode_ref, max_steps)
