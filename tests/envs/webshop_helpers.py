"""Shared set-up of the WebShop tests: a private index cache and the documented noun fallback."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest


@contextmanager
def webshop_provider(cache: Path) -> Iterator[object]:
    """The registry's WebShop provider on the bundled catalogue, its index cached under `cache`."""
    from envs import registry
    from envs.webshop import catalog, nouns, provider

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RECODE_TUI_CACHE", str(cache))
        patch.setenv("WEBSHOP_NOUNS", "fallback")
        patch.delenv("WEBSHOP_DATA", raising=False)
        nouns.reset()
        provider._indexes.clear()  # each user builds (or loads) its index under its own cache folder
        try:
            yield registry.provider("webshop")
        finally:
            nouns.reset()
            catalog._load.cache_clear()
            provider._indexes.clear()


@pytest.fixture
def webshop(tmp_path):
    """The registry's WebShop provider on the bundled catalogue, its index cached under tmp_path."""
    with webshop_provider(tmp_path / "cache") as found:
        yield found


@pytest.fixture(scope="module")
def webshop_module(tmp_path_factory):
    """`webshop` shared by a module's tests: its index built once, for tests of what the pages show."""
    with webshop_provider(tmp_path_factory.mktemp("cache")) as found:
        yield found


def shared_webshop() -> Path | None:
    """The shared WebShop facts folder (reward_oracle.json, human_goals.json): beside the checkout, or
    beside the folder of worktrees; None when neither has it."""
    root = Path(__file__).resolve().parents[2]
    for folder in (root.parent / "shared" / "webshop", root.parents[1] / "shared" / "webshop"):
        if folder.is_dir():
            return folder
    return None


def clickables(observation: str) -> list[str]:
    return [part.strip() for part in observation.split("[SEP]")]
