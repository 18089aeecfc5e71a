"""WebShop's own options: its data, its goal list, its price seed, its search, its pages, its noun finder,
its cache folder (`WebShopOptions`), each from one environment variable.

`current()` is where this process's values are read, once per call, for every WebShop module; what a
run records is `to_mapping()` (the journal header's and the report's `env_settings` say what they gave).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Mapping

from envs.base import EnvError
from envs.provider import EnvOptions
from envs.webshop.model import DATA_VAR

PAPER_GOALS_VAR = "WEBSHOP_PAPER_GOALS"
PRICE_SEED_VAR = "WEBSHOP_PRICE_SEED"
SEARCH_VAR = "WEBSHOP_SEARCH"
PAGES_VAR = "WEBSHOP_PAGES"
NOUNS_VAR = "WEBSHOP_NOUNS"
CACHE_VAR = "RECODE_TUI_CACHE"
ANALYSES = ("original", "bundled")  # the search's analyses (envs.webshop.search)
MODES = ("faithful", "recode")  # the page modes (envs.webshop.pages)
FALLBACK = "fallback"  # the word-list noun finder (envs.webshop.nouns)


@dataclass(frozen=True)
class WebShopOptions(EnvOptions):
    """WebShop's options; None: the default (the bundled catalogue, the original's search and pages for
    `webshop`, spaCy's tagger when installed, the user cache folder)."""

    data: str | None = None  # the original data's folder (items_shuffle*.json, items_human_ins.json)
    paper_goals: str | None = None  # the reference's 200 test goals' file
    price_seed: str | None = None  # the seed of the original data's price draws (a whole number)
    search: str | None = None  # one of ANALYSES
    pages: str | None = None  # one of MODES; None: the environment's own
    nouns: str | None = None  # FALLBACK: the word-list noun finder
    cache: str | None = None  # the cache folder the search index and the catalogue store go under

    variables: ClassVar[Mapping[str, str]] = {
        "data": DATA_VAR, "paper_goals": PAPER_GOALS_VAR, "price_seed": PRICE_SEED_VAR, "search": SEARCH_VAR,
        "pages": PAGES_VAR, "nouns": NOUNS_VAR, "cache": CACHE_VAR,
    }

    def check(self) -> None:
        if self.price_seed is not None:
            try:
                int(self.price_seed)
            except ValueError:
                raise EnvError(f"{PRICE_SEED_VAR}={self.price_seed!r}: give a whole number (the seed of the "
                               "price-limit draws)") from None
        for value, variable, choices in ((self.search, SEARCH_VAR, ANALYSES), (self.pages, PAGES_VAR, MODES)):
            if value is not None and value.lower() not in choices:
                raise EnvError(f"{variable}={value!r}: use one of {', '.join(choices)}")

    @property
    def seed(self) -> int:
        """The price draws' seed (0 unless given)."""
        return int(self.price_seed) if self.price_seed is not None else 0

    @property
    def analysis(self) -> str:
        return (self.search or "original").lower()

    @property
    def fallback_nouns(self) -> bool:
        return (self.nouns or "").lower() == FALLBACK

    def cache_folder(self, name: str) -> Path:
        """`name` under the cache folder (the user cache folder unless given)."""
        if self.cache:
            return Path(self.cache) / name
        from platformdirs import user_cache_dir

        return Path(user_cache_dir("recode-tui")) / name


def current() -> WebShopOptions:
    """This process's WebShop options, from its environment variables (EnvError for a bad value)."""
    return WebShopOptions.from_environment(os.environ)
