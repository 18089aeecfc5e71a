"""LLM profiles: named endpoint settings, read from a YAML file.

The file keeps the ReCode reference's shape, so existing files work:

    models:
      default:
        api_key: sk-...
        base_url: https://api.openai.com/v1
        model: gpt-4o-mini
        temperature: 0.0
    prices:                     # optional: USD per million tokens, overrides the built-in table
      my-local-model: {input: 0, output: 0}

Looked up in `--profiles PATH`, then `./configs/profiles.yaml`, then the user
config dir. `OPENAI_API_KEY` / `OPENAI_BASE_URL` fill in the default profile only:
a named profile without `base_url` goes to OpenAI's own URL, written into the
resolved profile so the SDK never reads `OPENAI_BASE_URL` for it;
any profile may name the environment variable holding its key (`api_key_env`),
so no key has to be written into the file. A broken file raises ProfileError
naming the line and field.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

DEFAULT_PROFILE = "default"

# USD per million tokens (input, output), public list prices for common models.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "o4-mini": (1.10, 4.40),
    "o3-mini": (1.10, 4.40),
}

_FIELDS: dict[str, tuple[type, ...]] = {
    "api_key": (str,),
    "api_key_env": (str,),  # the environment variable that holds the key (instead of writing it here)
    "base_url": (str,),
    "model": (str,),
    "temperature": (int, float),
    "max_tokens": (int,),
    "timeout": (int, float),
    "max_retries": (int,),
    "cache": (bool,),  # answer repeated requests from the response cache (agent.llm.cache)
    "cache_ttl": (str, int, float),  # how long a cached answer stays good: 12h, 7d, or seconds
    "max_concurrency": (int,),  # calls in flight to this profile at once, over a whole evaluation (0: no cap)
    "stop": (str, list),  # stop sequences sent with every call ("Observation:" for a model that invents them)
}
DEFAULT_TIMEOUT = 120.0  # seconds for a whole call, its retries included (a model on a CPU takes a while)
OPENAI_URL = "https://api.openai.com/v1"  # where a profile without `base_url` goes (the SDK's own default)


class ProfileError(Exception):
    """A profile cannot be used; the message is one line that says what to do."""


@dataclass(frozen=True)
class Profile:
    name: str
    model: str
    api_key: str | None = None
    base_url: str | None = None
    temperature: float = 0.0
    max_tokens: int = 2048
    timeout: float = DEFAULT_TIMEOUT  # one deadline for the whole call: every retry of the SDK's within it
    max_retries: int = 3
    cache: bool = False
    cache_ttl: str | float | None = None
    max_concurrency: int = 0  # 0: no cap; else at most this many calls at once (eval, and across Ray workers)
    stop: tuple[str, ...] = ()  # stop sequences: the model's answer ends before the first of them
    api_key_env: str | None = None  # where the key was read from (`api_key` holds it once resolved)


@dataclass
class PriceTable:
    """USD per million input/output tokens by model name (longest prefix wins)."""

    prices: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))

    def price(self, model: str) -> tuple[float, float] | None:
        matches = [name for name in self.prices if model == name or model.startswith(name + "-")]
        if not matches:
            return None
        return self.prices[max(matches, key=len)]

    def cost(self, model: str, input_tokens: int, output_tokens: int) -> float:
        price = self.price(model)
        if price is None:
            return 0.0
        return (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000


@dataclass
class ProfileBook:
    profiles: dict[str, Profile]
    prices: PriceTable
    source: Path | None


def user_config_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_config_dir("recode-tui"))


def find_profiles_file(explicit: str | Path | None = None) -> Path | None:
    """`--profiles PATH`, then ./configs/profiles.yaml, then the user config dir."""
    if explicit is not None:
        path = Path(explicit)
        if not path.is_file():
            raise ProfileError(f"profiles file {path} does not exist; check --profiles")
        return path
    for candidate in (Path("configs/profiles.yaml"), user_config_dir() / "profiles.yaml"):
        if candidate.is_file():
            return candidate
    return None


def load_profiles(path: Path | None) -> ProfileBook:
    """Read and check a profiles file; no file gives just the environment's default profile."""
    raw: dict[str, Any] = {}
    lines: dict[tuple[str, ...], int] = {}
    if path is not None:
        raw, lines = _read_yaml(path)
    where = str(path) if path else "profiles"

    def line_of(*keys: str) -> str:
        number = lines.get(tuple(keys))
        return f" (line {number})" if number else ""

    models = raw.get("models", {}) or {}
    if not isinstance(models, dict):
        raise ProfileError(f"{where}: `models` must map profile names to settings{line_of('models')}")
    profiles: dict[str, Profile] = {}
    for name, settings in models.items():
        if not isinstance(settings, dict):
            raise ProfileError(f"{where}: models.{name} must be a mapping of settings{line_of('models', str(name))}")
        checked: dict[str, Any] = {}
        for key, value in settings.items():
            if key not in _FIELDS:
                known = ", ".join(_FIELDS)
                raise ProfileError(f"{where}: models.{name}.{key} is not a setting ({known}){line_of('models', str(name), str(key))}")
            if value is None:
                continue
            if _FIELDS[key] == (bool,):
                if not isinstance(value, bool):
                    raise ProfileError(f"{where}: models.{name}.{key} must be true or false"
                                       f"{line_of('models', str(name), str(key))}")
            elif not isinstance(value, _FIELDS[key]) or isinstance(value, bool):
                kind = ("a text or a list of texts" if list in _FIELDS[key]
                        else "a duration (12h, 7d) or seconds" if str in _FIELDS[key] and float in _FIELDS[key]
                        else "a number" if float in _FIELDS[key] else "an integer" if int in _FIELDS[key] else "text")
                raise ProfileError(f"{where}: models.{name}.{key} must be {kind}{line_of('models', str(name), str(key))}")
            checked[key] = value
        if "cache_ttl" in checked:
            from agent.llm.cache import CacheError, parse_ttl

            try:
                parse_ttl(checked["cache_ttl"])
            except CacheError as exc:
                raise ProfileError(f"{where}: models.{name}.cache_ttl: {exc}"
                                   f"{line_of('models', str(name), 'cache_ttl')}") from None
        if "stop" in checked:
            stop = checked["stop"]
            stops = [stop] if isinstance(stop, str) else stop
            if not stops or not all(isinstance(s, str) and s for s in stops):
                raise ProfileError(f"{where}: models.{name}.stop must be a text or a list of texts, none empty"
                                   f"{line_of('models', str(name), 'stop')}")
            checked["stop"] = tuple(stops)
        if "api_key_env" in checked and "api_key" in checked:
            raise ProfileError(f"{where}: models.{name} has both api_key and api_key_env; keep one (api_key_env keeps "
                               f"the key out of the file){line_of('models', str(name), 'api_key_env')}")
        if checked.get("timeout", 1) <= 0:
            raise ProfileError(f"{where}: models.{name}.timeout must be more than 0 seconds"
                               f"{line_of('models', str(name), 'timeout')}")
        if checked.get("max_concurrency", 0) < 0:
            raise ProfileError(f"{where}: models.{name}.max_concurrency must be 1 or more (0 or none: no cap)"
                               f"{line_of('models', str(name), 'max_concurrency')}")
        checked.setdefault("model", str(name))
        profiles[str(name)] = Profile(name=str(name), **checked)
    prices = PriceTable()
    for model, price in (raw.get("prices", {}) or {}).items():
        try:
            prices.prices[str(model)] = (float(price["input"]), float(price["output"]))
        except (TypeError, KeyError, ValueError):
            raise ProfileError(
                f"{where}: prices.{model} must be {{input: USD per 1M tokens, output: USD per 1M tokens}}{line_of('prices', str(model))}"
            ) from None
    return ProfileBook(profiles, prices, path)


