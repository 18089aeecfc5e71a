"""The environment seam: a name (`alfworld`, `sciworld`, `webshop`, a plug-in's) maps to a provider
(an `envs.provider.EnvProvider`).

Everything above `envs/` should speak `{env, episode, fingerprint}` through
this module instead of importing an environment package by name. A provider is
found lazily from a dotted path, so listing names costs no engine import; a new
environment is one package plus one line in `_BUILTIN`.

Episode references are short and typeable: `alfworld:put-01`,
`alfworld:valid_unseen/12`, or just `put-01` when the environment is known from
`--env`. A colon only separates an environment when the part before it is a
registered name, so Windows-style or odd paths are left alone. Such a text is parsed
once into an `EpisodeRef` where it comes in, and the typed value is passed down.
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from envs.base import Env, EnvError, Episode
from envs.provider import EnvProvider


ProviderFactory = Callable[[], EnvProvider]

# name -> "module:attribute" of a provider class or factory; one line per environment.
_BUILTIN: dict[str, str] = {
    "alfworld": "envs.alfworld.provider:AlfworldProvider",
    "sciworld": "envs.sciworld.provider:SciWorldProvider",
    "sciworld-full": "envs.sciworld.provider:full_provider",  # ScienceWorld without the "easy" simplifications
    "sciworld-paper": "envs.sciworld.provider:paper_provider",  # the ReCode reference's 211 episodes (--preset paper)
    "webshop": "envs.webshop.provider:WebShopProvider",
    "webshop-paper": "envs.webshop.provider:paper_provider",  # the reference's 200 goals and pages (--preset paper)
}
_registered: dict[str, ProviderFactory | str] = dict(_BUILTIN)
_instances: dict[str, EnvProvider] = {}


def register(name: str, factory: ProviderFactory | str) -> None:
    """Add (or replace) an environment: a zero-argument factory or a `module:attr` path."""
    _registered[name] = factory
    _instances.pop(name, None)


PLUGINS_VAR = "RECODE_TUI_PLUGINS"
_plugins_loaded: set[str] = set()
_plugins_named: list[str] = []  # what the variable named when this process read it, in its order


def load_plugins() -> None:
    """Import the modules named in $RECODE_TUI_PLUGINS (comma-separated), once each.

    A plug-in (an environment or agent package outside this project, a test's
    throwaway one) registers itself when imported; naming it in the variable
    makes it known in every process, eval's environment workers included.
    Runs when this module is first imported. A module that fails to import is
    one line on stderr, not a crash of every command.
    """
    for module in (m.strip() for m in os.environ.get(PLUGINS_VAR, "").split(",")):
        if not module or module in _plugins_loaded:
            continue
        _plugins_loaded.add(module)
        _plugins_named.append(module)
        try:
            importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 - any plug-in failure is reported the same way
            print(f"recode-tui: {PLUGINS_VAR}: cannot import {module} ({type(exc).__name__}: {exc}); "
                  "fix it, put its folder on PYTHONPATH, or drop it from the variable", file=sys.stderr)


def plugins() -> list[str]:
    """The plug-in modules $RECODE_TUI_PLUGINS named when this process loaded them (eval ships them to Ray)."""
    return list(_plugins_named)


def unregister(name: str) -> None:
    """Remove an environment added with `register` (tests clean up with this)."""
    if name in _BUILTIN:
        _registered[name] = _BUILTIN[name]
    else:
        _registered.pop(name, None)
    _instances.pop(name, None)


def names() -> list[str]:
    """Registered environment names, in registration order."""
    return list(_registered)


def provider(name: str) -> EnvProvider:
    """The provider for a name; EnvError naming the known ones when it is not registered."""
    if name in _instances:
        return _instances[name]
    factory = _registered.get(name)
    if factory is None:
        raise EnvError(f"unknown environment {name!r}; use one of: {', '.join(names())}")
    if isinstance(factory, str):
        module_name, _, attribute = factory.partition(":")
        factory = getattr(importlib.import_module(module_name), attribute)  # dynamic: a `module:attr` registry line
    instance = factory()
    if not isinstance(instance, EnvProvider):
        raise EnvError(f"environment {name!r}: its factory made a {type(instance).__name__}, not an EnvProvider; "
                       "subclass envs.provider.EnvProvider")
    _instances[name] = instance
    return instance


@dataclass(frozen=True)
class EpisodeRef:
    """One episode: the environment it belongs to, its id there, and the one text naming it everywhere.

    `ref` is what journals and reports write: bare for the default environment's episodes
    (`put-01`, a `.tw-pddl` path), `env:episode` for another's (`sciworld:boil/0`). Parse the text a
    user or a file gave once (`parse`), then pass this down: what the registry answers about an
    episode (its fingerprint, step limit, header fields, label, gold path) is asked of it.
    """

    env: str
    episode: str
    ref: str

    def __str__(self) -> str:
        return self.ref

    @classmethod
    def parse(cls, text: str, env: str | None = None) -> "EpisodeRef":
        """`alfworld:put-01` or `put-01` (in `env`, else the default environment) as an `EpisodeRef`.

        A colon separates an environment only when the part before it is a registered name. EnvError,
        one line, when the text names another environment than `env`.
        """
        text = str(text)  # a game path may come as a Path
        head, sep, tail = text.partition(":")
        if sep and head in _registered:
            if env is not None and env != head:
                raise EnvError(f"episode {text!r} belongs to {head!r} but --env is {env!r}; drop one of them")
            name, episode = head, tail
        else:
            name, episode = env or default_env(), text
        return cls(name, episode, episode if name == default_env() else f"{name}:{episode}")

    @property
    def provider(self) -> EnvProvider:
        """The episode's environment provider (EnvError for an environment nobody registered)."""
        return provider(self.env)

    def make_env(self, max_steps: int | None = None) -> Env:
        """The episode's environment (`max_steps` None: its own limit)."""
        return self.provider.make_env(self.episode, max_steps)

    def fingerprint(self) -> str:
        return self.provider.fingerprint(self.episode)

    def label(self) -> str:
        """The status line's name: the provider's label, prefixed when not the default environment."""
        text = self.provider.label(self.episode)
        return text if self.env == default_env() else f"{self.env} {text}"

    def step_limit(self, preset_steps: int | None, given: int | None) -> int:
        """The step limit: `--max-steps` when given, else the episode's own limit (the provider's
        `step_limit(episode)`, e.g. ScienceWorld's per-task ones), else the preset's when it names one
        (`--preset paper`: 50), else the provider's `default_max_steps`."""
        if given is not None:
            return given
        source = self.provider
        own = source.step_limit(self.episode)
        if own is not None:
            return own
        return preset_steps if preset_steps is not None else source.default_max_steps

    def header_fields(self) -> dict[str, str]:
        """What a journal header stores to find and check the episode again: env, episode, fingerprint,
        `game` (the reference) and any fields the provider adds (ALFWorld: game_path, game_hash;
        WebShop: its settings, `env_settings`)."""
        source = self.provider
        fields = {"game": self.ref, "env": self.env, "episode": self.episode,
                  "fingerprint": source.fingerprint(self.episode)}
        fields.update(source.header_fields(self.episode))
        fields.update(source.env_settings())
        return fields

    def gold_actions(self) -> list[str] | None:
        """The episode's known solution when its provider can give one (None: this environment has none)."""
        actions = self.provider.gold_actions(self.episode)
        return None if actions is None else list(actions)

    def describe(self) -> Episode:
        """The episode with its task type (the provider's `episode(id)`)."""
        return self.provider.episode(self.episode)


