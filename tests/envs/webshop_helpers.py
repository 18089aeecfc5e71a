"""Shared set-up of the WebShop tests: a private index cache and the documented noun fallback."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def webshop(monkeypatch, tmp_path):
    """The registry's WebShop provider on the bundled catalogue, its index cached under tmp_path."""
    from envs import registry
    from envs.webshop import catalog, nouns, provider

    monkeypatch.setenv("RECODE_TUI_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("WEBSHOP_NOUNS", "fallback")
    monkeypatch.delenv("WEBSHOP_DATA", raising=False)
    nouns.reset()
    provider._indexes.clear()  # each test builds (or loads) its index under its own cache folder
    yield registry.provider("webshop")
    nouns.reset()
    catalog._load.cache_clear()


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
