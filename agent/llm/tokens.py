"""Counting prompt tokens: exact with the model's tokenizer when one is at hand, else an estimate.

OpenAI models use tiktoken encodings. tiktoken downloads its BPE files on
first use, which fails offline (checked on this project's machines), so it
is used only when it is installed *and* the encoding file is already in its
cache; otherwise the count is an estimate of one token per four characters,
and says so. Nothing here ever touches the network.
"""

from __future__ import annotations

import hashlib
import math
import os
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from agent.llm import ModelLLM, innermost

CHARS_PER_TOKEN = 4

# Model name prefixes and the tiktoken encoding they use (longest prefix wins).
_ENCODINGS: dict[str, str] = {
    "gpt-4o": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4.5": "o200k_base",
    "gpt-5": "o200k_base",
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o4": "o200k_base",
    "gpt-4": "cl100k_base",
    "gpt-3.5": "cl100k_base",
}
_BLOB = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"


@dataclass(frozen=True)
class TokenCount:
    """A number of tokens and how it was obtained."""

    tokens: int
    exact: bool
    method: str  # "tiktoken o200k_base" or "estimate: chars/4"

    def label(self) -> str:
        if self.exact:
            return f"{self.tokens:,} tokens ({self.method})"
        return f"≈ {self.tokens:,} tokens ({self.method})"

    def short(self) -> str:
        return f"{self.tokens:,}" if self.exact else f"≈{self.tokens:,}"


def estimate(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def encoding_name(model: str | None) -> str | None:
    """The tiktoken encoding of an OpenAI model name, None for other models."""
    if not model:
        return None
    name = model.split("/")[-1].lower()
    matches = [p for p in _ENCODINGS if name == p or name.startswith(p + "-") or name.startswith(p)]
    return _ENCODINGS[max(matches, key=len)] if matches else None


def _cached_offline(encoding: str) -> bool:
    """Whether tiktoken's cache already holds the encoding (the same place tiktoken looks)."""
    folder = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    if folder == "":
        return False
    base = Path(folder) if folder else Path(tempfile.gettempdir()) / "data-gym-cache"
    key = hashlib.sha1(_BLOB.format(encoding).encode()).hexdigest()
    return (base / key).is_file()


@lru_cache(maxsize=8)
def _encoder(encoding: str) -> Callable[[str], Any] | None:
    if not _cached_offline(encoding):
        return None
    try:
        import tiktoken

        enc = tiktoken.get_encoding(encoding)
    except Exception:  # noqa: BLE001 - not installed or unreadable cache: estimate instead
        return None
    return lambda text: enc.encode(text, disallowed_special=())


class TokenCounter:
    """Counts for one model; chooses its method once."""

    def __init__(self, model: str | None = None) -> None:
        self.model = model
        enc_name = encoding_name(model)
        self._encode = _encoder(enc_name) if enc_name else None
        self.method = f"tiktoken {enc_name}" if self._encode else f"estimate: chars/{CHARS_PER_TOKEN}"

    @property
    def exact(self) -> bool:
        return self._encode is not None

    def count(self, text: str) -> TokenCount:
        if self._encode is not None:
            return TokenCount(len(self._encode(text)), True, self.method)
        return TokenCount(estimate(text), False, self.method)


def model_of(llm: Any) -> str | None:
    """The model name behind an LLM object, when it has one (a profile's model)."""
    model = innermost(llm)
    return model.profile.model if isinstance(model, ModelLLM) else None
