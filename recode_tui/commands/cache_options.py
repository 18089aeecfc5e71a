"""The response-cache flags (`--cache`, `--no-cache`, `--cache-ttl`, `--cache-dir`) of `eval` and `run`,
and what they make of an LLM (see agent.llm.cache)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from recode_tui.commands.usage import UsageError


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


def cached_llm(llm: Any, args: argparse.Namespace) -> Any:
    """`run`'s LLM through the response cache as its flags and profiles say (eval does this per episode)."""
    from agent.llm.cache import default_folder, with_cache

    settings = cache_settings(args)
    if settings.get("cache") == "off":
        return llm
    folder = Path(settings["cache_dir"]) if settings.get("cache_dir") else default_folder()
    return with_cache(llm, folder, always=settings.get("cache") == "on", ttl=settings.get("cache_ttl"))


def cache_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The plan's cache fields from --cache/--no-cache/--cache-ttl/--cache-dir; a bad expiry is a usage error."""
    from agent.llm.cache import CacheError, parse_ttl

    out: dict[str, Any] = {}
    if getattr(args, "cache", None):
        out["cache"] = args.cache
    if getattr(args, "cache_ttl", None) is not None:
        try:
            out["cache_ttl"] = parse_ttl(args.cache_ttl)
        except CacheError as exc:
            raise UsageError(f"--cache-ttl: {exc}") from None
    if getattr(args, "cache_dir", None):
        out["cache_dir"] = str(Path(args.cache_dir).resolve())
    return out
