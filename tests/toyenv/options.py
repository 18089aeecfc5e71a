"""`toy-opts`: the toy world with a setting of how it scores (`env_settings`), registered when imported.

Named in RECODE_TUI_PLUGINS beside `tests.toyenv.plugin`, so eval's environment workers know it too; a
test of the run's record plays it to give the record's environment part a value other than the toy's.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from envs import registry
from envs.base import Episode
from tests.toyenv.world import ToyProvider

NAME = "toy-opts"
PLUGIN = "tests.toyenv.options"


class OptionedToyProvider(ToyProvider):
    name = NAME

    def episodes(self, split: str | None = None, task_types: Iterable[str] | None = None) -> list[Episode]:
        return [replace(e, env=NAME) for e in super().episodes(split, task_types)]

    def episode(self, episode: str) -> Episode:
        return replace(super().episode(episode), env=NAME)

    def env_settings(self) -> dict[str, str]:
        return {"toy_scale": "large"}


registry.register(NAME, "tests.toyenv.options:OptionedToyProvider")