def _read_yaml(path: Path) -> tuple[dict[str, Any], dict[tuple[str, ...], int]]:
    """The parsed file plus the line of every mapping key, for error messages."""
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
        data = yaml.safe_load(text) or {}
        root = yaml.compose(text)
    except OSError as exc:
        raise ProfileError(f"cannot read profiles file {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        marked = exc if isinstance(exc, yaml.MarkedYAMLError) else None
        at = f" at line {marked.problem_mark.line + 1}" if marked is not None and marked.problem_mark else ""
        raise ProfileError(f"profiles file {path} is not valid YAML{at}: {marked.problem if marked else exc}") from None
    if not isinstance(data, dict):
        raise ProfileError(f"profiles file {path} must be a mapping with a `models:` section")
    lines: dict[tuple[str, ...], int] = {}

    def visit(node: Any, prefix: tuple[str, ...]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                keys = (*prefix, str(key.value))
                lines[keys] = key.start_mark.line + 1
                visit(value, keys)

    visit(root, ())
    return data, lines


def resolve_profile(name: str, book: ProfileBook, environ: Mapping[str, str]) -> Profile:
    """A usable profile: from the file, with OPENAI_API_KEY / OPENAI_BASE_URL / OPENAI_MODEL for the default
    one; its `base_url` always set (the URL its requests and key go to, and the one its errors name).

    `environ`: the variables, given by the edge where the client is made (the process environment there): the key
    is read from the variable the profile names at that moment, so no key is ever kept in a setting or
    a record, and nothing here reads the process environment itself."""
    env_key, env_url = environ.get("OPENAI_API_KEY"), environ.get("OPENAI_BASE_URL")
    profile = book.profiles.get(name)
    if profile is None:
        if name != DEFAULT_PROFILE:
            known = ", ".join(sorted(book.profiles)) or "none"
            source = book.source or "no profiles file found"
            raise ProfileError(f"unknown profile {name!r} (known: {known}; from {source}); add it under `models:`")
        profile = Profile(name=name, model=environ.get("OPENAI_MODEL", "gpt-4o-mini"))
    if profile.api_key_env:
        key = environ.get(profile.api_key_env, "")
        if not key and not (profile.base_url and _is_local(profile.base_url)):
            raise ProfileError(f"profile {name!r} reads its key from ${profile.api_key_env}, which is not set; "
                               f"export {profile.api_key_env}=... and run again")
        profile = Profile(**{**profile.__dict__, "api_key": key or None})
    if name == DEFAULT_PROFILE:
        profile = Profile(
            **{**profile.__dict__, "api_key": profile.api_key or env_key, "base_url": profile.base_url or env_url}
        )
    if not profile.base_url:  # given to the SDK as it is: None would make it read $OPENAI_BASE_URL
        profile = Profile(**{**profile.__dict__, "base_url": OPENAI_URL})
    if not profile.api_key:
        if profile.base_url and _is_local(profile.base_url):
            return Profile(**{**profile.__dict__, "api_key": "local"})  # local servers take any key
        where = "set OPENAI_API_KEY, or " if name == DEFAULT_PROFILE else ""
        raise ProfileError(
            f"profile {name!r} has no api_key; {where}give it api_key_env: NAME (the environment variable "
            "holding the key) or api_key"
        )
    return profile


def endpoint(name: str, book: ProfileBook) -> tuple[str, str | None]:
    """Where a profile's requests go and the environment variable its key is read from (None: the key is
    written in the file), as `resolve_profile` decides them; never the key. What a journal records."""
    profile = book.profiles.get(name) or Profile(name=name, model="")
    env_url = os.environ.get("OPENAI_BASE_URL") if name == DEFAULT_PROFILE else None
    key_env = profile.api_key_env or ("OPENAI_API_KEY" if name == DEFAULT_PROFILE and not profile.api_key else None)
    return profile.base_url or env_url or OPENAI_URL, key_env


def spec_endpoint(spec: str, profiles: str | None) -> tuple[str | None, str | None]:
    """`endpoint` of a `profile:NAME` spec, its profile read from `profiles` (None: no file, the default
    profile's environment); (None, None) for any other spec or a file that cannot be read."""
    spec = spec.removeprefix("review:")
    if not spec.startswith("profile:"):
        return None, None
    try:
        book = load_profiles(Path(profiles) if profiles else None)
    except (ProfileError, OSError):
        return None, None
    return endpoint(spec.split(":", 1)[1] or DEFAULT_PROFILE, book)


def _is_local(url: str) -> bool:
    return any(host in url for host in ("://127.0.0.1", "://localhost", "://0.0.0.0", "://[::1]"))
