"""Cheap, engine-free reading of `.tw-pddl` game files.

Everything here uses only the standard library so that listing games or
checking a path never imports textworld (which takes ~1 s).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path
from typing import Any, Iterator

from envs.base import EnvError

TASK_TYPES = ("put", "clean", "heat", "cool", "examine", "puttwo")

# ALFRED task-type names (traj_data.json "task_type") -> our short names.
ALFRED_TASK_TYPES = {
    "pick_and_place_simple": "put",
    "pick_clean_then_place_in_recep": "clean",
    "pick_heat_then_place_in_recep": "heat",
    "pick_cool_then_place_in_recep": "cool",
    "look_at_obj_in_light": "examine",
    "pick_two_obj_and_place": "puttwo",
}
SHORT_TO_ALFRED = {v: k for k, v in ALFRED_TASK_TYPES.items()}

_TASK_RE = re.compile(r"Your task is to: ([^\"\\]*)")
_TEMPLATE_RE = re.compile(r'template\s*::\s*"([^"]*)"')
_REQUIRED_KEYS = ("pddl_domain", "grammar", "pddl_problem")


@contextlib.contextmanager
def keep_alfworld_data_env() -> Iterator[None]:
    """Importing `alfworld` sets ALFWORLD_DATA to ~/.cache/alfworld when unset: undo that."""
    had = "ALFWORLD_DATA" in os.environ
    try:
        yield
    finally:
        if not had:
            os.environ.pop("ALFWORLD_DATA", None)


def normalize_task_type(value: str | None) -> str | None:
    """Map an ALFRED task type or a short name to one of TASK_TYPES (None if unknown)."""
    if not value:
        return None
    value = value.strip()
    if value in TASK_TYPES:
        return value
    return ALFRED_TASK_TYPES.get(value)


def load_game_json(path: str | Path) -> dict[str, Any]:
    """Read and sanity-check a game file; raise EnvError with a one-line hint."""
    p = Path(path)
    if not p.exists():
        raise EnvError(
            f"game file not found: {p} (pass a bundled game id such as put-01, "
            "or see `recode-tui games list`)"
        )
    if p.is_dir():
        cand = p / "game.tw-pddl"
        if cand.is_file():
            p = cand
        else:
            raise EnvError(f"{p} is a directory without a game.tw-pddl file; pass the .tw-pddl file itself")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EnvError(f"cannot read game file {p}: {exc.__class__.__name__}; check the path and permissions") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EnvError(
            f"malformed game file {p}: not valid JSON ({exc.msg} at line {exc.lineno}); "
            "regenerate it with `python -m envs.alfworld.generator`"
        ) from exc
    if not isinstance(data, dict) or any(not isinstance(data.get(k), str) for k in _REQUIRED_KEYS):
        raise EnvError(
            f"malformed game file {p}: expected a JSON object with "
            f"{', '.join(_REQUIRED_KEYS)}; regenerate it with `python -m envs.alfworld.generator`"
        )
    return data


def task_sentence(data: dict[str, Any]) -> str:
    """The task sentence baked into a game's grammar ("put a apple in microwave.")."""
    m = _TASK_RE.search(data.get("grammar", ""))
    if not m:
        return ""
    return m.group(1).strip()


def command_templates(data: dict[str, Any]) -> list[str]:
    return _TEMPLATE_RE.findall(data.get("grammar", ""))


def uses_move_grammar(data: dict[str, Any]) -> bool:
    """True for the current grammar (`move X to Y`), False for old `put X in/on Y`."""
    templates = command_templates(data)
    if "move {o} to {r}" in templates:
        return True
    if any(t.startswith("put {o} in/on") for t in templates):
        return False
    return True


def infer_task_type(sentence: str) -> str | None:
    """Guess the task type from a task sentence written with ALFRED's templates."""
    s = sentence.lower().strip()
    if not s:
        return None
    if s.startswith("look at") or s.startswith("examine") or "desklamp" in s or "floorlamp" in s:
        return "examine"
    if re.search(r"\btwo\b", s):
        return "puttwo"
    if re.search(r"\bclean\b", s):
        return "clean"
    if re.search(r"\b(hot|heat)\b", s):
        return "heat"
    if re.search(r"\b(cool|cold)\b", s):
        return "cool"
    if s.startswith("put") or s.startswith("find") or " put " in s:
        return "put"
    return None


def sidecar_task_type(game_path: Path) -> str | None:
    """Task type from a traj_data.json beside the game, or from a games index.json."""
    traj = game_path.parent / "traj_data.json"
    if traj.is_file():
        try:
            t = json.loads(traj.read_text(encoding="utf-8")).get("task_type")
        except (OSError, ValueError, AttributeError):
            t = None
        if normalize_task_type(t):
            return normalize_task_type(t)
    index = game_path.parent / "index.json"
    if index.is_file():
        try:
            entries = json.loads(index.read_text(encoding="utf-8")).get("games", [])
        except (OSError, ValueError, AttributeError):
            entries = []
        for e in entries:
            if isinstance(e, dict) and e.get("file") == game_path.name:
                return normalize_task_type(e.get("task_type"))
    return None
