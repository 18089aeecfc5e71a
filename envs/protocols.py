"""What an environment may offer beyond the minimum: one protocol per optional capability.

The minimum is `envs.base.Env` (one episode, played one action at a time) and
`envs.registry.EnvProvider` (the episodes of an environment). Everything here
is optional: a provider or an environment that has the method or attribute has
the capability, one that lacks it gets the default the caller names. The
layers above ask `isinstance(x, Capability)` rather than probing for names,
so this module is the one list of what a plug-in may add.

Provider capabilities (on the object `envs.registry.register` makes):

- `StepLimits.step_limit(episode) -> int`: the episode's own step limit (ScienceWorld's per task).
  Without it: the preset's limit when the preset names one, else `default_max_steps`.
- `EpisodeLookup.episode(id) -> Episode`: one episode without listing all of them.
  Without it: the provider's `episodes()` are searched.
- `GoldActions.gold_actions(episode) -> list[str]`: a known solution; `--llm gold` plays it
  with an agent that declares `gold_answers`. Without it: `--llm gold` is refused in one line.
- `HeaderFields.header_fields(episode) -> dict[str, str]`: extra fields a journal header keeps to
  find the episode again (ALFWorld's game file and its hash). Without it: none.
- `Warm.warm() -> None`: start what is slow to start (a JVM) before the first episode, in an
  eval worker while the parent sets up. Without it: nothing is started early.
- `Topics.topic_of(task_type) -> str`: the topic a task type belongs to (the eval report's
  per-topic rows). Without it: no topic rows.
- `Overview.overview(task_types) -> list[str]`: `games list`'s summary lines for environments with
  too many episodes to list. Without it: every episode is listed.
- `PresetSplits.preset_split(preset) -> str | None`: the episode set a preset plays (WebShop's
  `paper`: the reference's 200 goals). Without it: the bundled episodes.
- `GoldLimits.gold_cannot_win(episodes) -> dict[str, str]`: episodes whose own gold path cannot
  win within the limit, and why (the eval report marks them). Without it: none marked.
- `EnvSettings.env_settings() -> dict[str, str]`: how the environment scores and shows episodes when
  that can vary (WebShop: its page mode, its noun finder, its price-limit seed); journals' headers and
  eval reports record them. Without it: none.
- `PresetWarnings.preset_warnings(preset) -> list[str]`: what a preset cannot give as the paper had it
  here (WebShop's fallback noun finder under `--preset paper`); printed once on stderr. Without it: none.
- `PaperVariant.paper_env` (str | None): the environment `--preset paper` plays instead (ScienceWorld's
  `sciworld-paper`, the reference's episode set). Without it: the same environment.

Environment capabilities (on the `Env` a provider's `make_env` returns):

- `Scored.score` (a number) and `ScoreLog.score_log` (its changes, (step, old, new) each): shown by the
  console and kept by eval.
- `Rewarded.reward` (a number, known at the end): shown instead of a running score (WebShop).
- `EndReason.end_reason` (str): why the episode ended before its step limit ("" when it did not).
- `Failure.failure` (str): what broke (a simulator that hung); it overrides every other reason.
- `AdmissibleCommands.admissible_commands` (list[str]): the commands valid now (ReAct's check).
- `Translation.translate(action) -> str`: the environment's spelling of an action (ALFWorld's
  `put X in/on Y`), applied before an action is judged.
- `Abandonable.abandon(reason) -> None`: end the process the environment runs in, now (an eval
  episode over its wall clock), so that a step blocked in it returns. Without it: a step that
  never returns keeps its thread (the episode still ends).

The layers above read the environment side through the `*_of` functions at the end, which give
each capability's default; a stand-in that wraps an environment declares `WrappedEnv.wrapped`
(see `agent.sessions.replay.ReplayEnv`) so that the wrapped one's capabilities are read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Protocol, runtime_checkable

if TYPE_CHECKING:
    from envs.base import Episode


# -- providers --------------------------------------------------------------------------------

@runtime_checkable
class StepLimits(Protocol):
    def step_limit(self, episode: str) -> int: ...


@runtime_checkable
class EpisodeLookup(Protocol):
    def episode(self, episode: str) -> "Episode": ...


@runtime_checkable
class GoldActions(Protocol):
    def gold_actions(self, episode: str) -> list[str]: ...


@runtime_checkable
class HeaderFields(Protocol):
    def header_fields(self, episode: str) -> dict[str, str]: ...


@runtime_checkable
class Warm(Protocol):
    def warm(self) -> None: ...


@runtime_checkable
class Topics(Protocol):
    def topic_of(self, task_type: str) -> str: ...


@runtime_checkable
class Overview(Protocol):
    def overview(self, task_types: Iterable[str] | None = None) -> list[str]: ...


@runtime_checkable
class PresetSplits(Protocol):
    def preset_split(self, preset: str) -> str | None: ...


@runtime_checkable
class GoldLimits(Protocol):
    def gold_cannot_win(self, episodes: Iterable[str] | None = None) -> dict[str, str]: ...


@runtime_checkable
class EnvSettings(Protocol):
    def env_settings(self) -> dict[str, str]: ...


@runtime_checkable
class PresetWarnings(Protocol):
    def preset_warnings(self, preset: str) -> list[str]: ...


@runtime_checkable
class PaperVariant(Protocol):
    paper_env: str | None


# -- environments -----------------------------------------------------------------------------

@runtime_checkable
class Scored(Protocol):
    score: float


@runtime_checkable
class Rewarded(Protocol):
    reward: float


@runtime_checkable
class EndReason(Protocol):
    end_reason: str


@runtime_checkable
class Failure(Protocol):
    failure: str


@runtime_checkable
class AdmissibleCommands(Protocol):
    admissible_commands: list[str]


@runtime_checkable
class Translation(Protocol):
    def translate(self, action: str) -> str: ...


@runtime_checkable
class Abandonable(Protocol):
    def abandon(self, reason: str) -> None: ...


@runtime_checkable
class ScoreLog(Protocol):
    score_log: Iterable[tuple[int, float, float]]


@runtime_checkable
class WrappedEnv(Protocol):
    """An environment standing in for another one (a replay that checks each step against its
    recording): it hands every other name on to `wrapped`, whose capabilities are its own."""

    @property
    def wrapped(self) -> object: ...


# A wrapper hands names on with `__getattr__`, which Python 3.12's `isinstance` against a protocol
# does not see (it looks attributes up statically): the readers below ask the wrapped environment.

def unwrapped(env: object) -> object:
    """The environment behind any `WrappedEnv` stand-ins (`env` itself when it is not one)."""
    for _ in range(32):  # a chain of stand-ins is short; a mock that claims every name is not followed forever
        if not isinstance(env, WrappedEnv):
            break
        env = env.wrapped
    return env


def _number(value: object) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def score_of(env: object) -> float | None:
    """The environment's score (a number), or None when it keeps none."""
    env = unwrapped(env)
    return _number(env.score) if isinstance(env, Scored) else None


