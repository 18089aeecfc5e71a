"""What an environment offers the layers above, in one class: `EnvProvider`.

A new environment subclasses `EnvProvider`, sets its four fields, writes the four
required methods, and overrides only the capabilities it has; every other one keeps
the default written here, which is what the project does without it. The layers
above call these methods and read these fields; they never ask whether a method
exists. `offers(Capability.X)` says whether a provider overrides one (`--llm gold`
is refused up front without gold paths; `docs/environments.md` tabulates them).
"""

from __future__ import annotations

import abc
from dataclasses import asdict, dataclass, fields
from enum import Enum
from typing import TYPE_CHECKING, ClassVar, Iterable, Mapping, TypeVar

from envs.base import EnvError, Episode

if TYPE_CHECKING:
    from envs.base import Env


Options = TypeVar("Options", bound="EnvOptions")


@dataclass(frozen=True)
class EnvOptions:
    """An environment's own options (its data folder, its modes), as one typed record.

    Each field is read from the environment variable `variables` names for it (None: not set, the
    environment's default); `from_environment` is the one place those variables are read and checked
    (EnvError, one line, for a value that is none of its choices), and `to_mapping` is what a run's
    record keeps (`from_mapping` reads it back). A provider declares its record as `options_type`.
    """

    variables: ClassVar[Mapping[str, str]] = {}  # field -> the environment variable it is read from

    @classmethod
    def from_environment(cls: type[Options], environ: Mapping[str, str]) -> Options:
        """The options these variables give (the edge passes the process environment); an unset or blank
        one keeps its default."""
        given = {name: environ.get(variable, "").strip() for name, variable in cls.variables.items()}
        return cls.from_mapping({name: value for name, value in given.items() if value}, source="environment")

    @classmethod
    def from_mapping(cls: type[Options], mapping: Mapping[str, str], source: str = "record") -> Options:
        """The options a record kept (`to_mapping`), checked as if they came from their variables."""
        known = {spec.name for spec in fields(cls)}
        unknown = sorted(set(mapping) - known)
        if unknown:
            raise EnvError(f"{cls.__name__}: no option {unknown[0]!r} (the {source} names one this version "
                           f"does not have; known: {', '.join(sorted(known)) or 'none'})")
        options = cls(**{name: str(value) for name, value in mapping.items()})
        options.check()
        return options

    def check(self) -> None:
        """EnvError, one line naming the variable, for a value that is none of its choices."""

    def to_mapping(self) -> dict[str, str]:
        """The options given (not their defaults), by field name: what a record keeps."""
        return {name: value for name, value in asdict(self).items() if value is not None}


class Capability(Enum):
    """The optional capabilities of a provider; each value is the name it is overridden under."""

    EPISODE_LOOKUP = "episode"
    STEP_LIMIT = "step_limit"
    GOLD_ACTIONS = "gold_actions"
    HEADER_FIELDS = "header_fields"
    WARM = "warm"
    TOPICS = "topic_of"
    OVERVIEW = "overview"
    PRESET_SPLIT = "preset_split"
    GOLD_LIMITS = "gold_cannot_win"
    ENV_SETTINGS = "env_settings"
    PRESET_WARNINGS = "preset_warnings"
    PAPER_VARIANT = "paper_env"
    TYPE_TITLES = "type_title"
    EXAMPLE_EPISODE = "example_episode"


