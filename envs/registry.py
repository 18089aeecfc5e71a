"""The environment seam: a name (`alfworld`, `sciworld`, `webshop`, a plug-in's) maps to a provider
(an `envs.provider.EnvProvider`).

Everything above `envs/` should speak `{env, episode, fingerprint}` through
this module instead of importing an environment package by name. A provider is
found lazily from a dotted path, so listing names costs no engine import; a new
environment is one package plus one line in `_BUILTIN`.

Episode references are short and typeable: `alfworld:put-01`,
`alfworld:valid_unseen/12`, or just `put-01` when the environment is known from
`--env`. A colon only separates an environment when the part before it is a
registered name, so Windows-style or odd paths are left alone.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Callable

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
        try:
            importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 - any plug-in failure is reported the same way
            print(f"recode-tui: {PLUGINS_VAR}: cannot import {module} ({type(exc).__name__}: {exc}); "
                  "fix it, put its folder on PYTHONPATH, or drop it from the variable", file=sys.stderr)


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


def split_ref(ref: str, default_env: str | None = None) -> tuple[str, str]:
    """`alfworld:put-01` -> ("alfworld", "put-01"); `put-01` -> (default_env or the first registered, "put-01")."""
    ref = str(ref)  # a game path may come as a Path
    head, sep, tail = ref.partition(":")
    if sep and head in _registered:
        if default_env is not None and default_env != head:
            raise EnvError(f"episode {ref!r} belongs to {head!r} but --env is {default_env!r}; drop one of them")
        return head, tail
    return (default_env or names()[0]), ref


def make_env(ref: str, max_steps: int | None = None, env: str | None = None) -> Env:
    """An environment for an episode reference (see `split_ref`)."""
    name, episode = split_ref(ref, env)
    return provider(name).make_env(episode, max_steps)


def fingerprint(ref: str, env: str | None = None) -> str:
    name, episode = split_ref(ref, env)
    return provider(name).fingerprint(episode)


def default_env() -> str:
    """The environment an episode id without `env:` belongs to (and `--env`'s default)."""
    return names()[0]


def qualify(ref: str, env: str | None = None) -> str:
    """The one string that names an episode everywhere above `envs/` (journals' `game`, eval ids).

    The default environment's episodes stay bare (`put-01`, as journals always
    wrote them); any other carries its name (`sciworld:boil/0`).
    """
    name, episode = split_ref(ref, env)
    provider(name)  # an unknown --env is one line here, not later
    return episode if name == default_env() else f"{name}:{episode}"


def label(ref: str) -> str:
    """The status line's name for an episode: the provider's label, prefixed when not the default env."""
    name, episode = split_ref(ref)
    text = provider(name).label(episode)
    return text if name == default_env() else f"{name} {text}"


def step_limit(ref: str, preset_steps: int | None, given: int | None) -> int:
    """The step limit of an episode: `--max-steps` when given, else the episode's own limit
    (the provider's `step_limit(episode)`, e.g. ScienceWorld's per-task ones), else the preset's
    when it names one (`--preset paper`: 50), else the provider's `default_max_steps`.
    """
    if given is not None:
        return given
    name, episode = split_ref(ref)
    source = provider(name)
    own = source.step_limit(episode)
    if own is not None:
        return own
    return preset_steps if preset_steps is not None else source.default_max_steps


def header_fields(ref: str) -> dict[str, str]:
    """What a journal header stores to find and check its episode again: env, episode, fingerprint,
    `game` (the qualified reference) and any fields the provider adds (ALFWorld: game_path, game_hash;
    WebShop: its settings, `env_settings`)."""
    name, episode = split_ref(ref)
    source = provider(name)
    fields = {"game": qualify(ref), "env": name, "episode": episode, "fingerprint": source.fingerprint(episode)}
    fields.update(source.header_fields(episode))
    fields.update(source.env_settings())
    return fields


def env_settings(name: str) -> dict[str, str]:
    """How an environment scores and shows its episodes, when that can vary (`EnvProvider.env_settings`)."""
    return dict(provider(name).env_settings())


def gold_actions(ref: str) -> list[str] | None:
    """An episode's known solution when its provider can give one (None: this environment has none)."""
    name, episode = split_ref(ref)
    actions = provider(name).gold_actions(episode)
    return None if actions is None else list(actions)


def episode(ref: str, env: str | None = None) -> Episode:
    """One episode with its task type (the provider's `episode(id)`)."""
    name, episode_id = split_ref(ref, env)
    return provider(name).episode(episode_id)


load_plugins()