def end_reason_of(env: object) -> str:
    """The environment's own reason for an early end ('' when it gives none)."""
    env = unwrapped(env)
    return str(env.end_reason or "") if isinstance(env, EndReason) else ""


def failure_of(env: object) -> str:
    """What broke in the environment ('' when nothing did)."""
    env = unwrapped(env)
    return str(env.failure or "") if isinstance(env, Failure) else ""


def admissible_commands_of(env: object) -> list[str] | None:
    """The commands the environment takes now, or None when it does not say (a list, or a method returning one)."""
    env = unwrapped(env)
    if not isinstance(env, AdmissibleCommands):
        return None
    listed: Iterable[str] | Callable[[], Iterable[str]] | None = env.admissible_commands
    if listed is None:
        return None
    return list(listed() if callable(listed) else listed)


def translate_of(env: object, action: str) -> str:
    """The environment's own spelling of an action (the action itself when it has none)."""
    env = unwrapped(env)
    return env.translate(action) if isinstance(env, Translation) else action


def score_log_of(env: object) -> tuple[tuple[int, float, float], ...]:
    """The environment's score changes so far, (step, old, new) each (none when it keeps no score)."""
    env = unwrapped(env)
    return tuple(env.score_log or ()) if isinstance(env, ScoreLog) else ()


def reward_of(env: object) -> float | None:
    """The environment's final reward, or None when it has no reward (or none yet)."""
    env = unwrapped(env)
    return _number(env.reward) if isinstance(env, Rewarded) else None


def has_reward(env: object) -> bool:
    """Whether the environment ends with a reward rather than keeping a running score."""
    return isinstance(unwrapped(env), Rewarded)