class EnvProvider(abc.ABC):
    """The episodes of one environment, and everything it offers beyond playing them.

    Required (abstract): `episodes`, `make_env`, `fingerprint`, `label`, and the fields
    `name` (the registry name), `task_types` (for filters and per-type report rows),
    `default_max_steps` (the limit when neither `--max-steps`, the episode nor the preset
    names one) and `prompt_folder` (the sub-folder of a prompt set with its actions/examples).

    Optional, each with the default the project uses without it (see `Capability`):

    - `episode(id)`: one episode without listing all of them. Default: searches `episodes()`.
    - `step_limit(episode)`: the episode's own step limit (ScienceWorld's per task).
      Default None: the preset's limit when the preset names one, else `default_max_steps`.
    - `gold_actions(episode)`: a known solution, played by `--llm gold`. Default None
      (`--llm gold` is refused in one line).
    - `header_fields(episode)`: extra fields a journal header keeps to find the episode again
      (ALFWorld's game file and its hash). Default: none.
    - `warm()`: start what is slow to start (a JVM, a search index) before the first episode,
      in an eval worker while the parent sets up. Default: nothing is started early.
    - `topic_of(task_type)`: the topic a task type belongs to (the eval report's per-topic rows,
      the examples a task borrows). Default None: no topics.
    - `overview(task_types)`: `games list`'s summary lines for an environment with too many
      episodes to list. Default None: every episode is listed.
    - `preset_split(preset)`: the episode set a preset plays (WebShop's `paper`: the reference's
      200 goals). Default None: the bundled episodes.
    - `gold_cannot_win(episodes)`: episodes whose gold path cannot win within their limit, and
      why (the eval report marks them). Default None: none checked.
    - `env_settings()`: how the environment scores and shows episodes when that can vary (WebShop:
      its page mode, noun finder, price seed); journal headers and eval reports record them. Default: none.
    - `preset_warnings(preset)`: what a preset cannot give as the paper had it here, printed once
      on stderr. Default: none.
    - `type_title(task_type)`: a task type's heading in a paper-style table (ALFWorld's `Put Two`).
      Default: the task type as it is.
    - `example_episode(task_type)`: the episode the prompt workspace plays a task type's edited
      few-shot examples on. Default None: the examples are checked, not played.
    - `paper_env`: the environment `--preset paper` plays instead (ScienceWorld's `sciworld-paper`).
      Default None: the same environment.
    - `options_type`: the environment's own options record (`EnvOptions`: its variables, read and
      checked in one place, kept by a run's record as a mapping). Default: `EnvOptions`, none.
    """

    name: str
    default_max_steps: int
    prompt_folder: str
    paper_env: str | None = None
    options_type: ClassVar[type[EnvOptions]] = EnvOptions  # the environment's own options (none by default)

    _overridden: ClassVar[frozenset[Capability]] = frozenset()

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls._overridden = frozenset(
            capability for capability in Capability
            if any(capability.value in vars(klass) for klass in cls.__mro__ if klass is not EnvProvider
                   and issubclass(klass, EnvProvider)))

    # -- required ------------------------------------------------------------------------------

    @property
    @abc.abstractmethod
    def task_types(self) -> tuple[str, ...]:
        """The environment's task types (a class attribute will do)."""

    @abc.abstractmethod
    def episodes(self, split: str | None = None, task_types: Iterable[str] | None = None) -> list[Episode]:
        """The episodes of a split (None: the bundled, offline ones)."""

    @abc.abstractmethod
    def make_env(self, episode: str, max_steps: int | None = None) -> "Env":
        """A fresh environment for one episode (EnvError with one line when unknown)."""

    @abc.abstractmethod
    def fingerprint(self, episode: str) -> str:
        """What a resume checks: equal fingerprints mean the episode replays the same."""

    @abc.abstractmethod
    def label(self, episode: str) -> str:
        """A short status-line label, e.g. `put-01 · put`."""

    # -- optional, with the defaults the project uses without them --------------------------------

    def offers(self, capability: Capability) -> bool:
        """Whether this provider has `capability` (overrides it, or names a paper variant)."""
        if capability is Capability.PAPER_VARIANT:
            return self.paper_env is not None
        return capability in self._overridden

    def episode(self, episode: str) -> Episode:
        """One episode with its task type (EnvError naming the listing command when unknown)."""
        for candidate in self.episodes():
            if candidate.id == episode:
                return candidate
        raise EnvError(f"no episode {episode!r} in {self.name}; see `recode-tui games list --env {self.name}`")

    def step_limit(self, episode: str) -> int | None:
        """The episode's own step limit (None: it has none)."""
        return None

    def gold_actions(self, episode: str) -> list[str] | None:
        """A known solution of the episode (None: this environment has none)."""
        return None

    def header_fields(self, episode: str) -> dict[str, str]:
        """Extra journal-header fields that find the episode again."""
        return {}

    def warm(self) -> None:
        """Start what is slow to start before the first episode."""

    def topic_of(self, task_type: str) -> str | None:
        """The topic a task type belongs to (None: this environment has no topics)."""
        return None

    def overview(self, task_types: Iterable[str] | None = None) -> list[str] | None:
        """`games list`'s summary lines (None: list every episode)."""
        return None

    def preset_split(self, preset: str) -> str | None:
        """The split a preset plays when no --split is given (None: the bundled episodes)."""
        return None

    def gold_cannot_win(self, episodes: Iterable[str] | None = None) -> dict[str, str] | None:
        """Episodes whose gold path cannot win within their limit, and why (None: not checked)."""
        return None

    def env_settings(self) -> dict[str, str]:
        """How this environment scores and shows episodes, when that can vary."""
        return {}

    def preset_warnings(self, preset: str) -> list[str]:
        """What `preset` cannot give here as the paper had it."""
        return []

    def type_title(self, task_type: str) -> str:
        """A task type's heading in a paper-style table."""
        return task_type

    def example_episode(self, task_type: str) -> str | None:
        """The episode a task type's few-shot examples are played on (None: they are not played)."""
        return None

    def capabilities(self) -> list[Capability]:
        """The optional capabilities this provider has, in `Capability`'s order."""
        return [capability for capability in Capability if self.offers(capability)]
