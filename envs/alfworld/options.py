"""ALFWorld's own options: the real dataset's folder and the engine's speed-ups switch (`AlfworldOptions`).

`current()` is where this process's values are read, for every ALFWorld module; what a run records
is `to_mapping()`. Nothing here imports textworld.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Mapping

from envs.provider import EnvOptions

DATA_ENV_VAR = "ALFWORLD_DATA"
SPEEDUPS_VAR = "RECODE_ALFWORLD_SPEEDUPS"
OFF = ("0", "false", "no", "off")


@dataclass(frozen=True)
class AlfworldOptions(EnvOptions):
    """ALFWorld's options; None: the default (no real dataset, the speed-ups on)."""

    data: str | None = None  # a real ALFWorld dataset's root (json_2.1.1/<split>/...)
    speedups: str | None = None  # one of OFF runs TextWorld untouched

    variables: ClassVar[Mapping[str, str]] = {"data": DATA_ENV_VAR, "speedups": SPEEDUPS_VAR}

    @property
    def data_root(self) -> Path | None:
        """The dataset root when it is given and is a folder."""
        if not self.data:
            return None
        root = Path(self.data).expanduser()
        return root if root.is_dir() else None

    @property
    def speedups_on(self) -> bool:
        return (self.speedups or "1").lower() not in OFF


def current() -> AlfworldOptions:
    """This process's ALFWorld options, from its environment variables."""
    return AlfworldOptions.from_environment(os.environ)
