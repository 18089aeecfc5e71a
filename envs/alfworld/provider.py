"""ALFWorld behind the environment seam (see envs.registry).

Episodes are the bundled games (`put-01` ...) when no split is given, or a real
split's games (`valid_seen/3`) under $ALFWORLD_DATA. The fingerprint is the
same 16-hex-digit SHA-256 prefix of the game file that session journals have
always stored as `game_hash`, so journals written before the seam still check.
"""

from __future__ import annotations

import hashlib
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

from envs.alfworld.catalog import SPLITS, _split_dir, data_root, game_info, list_games, list_split, resolve_game
from envs.alfworld.options import DATA_ENV_VAR, AlfworldOptions, current
from envs.alfworld.gamefile import TASK_TYPES
from envs.base import Env, EnvError, Episode
from envs.provider import EnvProvider

DEFAULT_MAX_STEPS = 80  # the console's ReCode default; the paper preset uses 50


# the ALFWorld paper's names of its task types, as its tables head their columns
PAPER_TITLES = {"put": "Put", "clean": "Clean", "heat": "Heat", "cool": "Cool", "examine": "Examine",
                "puttwo": "Put Two"}


class AlfworldProvider(EnvProvider):
    """The real TextWorld engine on ALFWorld's PDDL games."""

    name = "alfworld"
    task_types: tuple[str, ...] = TASK_TYPES
    default_max_steps = DEFAULT_MAX_STEPS
    prompt_folder = "alfworld"
    options_type = AlfworldOptions

    def episodes(self, split: str | None = None, task_types: Iterable[str] | None = None) -> list[Episode]:
        if split is None or split == "bundled":
            games = list_games(task_types)
        elif split in SPLITS or data_root() is not None:
            _need_split(split)
            games = list_split(split, task_types)
        else:
            raise EnvError(f"unknown ALFWorld split {split!r}; use bundled or one of: {', '.join(SPLITS)}")
        return [Episode(self.name, g.id, g.task_type, g.task) for g in games]

    def episode(self, episode: str) -> Episode:
        """One episode by id or path, with its task type (EnvError when unknown)."""
        info = game_info(episode)
        return Episode(self.name, episode, info.task_type, info.task)

    def make_env(self, episode: str, max_steps: int | None = None) -> Env:
        from envs.alfworld.env import AlfworldEnv

        return AlfworldEnv(resolve_game(episode), max_steps=max_steps or self.default_max_steps)

    def fingerprint(self, episode: str) -> str:
        return hashlib.sha256(Path(resolve_game(episode)).read_bytes()).hexdigest()[:16]

    def header_fields(self, episode: str) -> dict[str, str]:
        """The pre-seam header fields, still written so older readers (and eval's journal index) find the file."""
        path = resolve_game(episode)
        fields = {"game_path": str(path), "game_hash": self.fingerprint(episode)}
        if Path(episode).suffix == ".tw-pddl":  # a game file given by path: resumable from any folder
            fields["episode"] = str(path.resolve())
        return fields

    def warm(self) -> None:
        """Import the heavy engine now (an eval or console worker does this while the parent sets up).

        A worker only plays episodes: textworld's import brings its human-play agent, which imports
        prompt_toolkit for its prompt (asyncio included, ~0.1 of the worker's 0.5-0.7 CPU-s); that agent
        gets none here, as where prompt_toolkit is not installed. Only when nothing has imported it yet,
        and only for this import: anything imported later finds it as usual."""
        try:
            from envs.alfworld.env import _import_engine

            with _not_importable("prompt_toolkit"):
                _import_engine()  # the same import a reset makes (the cached logic, the speedups)
        except Exception:  # noqa: BLE001 - a missing engine is reported by the first reset
            pass

    def type_title(self, task_type: str) -> str:
        """The ALFWorld paper's column names (Put, Clean, ..., Put Two)."""
        return PAPER_TITLES.get(task_type, task_type)

    def example_episode(self, task_type: str) -> str | None:
        """The bundled game of each type whose layout trips a plan that forgets what it saw (examine: the lamp
        is seen during the object search; puttwo: the second object is searched for after the first was placed)."""
        return f"{task_type}-01" if task_type in TASK_TYPES else None

    def label(self, episode: str) -> str:
        info = game_info(episode)
        return f"{info.id} · {info.task_type}" if info.task_type else info.id


def _need_split(split: str) -> None:
    """A split without the dataset is one line that says what to set, not "no games match"."""
    value = current().data
    if data_root() is None:
        why = f"{DATA_ENV_VAR}={value} is not a folder" if value else f"{DATA_ENV_VAR} is not set"
        raise EnvError(f"--split {split} needs the ALFWorld data: {why}; set it to the dataset root")
    if _split_dir(split) is None:
        raise EnvError(f"no split {split!r} under {DATA_ENV_VAR}={value}; try valid_seen, valid_unseen or train")


@contextmanager
def _not_importable(name: str) -> Iterator[None]:
    """`import name` raises ImportError inside the block, when nothing has imported it before."""
    if name in sys.modules:
        yield
        return
    modules: dict[str, Any] = sys.modules
    modules[name] = None  # Python's own mark for "not importable"
    try:
        yield
    finally:
        if sys.modules.get(name, 0) is None:
            del sys.modules[name]
