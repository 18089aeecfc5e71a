"""The response-cache flags (`--cache`, `--no-cache`, `--cache-ttl`, `--cache-dir`) of `eval` and `run`.

`recode_tui.commands.arguments.cache_of` reads them into `CacheSettings`; `recode_tui.setup.build.cached_llm`
puts an LLM behind the cache they describe (see agent.llm.cache)."""

from __future__ import annotations

import argparse


def add_cache_options(parser: argparse.ArgumentParser) -> None:
    """--cache, --no-cache, --cache-ttl, --cache-dir (eval and run)."""
    cache = parser.add_mutually_exclusive_group()
    cache.add_argument("--cache", dest="cache", action="store_const", const="on", default=None,
                       help="answer a model request made before (same model, parameters and messages) from the "
                            "response cache, at no cost (default: each profile's `cache:` setting)")
    cache.add_argument("--no-cache", dest="cache", action="store_const", const="off",
                       help="call the model for every request, even with a profile's `cache: true`")
    parser.add_argument("--cache-ttl", default=None, metavar="AGE",
                        help="a cached answer older than this is asked again: 30m, 12h, 7d, 2w (default: the "
                             "profile's cache_ttl, else 7d)")
    parser.add_argument("--cache-dir", default=None, metavar="DIR",
                        help="the response cache folder (default: $RECODE_TUI_CACHE or the user cache dir)")
