"""The environment every agent drives: `Env`, one episode played one action at a time.

The required part is small: start an episode, send one primitive action at a time,
know when it is over. What an environment may add (a score, a reward, its admissible
commands) is declared on `Env` with its default, so a caller reads it without asking
whether it exists. What an environment offers the prompt (its action list, few-shot
examples) lives in prompt sets, not here; its episodes are listed by `envs.provider`.
"""

from __future__ import annotations

import abc
from dataclasses import asdict, dataclass
from typing import Any, Sequence


@dataclass(frozen=True)
class Reset:
    """The start of an episode: the task sentence and the rest of the first observation."""

    instruction: str
    observation: str
    raw: str


@dataclass(frozen=True)
class EnvState:
    """Everything an environment says about its episode after a reset or a step, in one record.

    Its fields are the state half of `Env`'s capabilities (the other half are calls: `step`,
    `translate`, `is_invalid`). A wrapper forwards the record (`StateView`), a worker process sends it
    whole with every reply (`to_json`): a capability added here reaches both without a second list.
    Every field is required, so `Env.state` cannot leave one out.
    """

    done: bool
    won: bool
    steps: int
    score: float | None
    score_log: tuple[tuple[int, float, float], ...]
    reward: float | None
    end_reason: str
    failure: str
    admissible_commands: tuple[str, ...] | None
    choices: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The record as JSON-ready data (`json.dumps` writes its tuples as lists)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "EnvState":
        """The record `to_json` wrote, from a worker process of this same release."""
        commands = data["admissible_commands"]
        return cls(
            done=bool(data["done"]), won=bool(data["won"]), steps=int(data["steps"]), score=data["score"],
            score_log=tuple((int(s), float(old), float(new)) for s, old, new in data["score_log"]),
            reward=data["reward"], end_reason=str(data["end_reason"]), failure=str(data["failure"]),
            admissible_commands=None if commands is None else tuple(commands), choices=tuple(data["choices"]))


class Env(abc.ABC):
    """A text environment played one primitive action at a time.

    Required: the fields `name`, `task_type`, `max_steps` and `reset`, `step`, `done`, `won`,
    `steps`, `close`. `reset` and `step` may block (ALFWorld takes 0.5-1 s to reset, ~70 ms a
    step); callers on an event loop run them in a thread.

    Optional, each read by the layers above with the default written here when an environment
    does not override it (a property, or a class attribute it then assigns). `state()` gathers the
    episode's state in one `EnvState`; a wrapper or a worker's proxy forwards that record
    (`StateView`) instead of each field:

    - `score`: a running score (ScienceWorld's 0-100), shown by the console and kept by eval. Default None.
    - `score_log`: its changes so far, (step, old, new) each, for the console's log. Default none.
    - `reward`: the final reward (WebShop's 0-1); an environment that has one shows it instead of a
      running score. Default None (no reward).
    - `end_reason`: why the episode ended before its step limit. Default "".
    - `failure`: what broke (a simulator that hung); it overrides every other reason. Default "".
    - `admissible_commands`: the commands valid now (ReAct's `check=admissible`). Default None (not said).
    - `choices()`: the actions the page or room offers now, shown at the console's stops (WebShop's
      clickables). Default: none.
    - `is_invalid(observation)`: the observation is the environment's reply to an action it could not
      carry out (ALFWorld's "Nothing happens."), for the `invalid` breakpoint. Default: never.
    - `translate(action)`: the environment's spelling of an action (ALFWorld's `put X in/on Y`),
      applied before an action is judged. Default: the action itself.
    - `abandon(reason)`: end the process the environment runs in, now (an eval episode over its
      wall clock), so that a step blocked in it returns. Default: nothing (a step that never
      returns keeps its thread; the episode still ends).
    """

    name: str
    task_type: str | None
    max_steps: int

    @abc.abstractmethod
    def reset(self) -> Reset:
        """Start the episode: the task and the first observation."""

    @abc.abstractmethod
    def step(self, action: str) -> str:
        """Play one action: its observation."""

    @property
    @abc.abstractmethod
    def done(self) -> bool:
        """The episode is over (won, ended by the environment, or at its step limit)."""

    @property
    @abc.abstractmethod
    def won(self) -> bool:
        """The task is done."""

    @property
    @abc.abstractmethod
    def steps(self) -> int:
        """Actions played so far."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release the engine (the environment is not played again)."""

    # -- optional, with the defaults the layers above use without them ----------------------------

    @property
    def score(self) -> float | None:
        return None

    @property
    def score_log(self) -> Sequence[tuple[int, float, float]]:
        return ()

    @property
    def reward(self) -> float | None:
        return None

    @property
    def end_reason(self) -> str:
        return ""

    @property
    def failure(self) -> str:
        return ""

    @property
    def admissible_commands(self) -> list[str] | None:
        return None

    def choices(self) -> list[str]:
        return []

    def is_invalid(self, observation: str) -> bool:
        """Whether `observation` says the action was not carried out (default: this environment never says)."""
        return False

    def translate(self, action: str) -> str:
        return action

    def abandon(self, reason: str) -> None:
        """Nothing to end: the environment runs in this process."""

    def state(self) -> EnvState:
        """The episode's state now, every field of it (what a wrapper forwards and a worker sends)."""
        commands = self.admissible_commands
        return EnvState(
            done=bool(self.done), won=bool(self.won), steps=int(self.steps), score=self.score,
            score_log=tuple(self.score_log), reward=self.reward, end_reason=self.end_reason, failure=self.failure,
            admissible_commands=None if commands is None else tuple(commands), choices=tuple(self.choices()))


class StateView(Env):
    """An environment that answers every state question from the last `EnvState` it was given (`seen`):
    a wrapper that refreshes it after each reset and step (a replay), a worker process's proxy that
    gets it with each reply. The calls (`reset`, `step`, `close`, ...) are the subclass's."""

    seen: EnvState

    def state(self) -> EnvState:
        return self.seen

    @property
    def done(self) -> bool:
        return self.seen.done

    @property
    def won(self) -> bool:
        return self.seen.won

    @property
    def steps(self) -> int:
        return self.seen.steps

    @property
    def score(self) -> float | None:
        return self.seen.score

    @property
    def score_log(self) -> Sequence[tuple[int, float, float]]:
        return self.seen.score_log

    @property
    def reward(self) -> float | None:
        return self.seen.reward

    @property
    def end_reason(self) -> str:
        return self.seen.end_reason

    @property
    def failure(self) -> str:
        return self.seen.failure

    @property
    def admissible_commands(self) -> list[str] | None:
        commands = self.seen.admissible_commands
        return None if commands is None else list(commands)

    def choices(self) -> list[str]:
        return list(self.seen.choices)


class EnvError(Exception):
    """An environment could not be created or loaded (bad game id, unreadable file)."""


@dataclass(frozen=True)
class Episode:
    """One playable episode of an environment, as a list shows it."""

    env: str
    id: str
    task_type: str | None
    task: str

    @property
    def ref(self) -> str:
        """The id that names this episode with no `--env` given."""
        return f"{self.env}:{self.id}"
