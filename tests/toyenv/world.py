"""Toy: a tiny in-memory text world for tests (no engine, no files, microseconds a step).

A few places with objects on them and ALFWorld-like commands (`go to P`,
`take O from P`, `put O in/on P` or `move O to P`, `look`, `inventory`), so the agent layer
(engine, debugger, journal, replay, console) can be tested on what it does
rather than on what ALFWorld does. Everything is deterministic: a replay of
the same actions gives the same observations.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Iterable

from envs.base import Env, EnvError, Reset
from envs.base import Episode
from envs.provider import EnvProvider

NAME = "toy"
TASK_TYPES = ("put", "take")
DEFAULT_MAX_STEPS = 30
NOTHING = "Nothing happens."
_PUT = re.compile(r"^(?:put (.+?) (?:in/on|in|on)|move (.+?) to) (.+)$")  # both grammars, as ALFWorld's env maps them
_TAKE = re.compile(r"^take (.+?) from (.+)$")


@dataclass(frozen=True)
class ToyEpisode:
    """One toy episode: where things lie, what to do, and a known solution."""

    id: str
    task_type: str  # "put": an object of `goal_kind` onto `goal_place`; "take": pick one up
    task: str
    places: tuple[tuple[str, tuple[str, ...]], ...]
    goal_kind: str
    goal_place: str = ""
    gold: tuple[str, ...] = ()


EPISODES: dict[str, ToyEpisode] = {
    e.id: e
    for e in (
        ToyEpisode("vase-1", "put", "put a vase in sidetable.",
                   (("coffeetable 1", ("book 1",)), ("diningtable 1", ("vase 1", "apple 1")), ("sidetable 1", ())),
                   "vase", "sidetable 1",
                   ("go to diningtable 1", "take vase 1 from diningtable 1", "go to sidetable 1",
                    "put vase 1 in/on sidetable 1")),
        ToyEpisode("key-1", "put", "put a key in box.",
                   (("table 1", ("key 1", "pen 1")), ("shelf 1", ("book 1",)), ("box 1", ())),
                   "key", "box 1",
                   ("go to table 1", "take key 1 from table 1", "go to box 1", "put key 1 in/on box 1")),
        ToyEpisode("coin-1", "take", "take a coin.",
                   (("drawer 1", ()), ("shelf 1", ("coin 1",))), "coin", "",
                   ("go to shelf 1", "take coin 1 from shelf 1")),
        ToyEpisode("coin-2", "take", "take a coin.",
                   (("shelf 1", ("coin 1", "cup 1")), ("desk 1", ("lamp 1",))), "coin", "",
                   ("go to shelf 1", "take coin 1 from shelf 1")),
    )
}


def find(episode: str) -> ToyEpisode:
    try:
        return EPISODES[episode]
    except KeyError:
        raise EnvError(f"no toy episode {episode!r}; use one of: {', '.join(EPISODES)}") from None


def _listing(items: Iterable[str]) -> str:
    items = list(items)
    return ", ".join(f"a {item}" for item in items) if items else "nothing"


class ToyEnv(Env):
    """One toy episode, played one action at a time (`envs.base.Env`, its required part only)."""

    name = NAME

    def __init__(self, episode: str, max_steps: int = DEFAULT_MAX_STEPS) -> None:
        self.episode = find(episode)
        self.task_type: str | None = self.episode.task_type
        self.max_steps = max_steps
        self._reset_state()

    def _reset_state(self) -> None:
        self.where: str | None = None
        self.holding: str | None = None
        self.contents = {place: list(objects) for place, objects in self.episode.places}
        self._steps = 0
        self._won = False

    def reset(self) -> Reset:
        self._reset_state()
        observation = f"You are in the middle of a room. Looking quickly around you, you see {_listing(self.contents)}."
        return Reset(self.episode.task, observation, f"{observation}\n\nYour task is to: {self.episode.task}")

    def step(self, action: str) -> str:
        if self.done:
            raise EnvError("the toy episode is over; reset it to play again")
        self._steps += 1
        return self._do(" ".join(str(action).lower().split()).rstrip("."))

    def _do(self, command: str) -> str:
        if command == "look":
            if self.where is None:
                return f"You are in the middle of a room. You see {_listing(self.contents)}."
            return f"You are at {self.where}. On the {self.where}, you see {_listing(self.contents[self.where])}."
        if command == "inventory":
            return f"You are carrying: {self.holding}." if self.holding else "You are not carrying anything."
        if command.startswith("go to "):
            place = command[len("go to "):]
            if place not in self.contents:
                return NOTHING
            self.where = place
            return f"You arrive at {place}. On the {place}, you see {_listing(self.contents[place])}."
        if (match := _TAKE.match(command)) is not None:
            thing, place = match.groups()
            if place != self.where or thing not in self.contents.get(place, ()) or self.holding:
                return NOTHING
            self.contents[place].remove(thing)
            self.holding = thing
            if self.episode.task_type == "take" and thing.split()[0] == self.episode.goal_kind:
                self._won = True
            return f"You pick up the {thing} from the {place}."
        if (match := _PUT.match(command)) is not None:
            put, move, place = match.groups()
            thing = put or move
            if place != self.where or thing != self.holding:
                return NOTHING
            self.contents[place].append(thing)
            self.holding = None
            if (self.episode.task_type == "put" and thing.split()[0] == self.episode.goal_kind
                    and place == self.episode.goal_place):
                self._won = True
            return f"You put the {thing} in/on the {place}."
        return NOTHING

    def is_invalid(self, observation: str) -> bool:
        return observation == NOTHING

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
        pass


class ToyProvider(EnvProvider):
    """The toy world behind the environment seam: the required part of `EnvProvider`, and gold paths."""

    name = NAME
    task_types = TASK_TYPES
    default_max_steps = DEFAULT_MAX_STEPS
    prompt_folder = NAME

    def episodes(self, split: str | None = None, task_types: Iterable[str] | None = None) -> list[Episode]:
        if split not in (None, "bundled"):
            raise EnvError(f"the toy environment has no split {split!r}; leave --split out")
        wanted = set(task_types) if task_types is not None else None
        return [Episode(NAME, e.id, e.task_type, e.task) for e in EPISODES.values()
                if wanted is None or e.task_type in wanted]

    def episode(self, episode: str) -> Episode:
        found = find(episode)
        return Episode(NAME, found.id, found.task_type, found.task)

    def make_env(self, episode: str, max_steps: int | None = None) -> ToyEnv:
        return ToyEnv(episode, max_steps or DEFAULT_MAX_STEPS)

    def fingerprint(self, episode: str) -> str:
        return hashlib.sha256(repr(find(episode)).encode()).hexdigest()[:16]

    def label(self, episode: str) -> str:
        found = find(episode)
        return f"{found.id} · {found.task_type}"

    def gold_actions(self, episode: str) -> list[str]:
        return list(find(episode).gold)
