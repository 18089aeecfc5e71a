"""Finding games: the bundled ones, a real ALFWorld split, or a path.

Ids:
- bundled games: ``put-01`` ... ``puttwo-10`` (see ``list_games()``);
- real dataset games (env var ``ALFWORLD_DATA`` pointing at a dataset root that
  holds ``json_2.1.1/<split>/<task>/<trial>/game.tw-pddl``): ``valid_seen/<n>``,
  ``n`` being the 0-based position in ``list_split("valid_seen")``;
- anything else is taken as a path to a ``.tw-pddl`` file or a trial directory.

Nothing here imports textworld.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from envs.base import EnvError
from envs.alfworld.gamefile import TASK_TYPES, normalize_task_type
from envs.alfworld.options import DATA_ENV_VAR, current

GAMES_DIR = Path(__file__).resolve().parent / "games"
INDEX_FILE = "index.json"
SPLITS = ("train", "valid_seen", "valid_unseen", "valid_train")

_BUNDLED_ID_RE = re.compile(r"^([a-z]+)-(\d+)$")
_SPLIT_ID_RE = re.compile(r"^([a-z_]+)/(.+)$")


@dataclass(frozen=True)
class GameInfo:
    id: str
    task_type: str | None
    task: str
    room: str
    path: Path


def _check_task_types(task_types: Iterable[str] | None) -> set[str] | None:
    if task_types is None:
        return None
    if isinstance(task_types, str):
        task_types = [task_types]
    wanted = set()
    for t in task_types:
        n = normalize_task_type(t)
        if n is None:
            raise EnvError(f"unknown task type {t!r}; use one of {', '.join(TASK_TYPES)}")
        wanted.add(n)
    return wanted


# ---------------------------------------------------------------- bundled games
@lru_cache(maxsize=4)
def _bundled(games_dir: str) -> tuple[GameInfo, ...]:
    d = Path(games_dir)
    index = d / INDEX_FILE
    if not index.is_file():
        return ()
    entries = json.loads(index.read_text(encoding="utf-8")).get("games", [])
    out = []
    for e in entries:
        out.append(
            GameInfo(
                id=e["id"],
                task_type=normalize_task_type(e.get("task_type")),
                task=e.get("task", ""),
                room=e.get("room", ""),
                path=d / e["file"],
            )
        )
    return tuple(out)


def list_games(task_types: Iterable[str] | None = None) -> list[GameInfo]:
    """The games bundled with the package, optionally filtered by task type."""
    wanted = _check_task_types(task_types)
    games = _bundled(str(GAMES_DIR))
    return [g for g in games if wanted is None or g.task_type in wanted]


# ----------------------------------------------------------------- real dataset
def data_root() -> Path | None:
    """The dataset root from $ALFWORLD_DATA, or None when unset/missing."""
    return current().data_root


def _split_dir(split: str) -> Path | None:
    root = data_root()
    if root is None:
        return None
    for cand in (root / "json_2.1.1" / split, root / split):
        if cand.is_dir():
            return cand
    if root.name == split:
        return root
    return None


_ROOMS = ((1, 30, "kitchen"), (201, 230, "living room"), (301, 330, "bedroom"), (401, 430, "bathroom"))


def _room_of(floor_plan: str) -> str:
    m = re.search(r"(\d+)", floor_plan or "")
    if not m:
        return ""
    n = int(m.group(1))
    for lo, hi, name in _ROOMS:
        if lo <= n <= hi:
            return name
    return ""


def _task_from_game(path: Path) -> str:
    try:
        with path.open(encoding="utf-8") as f:
            grammar = json.load(f).get("grammar", "")
    except (OSError, ValueError):
        return ""
    m = re.search(r"Your task is to: ([^\"\\]*)", grammar)
    return m.group(1).strip() if m else ""


@lru_cache(maxsize=8)
def _split_games(split_dir: str, split: str) -> tuple[GameInfo, ...]:
    games = sorted(Path(split_dir).glob("*/*/game.tw-pddl"))
    out = []
    for i, game in enumerate(games):
        task_type, room = None, ""
        traj = game.parent / "traj_data.json"
        if traj.is_file():
            try:
                td = json.loads(traj.read_text(encoding="utf-8"))
                task_type = normalize_task_type(td.get("task_type"))
                room = _room_of(td.get("scene", {}).get("floor_plan", ""))
            except (OSError, ValueError, AttributeError):
                pass
        if task_type is None:
            task_type = normalize_task_type(game.parent.parent.name.split("-")[0])
        out.append(GameInfo(id=f"{split}/{i}", task_type=task_type, task=_task_from_game(game), room=room, path=game))
    return tuple(out)


def list_split(split: str = "valid_seen", task_types: Iterable[str] | None = None) -> list[GameInfo]:
    """Games of a real ALFWorld split under $ALFWORLD_DATA ([] when it is not available)."""
    wanted = _check_task_types(task_types)
    d = _split_dir(split)
    if d is None:
        return []
    games = _split_games(str(d.resolve()), split)
    return [g for g in games if wanted is None or g.task_type in wanted]


# -------------------------------------------------------------------- resolving
def _unknown(id_or_path: str, why: str = "") -> EnvError:
    ids = [g.id for g in list_games()]
    examples = []
    for t in TASK_TYPES:
        first = next((i for i in ids if i.startswith(t + "-")), None)
        if first:
            examples.append(first)
    sample = ", ".join(examples[:4]) or "put-01"
    lead = f"unknown game {id_or_path!r}" + (f" ({why})" if why else "")
    return EnvError(
        f"{lead}: use a bundled id such as {sample}, valid_seen/<n> with ${DATA_ENV_VAR} set, "
        "or a path to a .tw-pddl file; see `recode-tui games list`"
    )


def resolve_game(id_or_path: str | Path) -> Path:
    """Turn a game id or path into the path of a `.tw-pddl` file (EnvError if unknown)."""
    if isinstance(id_or_path, Path):
        text = str(id_or_path)
    else:
        text = str(id_or_path).strip()
    if not text:
        raise _unknown(text, "empty id")

    # bundled id (accept put-1 for put-01)
    m = _BUNDLED_ID_RE.match(text.lower())
    if m:
        kind, num = m.group(1), int(m.group(2))
        for g in list_games():
            gm = _BUNDLED_ID_RE.match(g.id)
            if g.id == text.lower() or (gm and gm.group(1) == kind and int(gm.group(2)) == num):
                return g.path

    # split id: valid_seen/<n> or valid_seen/<trial or task dir name>
    m = _SPLIT_ID_RE.match(text)
    if m and m.group(1) in SPLITS and not Path(text).exists():
        split, key = m.group(1), m.group(2)
        d = _split_dir(split)
        if d is None:
            raise EnvError(
                f"game {text!r} needs the real ALFWorld data: set {DATA_ENV_VAR} to the dataset root "
                f"(the folder holding json_2.1.1/{split}), or use a bundled id; see `recode-tui games list`"
            )
        games = list_split(split)
        if key.isdigit():
            i = int(key)
            if 0 <= i < len(games):
                return games[i].path
            raise EnvError(
                f"no game {text!r}: {split} has {len(games)} games, ids {split}/0 .. {split}/{len(games) - 1}; "
                "see `recode-tui games list`"
            )
        cand = d / key
        for c in (cand / "game.tw-pddl", cand):
            if c.is_file():
                return c
        hits = [g.path for g in games if key in (g.path.parent.name, g.path.parent.parent.name)]
        if hits:
            return hits[0]
        raise _unknown(text, f"not found in {split}")

    p = Path(text).expanduser()
    if p.is_file():
        return p
    if p.is_dir():
        if (p / "game.tw-pddl").is_file():
            return p / "game.tw-pddl"
        raise EnvError(f"{p} is a directory without a game.tw-pddl file; pass the .tw-pddl file itself")
    if text.endswith(".tw-pddl") or "/" in text or os.sep in text:
        raise EnvError(f"game file not found: {text}; check the path, or see `recode-tui games list`")
    raise _unknown(text)


def game_info(id_or_path: str | Path) -> GameInfo:
    """GameInfo for an id or path (looked up in the catalog, else read from the file)."""
    path = resolve_game(id_or_path).resolve()
    for g in list_games():
        if g.path.resolve() == path:
            return g
    from envs.alfworld.gamefile import infer_task_type, load_game_json, sidecar_task_type, task_sentence

    task = task_sentence(load_game_json(path))
    return GameInfo(
        id=str(id_or_path),
        task_type=sidecar_task_type(path) or infer_task_type(task),
        task=task,
        room="",
        path=path,
    )
