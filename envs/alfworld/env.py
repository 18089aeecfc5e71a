"""ALFWorld on its real engine: textworld's PddlEnv with alfworld's wrappers.

textworld and alfworld are imported lazily (first `reset()`), so importing this
module is cheap.
"""

from __future__ import annotations

import contextlib
import re
import threading
from pathlib import Path
from typing import Any, Iterator

from envs.alfworld import engines, logic_cache, speedups
from envs.alfworld.catalog import resolve_game
from envs.base import Env, EnvError, Reset
from envs.alfworld.gamefile import (
    infer_task_type,
    keep_alfworld_data_env,
    load_game_json,
    sidecar_task_type,
    task_sentence,
    uses_move_grammar,
)

BANNER = "-= Welcome to TextWorld, ALFRED! =-"
TASK_PREFIX = "Your task is to: "
NOTHING_HAPPENS = "Nothing happens."

_PUT_RE = re.compile(r"^put (.+?) (?:in/on|in|on|into|onto) (.+)$")
_MOVE_RE = re.compile(r"^move (.+?) to (.+)$")


def split_first_observation(raw: str) -> tuple[str, str]:
    """Split ALFWorld's first observation into (instruction, observation)."""
    text = raw.replace(BANNER, "", 1).strip()
    head, sep, tail = text.partition(TASK_PREFIX)
    if not sep:
        return "", text
    return tail.strip(), head.strip()


def normalize_command(action: str) -> str:
    cmd = " ".join(str(action).strip().split()).lower()
    while cmd.endswith("."):
        cmd = cmd[:-1].rstrip()
    return cmd


def _import_engine():
    """Import textworld + alfworld's wrappers (~1 s the first time), with our caches installed.

    Importing alfworld sets ALFWORLD_DATA to ~/.cache/alfworld when it is unset;
    undo that so the catalog keeps seeing the user's real setting.
    """
    try:
        if speedups.enabled():  # the built-in logic textworld parses at import: read back from the last run
            logic_cache.install()
        with keep_alfworld_data_env():
            import textworld
            import textworld.envs
            from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredInfos
        speedups.install()
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise EnvError(
            f"the ALFWorld engine is not installed ({exc}); run `pip install alfworld`"
        ) from exc
    return textworld, AlfredDemangler, AlfredInfos


def _make_engine():
    """Build the wrapped PddlEnv."""
    textworld, AlfredDemangler, AlfredInfos = _import_engine()
    infos = textworld.EnvInfos(won=True, admissible_commands=True, extras=["gamefile"])
    env = textworld.envs.PddlEnv(infos)
    return AlfredInfos(AlfredDemangler(env))


