"""A response cache for model calls: re-running an evaluation pays only for the prompts that changed.

The loop it serves is "change a prompt, evaluate again, compare": most prompts
of the second run are byte for byte those of the first, so their answers are
read back instead of bought again. The key is the endpoint, the model, its
parameters and the exact messages (the very request `OpenAILLM.request`
sends); with a temperature above 0 and `eval --repeat`, the repeat's number too,
so each repeat is its own sample rather than a copy of the first.

A hit costs nothing (`cost` 0; the tokens are the recorded ones, so token
tables stay comparable) and is marked `cached`, which the journal and the
evaluation report count, so a table never mixes cached and paid calls silently.
Entries older than the expiry are misses (and are overwritten).

Only answers an agent took are kept: a new answer is written once the agent
that asked has judged it (`Completion.judged`), never before, so a refused answer
never reaches the cache, and a kept answer an agent refuses (a changed judge) is
dropped. A re-ask after a refusal therefore always reaches the model: the rewrite
loop gets a new sample, and the next evaluation does not inherit the junk.

One JSON file per key under the cache folder, written atomically: concurrent
episodes and processes share it without a lock (the same answer twice is fine).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeGuard

from agent.llm import LLM, CallContext, Completion, ModelLLM, Usage
from agent.llm.routing import RoutedLLM

DEFAULT_TTL = 7 * 24 * 3600.0
KEY_VERSION = 1  # bump when the key's shape changes: old entries then simply miss


class CacheError(ValueError):
    """A cache setting cannot be used; one line that says what to do."""


def default_folder() -> Path:
    """The user cache dir (platformdirs), `llm/` in it: where the cache is kept unless the edge names another
    (`--cache-dir`, $RECODE_TUI_CACHE: `recode_tui.setup.places.llm_cache_folder`)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("recode-tui")) / "llm"


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$")
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 7 * 86400.0}


def parse_ttl(value: str | int | float) -> float:
    """`30m`, `12h`, `7d`, `2w` or seconds, as seconds; CacheError otherwise."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    else:
        found = _DURATION.match(str(value))
        if not found:
            raise CacheError(f"cache expiry {value!r} is not a duration; use e.g. 30m, 12h, 7d or 2w")
        seconds = float(found.group(1)) * _UNITS[found.group(2)]
    if seconds <= 0:
        raise CacheError(f"cache expiry {value!r} must be more than zero")
    return seconds


def cache_key(request: dict[str, Any], endpoint: str = "", repeat: int | None = None) -> str:
    """The hex digest of the request (model, parameters, messages), its endpoint and, when given, the repeat."""
    material = {"v": KEY_VERSION, "endpoint": endpoint, "request": request}
    if repeat is not None:
        material["repeat"] = repeat
    text = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class ResponseCache:
    """Answers by key in a folder; an entry older than `ttl` seconds is a miss."""

    folder: Path
    ttl: float = DEFAULT_TTL

    def _file(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            entry = json.loads(self._file(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
            return None
        if time.time() - float(entry.get("created", 0.0)) > self.ttl:
            return None
        return entry

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Write atomically (a reader never sees half an entry); a full disk loses the entry, not the run."""
        file = self._file(key)
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(dir=file.parent, prefix=".", suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump({**entry, "created": time.time()}, out)
            os.replace(temp, file)
        except OSError:
            pass

    def drop(self, key: str) -> None:
        """Forget an entry (an agent refused it); an entry already gone is fine."""
        try:
            self._file(key).unlink()
        except OSError:
            pass


class CachedLLM:
    """A model LLM answered from the cache when it can; otherwise asked, and its answer kept."""

    def __init__(self, inner: Any, cache: ResponseCache, repeat: int | None = None) -> None:
        self.inner = inner
        self.cache = cache
        self.name = inner.name
        # the repeat is part of the key only when answers may differ between repeats
        self.repeat = repeat if repeat is not None and float(inner.profile.temperature) > 0 else None
        self.hits = 0
        self.misses = 0

    def key(self, prompt: str) -> str:
        return cache_key(self.inner.request(prompt), str(self.inner.profile.base_url or ""), self.repeat)

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion:
        key = self.key(prompt)
        entry = self.cache.get(key)
        if entry is not None:
            self.hits += 1
            usage = Usage(int(entry.get("input_tokens", 0)), int(entry.get("output_tokens", 0)))
            cut_at = entry.get("cut_at")
            return Completion(text=entry["text"], usage=usage, cost=0.0, source="model", seconds=0.0, cached=True,
                              cut_at=cut_at if isinstance(cut_at, int) else None,
                              judged=lambda taken: None if taken else self.cache.drop(key))
        completion = await self.inner.complete(prompt, context)
        self.misses += 1
        entry = {"text": completion.text, "input_tokens": completion.usage.input_tokens,
                 "output_tokens": completion.usage.output_tokens, "cost": completion.cost,
                 "model": self.inner.profile.model,
                 **({"cut_at": completion.cut_at} if completion.cut_at is not None else {})}
        return replace(completion, cached=False,
                       judged=lambda taken: self.cache.put(key, entry) if taken else None)

    def __getattr__(self, name: str) -> Any:  # the profile, prices, ... of the model behind
        return getattr(self.__dict__["inner"], name)  # dynamic: any name the model LLM has


def cacheable(llm: object) -> TypeGuard[ModelLLM]:
    """A model LLM whose request is known (OpenAILLM): scripts, journals and people are never cached."""
    return isinstance(llm, ModelLLM)


def with_cache(llm: LLM, folder: Path, *, always: bool, ttl: float | None = None, repeat: int | None = None) -> LLM:
    """`llm` with its model parts answered through the cache in `folder`: all of them when `always`
    (--cache), else those whose profile says `cache: true`. The expiry is `ttl` when given (--cache-ttl),
    else the profile's `cache_ttl`, else a week. A routed LLM keeps its shape, each role wrapped once."""
    made: dict[int, LLM] = {}

    def wrap(part: LLM) -> LLM:
        if id(part) not in made:
            if cacheable(part) and (always or part.profile.cache):
                own = part.profile.cache_ttl
                expiry = ttl if ttl is not None else parse_ttl(own) if own is not None else DEFAULT_TTL
                made[id(part)] = CachedLLM(part, ResponseCache(folder, expiry), repeat)
            else:
                made[id(part)] = part
        return made[id(part)]

    if isinstance(llm, RoutedLLM):
        return RoutedLLM(wrap(llm.default), {role: wrap(part) for role, part in llm.roles.items()}, llm.spec)
    return wrap(llm)


def hits_of(llm: object) -> int:
    """How many calls the cache answered for `llm` (a routed one: over its roles)."""
    parts = llm.parts() if isinstance(llm, RoutedLLM) else [llm]
    return sum(part.hits for part in parts if isinstance(part, CachedLLM))