# What a test, a script or a worker process holding an episode's text asks: the text parsed, then the question.
def make_env(episode_ref: str, max_steps: int | None = None, env: str | None = None) -> Env:
    """An environment for an episode reference (see `EpisodeRef.parse`)."""
    return EpisodeRef.parse(episode_ref, env).make_env(max_steps)


def fingerprint(episode_ref: str, env: str | None = None) -> str:
    return EpisodeRef.parse(episode_ref, env).fingerprint()


def default_env() -> str:
    """The environment an episode id without `env:` belongs to (and `--env`'s default)."""
    return names()[0]


def task_type_order(name: str | None) -> tuple[str, ...]:
    """An environment's task types in its own order (ALFWorld: put, clean, heat, ...), for tables and
    spreading episodes over types; none for an environment nobody registered (a report of a plug-in
    no longer loaded), whose types then keep the order they come in."""
    try:
        return tuple(provider(name or default_env()).task_types)
    except EnvError:
        return ()


def ordered_by_type(task_types: "Iterable[str]", order: "Sequence[str]") -> list[str]:
    """`task_types` in `order`, those it does not name after them as they came."""
    given = list(dict.fromkeys(task_types))
    return [t for t in order if t in given] + [t for t in given if t not in order]


def qualify(episode_ref: str, env: str | None = None) -> str:
    """The one string that names an episode everywhere above `envs/` (journals' `game`, eval ids).

    The default environment's episodes stay bare (`put-01`, as journals always
    wrote them); any other carries its name (`sciworld:boil/0`).
    """
    episode = EpisodeRef.parse(episode_ref, env)
    provider(episode.env)  # an unknown --env is one line here, not later
    return episode.ref


def label(episode_ref: str) -> str:
    """The status line's name for an episode (see `EpisodeRef.label`)."""
    return EpisodeRef.parse(episode_ref).label()


def step_limit(episode_ref: str, preset_steps: int | None, given: int | None) -> int:
    """The step limit of an episode (see `EpisodeRef.step_limit`)."""
    return EpisodeRef.parse(episode_ref).step_limit(preset_steps, given)


def header_fields(episode_ref: str) -> dict[str, str]:
    """What a journal header stores about an episode (see `EpisodeRef.header_fields`)."""
    return EpisodeRef.parse(episode_ref).header_fields()


def env_settings(name: str) -> dict[str, str]:
    """How an environment scores and shows its episodes, when that can vary (`EnvProvider.env_settings`)."""
    return dict(provider(name).env_settings())


def gold_actions(episode_ref: str) -> list[str] | None:
    """An episode's known solution when its provider can give one (None: this environment has none)."""
    return EpisodeRef.parse(episode_ref).gold_actions()


def episode(episode_ref: str, env: str | None = None) -> Episode:
    """One episode with its task type (the provider's `episode(id)`)."""
    return EpisodeRef.parse(episode_ref, env).describe()


load_plugins()