class AlfworldEnv(Env):
    """One ALFWorld game played on the real TextWorld/ALFWorld engine."""

    name = "alfworld"

    def __init__(self, game_path: str | Path, max_steps: int = 80):
        p = Path(game_path)
        if not p.exists() and not isinstance(game_path, Path):
            p = resolve_game(str(game_path))  # a game id; EnvError with a hint otherwise
        if p.is_dir() and (p / "game.tw-pddl").is_file():
            p = p / "game.tw-pddl"
        data = load_game_json(p)  # raises EnvError with a hint
        self.game_path: Path = p.resolve()
        self.max_steps = int(max_steps)
        self.task: str = task_sentence(data)
        self.task_type: str | None = sidecar_task_type(self.game_path) or infer_task_type(self.task)
        self._move_grammar = uses_move_grammar(data)
        wt = data.get("walkthrough")
        self.walkthrough: list[str] | None = list(wt) if isinstance(wt, list) else None
        self._engine: Any = None
        self._busy = threading.Lock()  # held while reset or step uses the engine (in an env thread)
        self._closing = False
        self._state: Any = None
        self._steps = 0
        self._won = False
        self._started = False

    # -- engine -------------------------------------------------------------
    def _ensure_loaded(self) -> None:
        if self._engine is not None:
            return
        reuse = speedups.enabled()  # engines are reused along with the engine caches
        engine = engines.take(_make_engine, reuse)
        try:
            engine.load(str(self.game_path))
        except Exception as exc:
            try:
                engines.give_back(engine, reuse)  # the next load replaces whatever this one left
            except Exception:
                pass
            msg = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
            raise EnvError(
                f"ALFWorld could not load {self.game_path.name}: {msg[:200]}; "
                "the game file is malformed, regenerate it or pick another game"
            ) from exc
        self._engine = engine

    # -- protocol -----------------------------------------------------------
    def reset(self) -> Reset:
        with self._using_engine():
            self._closing = False  # played again after a close
            return self._reset()

    def _reset(self) -> Reset:
        self._ensure_loaded()
        try:
            state = self._engine.reset()
        except Exception as exc:
            raise EnvError(
                f"ALFWorld could not start {self.game_path.name}: {exc.__class__.__name__}: "
                f"{str(exc)[:200]}; the game file is malformed, regenerate it or pick another game"
            ) from exc
        self._state = state
        self._steps = 0
        self._won = bool(state.get("won"))
        self._started = True
        raw = state["feedback"]
        instruction, observation = split_first_observation(raw)
        if not instruction:
            instruction = self.task
        return Reset(instruction=instruction, observation=observation, raw=raw)

    def step(self, action: str) -> str:
        with self._using_engine():
            return self._step(action)

    def _step(self, action: str) -> str:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self.done:
            why = "the task was completed" if self._won else f"the step limit ({self.max_steps}) was reached"
            return f"The episode is over ({why}); no more actions are accepted. Call reset() to play again."
        cmd = self.translate(action)
        self._steps += 1
        try:
            state, _score, _done = self._engine.step(cmd)
        except Exception:
            # The engine could not parse/execute it: ALFWorld's answer for that is this.
            return NOTHING_HAPPENS
        self._state = state
        self._won = bool(state.get("won"))
        return state["feedback"]

    @property
    def done(self) -> bool:
        return self._won or self._steps >= self.max_steps

    @property
    def won(self) -> bool:
        return self._won

    @property
    def steps(self) -> int:
        return self._steps

    def close(self) -> None:
        """Give the engine back to the shelf; while a reset or step runs, that call does it when it ends.

        A shelved engine is taken by the next game: shelving one that a thread still drives would let two
        threads into one planner library, which crashes the process.
        """
        self._closing = True
        if self._busy.acquire(blocking=False):
            try:
                self._release_engine()
            finally:
                self._busy.release()

    @contextlib.contextmanager
    def _using_engine(self) -> Iterator[None]:
        with self._busy:
            yield
        if self._closing and self._busy.acquire(blocking=False):  # closed meanwhile: the engine goes back now
            try:
                self._release_engine()
            finally:
                self._busy.release()

    def _release_engine(self) -> None:
        if self._engine is not None:
            try:
                engines.give_back(self._engine, speedups.enabled())
            finally:
                self._engine = None
                self._state = None
                self._started = False

    # -- extras -------------------------------------------------------------
    @property
    def admissible_commands(self) -> list[str]:
        """Commands the engine accepts in the current state (empty before reset)."""
        if self._state is None:
            return []
        return list(self._state.get("admissible_commands") or [])

    def is_invalid(self, observation: str) -> bool:
        """ALFWorld answers an action it cannot carry out with "Nothing happens." (the step is spent)."""
        return observation.lstrip().startswith(NOTHING_HAPPENS)

    def translate(self, action: str) -> str:
        """Normalise a command and map `put X in/on Y` <-> `move X to Y` to the game's grammar."""
        cmd = normalize_command(action)
        admissible = self.admissible_commands
        if cmd in admissible:
            return cmd
        if self._move_grammar:
            m = _PUT_RE.match(cmd)
            if m:
                return f"move {m.group(1)} to {m.group(2)}"
        else:
            m = _MOVE_RE.match(cmd)
            if m:
                return f"put {m.group(1)} in/on {m.group(2)}"
        return cmd

    def __enter__(self) -> "AlfworldEnv":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"AlfworldEnv({str(self.game_path)!r}, task_type={self.task_type!r}, max_steps={self.max_steps})"
